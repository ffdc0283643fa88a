import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, RawFile, requestSchema, type OperationContext, type Services } from '../http/operation.ts';
import { readingSheet } from './readingSheet.ts';
import { CaptureReadingsData, GetTermsData, MakeTermData, ProcessTermData, TermId, TermRecord, TermRef, ValidateTermData, ValidationAnswer } from './schemas.ts';
import { makeTerm } from './makeTerm.ts';
import { listTerms } from '../billRun/termStore.ts';
import { termRecord } from './termRecord.ts';
import { TERM_VERIFICATION_COLUMN, verificationOfColumn } from '../verification/termVerification.ts';
import { loadSubscriptions } from './loadSubscriptions.ts';
import { captureReadings } from './captureReadings.ts';
import { validateTerm } from './validateTerm.ts';
import { approveTerm } from './approveTerm.ts';
import { processTerm, retryFailures } from './processTerm.ts';
import { cancelTerm } from './cancelTerm.ts';
import { reverseTerm } from './reverseTerm.ts';
import { postTerm } from './postTerm.ts';
import { getFailures } from './getFailures.ts';
import { Paging, PagingInput } from '../primitives.ts';

const Empty = Type.Object({});
const TAG = 'terms and the bill run';

export async function termRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/terms/make-term',
    headers: { 'X-Billrun-Term-Id': 'the new termID' },
    role: 'biller',
    tag: TAG,
    summary: 'Create a term',
    description:
      "Step 1. One term per template, batch and billingPeriodID (CONFLICT), and no two terms of a template and batch with overlapping dates (CONFLICT). Dates dd/mm/yyyy, startDate <= endDate <= dueDate. Defaults: label, dueDate = endDate + the template's dueDateOffset, postType = the template's. The new termID is in the X-Billrun-Term-Id header.",
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Bill Term', schedule: true }, { data: MakeTermData }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await makeTerm(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-term-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/terms/get-terms',
    role: 'viewer',
    tag: TAG,
    summary: 'List terms',
    description: 'Terms of the app with their counts, totals, job state and progress; filtered by any of the data fields.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Terms', schedule: true }, { data: Type.Optional(GetTermsData) }),
    data: Type.Object({ terms: Type.Array(TermRecord) }),
    handler: async (body, ctx) => {
      const terms = await listTerms<{ verification: unknown }>(ctx.db, ctx.caller.appCode, body.data ?? {}, TERM_VERIFICATION_COLUMN);
      return { terms: terms.map((t) => termRecord(t, verificationOfColumn(t.verification))) };
    },
  });

  operation(app, services, {
    path: '/billing/terms/get-failures',
    role: 'viewer',
    tag: TAG,
    summary: "List a term's failures",
    description: 'The subscriptions the run could not bill, with the code, the reason and the fields at fault, by subscriptionID; limit (default 100, at most 1000) and offset. Fix their data, then retry-failures.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Term Failures', schedule: true }, {
      data: Type.Object({ termID: TermId, ...PagingInput }, { additionalProperties: false }),
    }),
    data: Type.Object({
      failures: Type.Array(
        Type.Object({
          subscriptionID: Type.Integer(),
          accountID: Type.Integer(),
          accountNumber: Type.String(),
          code: Type.String(),
          reason: Type.String(),
          details: Type.Array(
            Type.Object({
              path: Type.String(),
              message: Type.String(),
              readingDate: Type.Optional(
                Type.String({ description: "dd/mm/yyyy, on a detail naming a meter of a MISSING_READING or NEGATIVE_CONSUMPTION: the day a reading that fixes it is dated, as validate-term's exceptions say (failures from 2026-11-27)" }),
              ),
            }),
          ),
          failedAt: Type.String(),
        }),
      ),
      paging: Paging,
    }),
    handler: async (body, ctx) => getFailures(ctx.db, ctx.caller, body.data.termID, body.data.limit ?? 100, body.data.offset ?? 0),
  });

  const step = (
    name: string,
    action: string,
    summary: string,
    description: string,
    run: (termId: number, c: OperationContext) => Promise<unknown>,
  ) =>
    operation(app, services, {
      path: `/billing/terms/${name}`,
      role: 'biller',
      tag: TAG,
      summary,
      description,
      idempotent: true,
      body: requestSchema({ method: 'Update', action, schedule: true }, { data: TermRef }),
      data: Empty,
      handler: async (body, ctx) => {
        await run(body.data.termID, ctx);
        return {};
      },
    });

  step('load-subscriptions', 'Load Term Subscriptions', 'Load the roster', "Step 2. The batch's subscriptions to the template active on a day of the term become the roster (again, from Loaded).", (id, c) =>
    loadSubscriptions(c.db, c.caller, id),
  );

  operation(app, services, {
    path: '/billing/terms/capture-readings',
    operationId: 'captureTermReadings',
    headers: { 'X-Billrun-Readings': 'how many readings were recorded' },
    role: 'biller',
    tag: TAG,
    summary: 'Capture readings',
    description:
      'Step 3. Meter readings for roster subscriptions, all or nothing (each bad row reported by its index). A reading for a day that has one corrects it. Allowed until approval; in a Processed term, for failed subscriptions. The number recorded is in the X-Billrun-Readings header.',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Capture Term Readings', schedule: true }, { data: CaptureReadingsData }),
    data: Empty,
    handler: async (body, ctx) => {
      const n = await captureReadings(ctx.db, ctx.caller, body.data.termID, body.data.readings);
      ctx.reply.header('x-billrun-readings', String(n));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/terms/get-reading-sheet',
    role: 'viewer',
    tag: TAG,
    summary: "A term's reading sheet",
    description:
      "Step 3's sheet: a row per roster subscription and meter (CSV, or JSON lines with format 'jsonl'), streamed: the account, its address, the connection's inputs (the meter number), the meter, the reading the bill subtracts from (previousReadingDate, previousReading), a reading already dated in the term (readInTermDate, readInTerm), the day to read (readingDate: the term's end, the subscription's end, or the app's today when earlier) and empty value and note columns. Filled in, it is what capture-readings takes (subscriptionID, inputCode, readingDate, value, note). unreadOnly keeps the meters with no reading in the term yet. INVALID_STATE before load-subscriptions.",
    raw: { types: ['text/csv', 'application/x-ndjson'] },
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Reading Sheet', schedule: true },
      {
        data: Type.Object(
          {
            termID: TermId,
            format: Type.Optional(Type.Enum(['csv', 'jsonl'], { description: "'csv' (the default) or 'jsonl'" })),
            unreadOnly: Type.Optional(Type.Boolean({ description: 'only the meters with no reading dated in the term yet' })),
          },
          { additionalProperties: false },
        ),
      },
    ),
    data: RawFile,
    handler: async (body, ctx) => readingSheet(ctx.db, ctx.caller.appCode, body.data),
  });

  operation(app, services, {
    path: '/billing/terms/validate-term',
    role: 'biller',
    tag: TAG,
    summary: 'Validate a term',
    description:
      'Step 4. A dry run of every roster bill by the code that bills: exceptions (subscriptions that cannot be billed, consumption far from history) and the preview. estimateMissing first records estimates of missing readings from history.',
    body: requestSchema({ method: 'Update', action: 'Validate Term', schedule: true }, { data: ValidateTermData }),
    data: ValidationAnswer,
    handler: async (body, ctx) =>
      validateTerm(ctx.db, ctx.caller, body.data.termID, {
        estimateMissing: body.data.estimateMissing,
        previewLimit: body.data.previewLimit,
        chunkSize: ctx.config.billRunChunkSize,
      }),
  });

  step('approve-term', 'Approve Term', 'Approve a term', 'Step 5. Freezes the roster and the readings. Remaining exceptions become recorded failures of the run.', (id, c) =>
    approveTerm(c.db, c.caller, id),
  );

  operation(app, services, {
    path: '/billing/terms/process-term',
    role: 'biller',
    tag: TAG,
    summary: 'Process a term',
    description:
      "Step 6. Registers the run as a job at sheduleTime (app time zone; now, past or absent: at once). Skipped steps 2 to 5 run first. INVALID_STATE when the term is Scheduled, Processing, Processed or Posted.",
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Process Term', schedule: true }, { data: ProcessTermData }),
    data: Empty,
    handler: async (body, ctx) => {
      await processTerm(ctx.db, ctx.caller, body.data.termID, body.data.sheduleTime);
      return {};
    },
  });

  step('retry-failures', 'Retry Term Failures', 'Process failed subscriptions again', 'Rates again, alone, the subscriptions of a Processed term that failed, with their readings as they are now.', (id, c) =>
    retryFailures(c.db, c.caller, id),
  );
  step('cancel-term', 'Cancel Term', 'Cancel a term', 'Before processing (a scheduled job is removed). Frees the period and dates.', (id, c) => cancelTerm(c.db, c.caller, id));
  step('reverse-term', 'Reverse Term', 'Reverse a processed term', 'Withdraws the bills of a Processed, unposted term (they keep their numbers); the term is Loaded again.', (id, c) =>
    reverseTerm(c.db, c.caller, id),
  );
  step('post-term', 'Post Term', 'Post a processed term', "Posts the bills to the accounts' ledger.", (id, c) => postTerm(c.db, c.caller, id));
}
