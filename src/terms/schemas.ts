// Request and response shapes of the term operations (interface.md for make-term and
// process-term; docs/bill-run.md for the rest).
import { Type, type Static } from 'typebox';
import { Code, Id, DECIMAL_PATTERN, LOCAL_TIME_PATTERN, VISIBLE_TEXT } from '../primitives.ts';
import { POST_TYPES } from '../templates/schemas.ts';
import { DMY_PATTERN } from '../calendar/calendar.ts';
import { TERM_STATUSES } from '../billRun/termStates.ts';
import { TermException } from '../billRun/schemas.ts';
import { PreviewBill, Totals } from '../bills/schemas.ts';
import { VerificationRecord } from '../verification/schemas.ts';
import { named } from '../http/openapi.ts';

const DmyDate = Type.String({ pattern: DMY_PATTERN, description: 'dd/mm/yyyy' });
export const TermId = Type.Integer({ ...Id, description: 'from get-terms' });
const PeriodId = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'chosen by the client, e.g. 202611' });

export const MakeTermData = Type.Object(
  {
    serviceCode: Code,
    batchCode: Code,
    billingPeriodID: PeriodId,
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_TEXT, description: 'default: "<service> <batch> <start> to <end>"' })),
    startDate: DmyDate,
    endDate: DmyDate,
    dueDate: Type.Optional(Type.String({ pattern: DMY_PATTERN, description: "dd/mm/yyyy; default endDate + the template's dueDateOffset days" })),
    postType: Type.Optional(Type.Enum([...POST_TYPES], { description: "default: the template's" })),
  },
  { additionalProperties: false },
);
export type MakeTermData = Static<typeof MakeTermData>;

export const ProcessTermData = Type.Object(
  {
    termID: TermId,
    sheduleTime: Type.Optional(
      Type.String({
        pattern: LOCAL_TIME_PATTERN,
        description: "YYYY-MM-DDThh:mm:ss in the app's time zone; now or past (or absent) runs at once",
      }),
    ),
  },
  { additionalProperties: false },
);

export const TermRef = Type.Object({ termID: TermId }, { additionalProperties: false });

export const GetTermsData = Type.Object(
  {
    termID: Type.Optional(TermId),
    serviceCode: Type.Optional(Code),
    batchCode: Type.Optional(Code),
    billingPeriodID: Type.Optional(PeriodId),
    status: Type.Optional(Type.Enum(TERM_STATUSES)),
  },
  { additionalProperties: false },
);

export const ReadingRow = Type.Object(
  {
    subscriptionID: Id,
    inputCode: Code,
    readingDate: DmyDate,
    value: Type.Union([Type.String({ pattern: DECIMAL_PATTERN, maxLength: 30 }), Type.Number({ minimum: 0 })]),
    kind: Type.Optional(Type.Enum(['actual', 'estimated'])),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type ReadingRow = Static<typeof ReadingRow>;

export const CaptureReadingsData = Type.Object(
  { termID: TermId, readings: Type.Array(ReadingRow, { minItems: 1, maxItems: 100000 }) },
  { additionalProperties: false },
);

export const ValidateTermData = Type.Object(
  {
    termID: TermId,
    estimateMissing: Type.Optional(Type.Boolean({ description: 'estimate missing readings from the subscription history and record them' })),
    previewLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, description: 'preview bills listed (default 100); totals cover all' })),
  },
  { additionalProperties: false },
);


/** A warning about the whole term (its dates against the app's today); the run goes on. */
export const TermWarning = named('TermWarning', Type.Object({ code: Type.String(), message: Type.String(), path: Type.String() }));
export type TermWarning = Static<typeof TermWarning>;

export const TermRecord = named('Term', Type.Object({
  termID: Type.Integer(),
  appCode: Type.Integer(),
  serviceCode: Type.String(),
  serviceVersion: Type.Integer({ description: 'the template version this term bills with' }),
  batchCode: Type.String(),
  billingPeriodID: Type.Integer(),
  label: Type.String(),
  startDate: Type.String(),
  endDate: Type.String(),
  dueDate: Type.String(),
  postType: Type.Enum([...POST_TYPES]),
  status: Type.Enum(TERM_STATUSES),
  counts: Type.Object({
    subscriptions: Type.Integer({ description: 'roster' }),
    readings: Type.Integer({ description: 'roster subscriptions with a reading in the term' }),
    bills: Type.Integer(),
    failures: Type.Integer(),
    exceptions: Type.Integer(),
  }),
  totals: Totals,
  corrections: Type.Object(
    {
      cancelled: Type.Integer({ description: 'bills of the term credit notes cancelled after posting' }),
      rebills: Type.Integer({ description: 'rebills made in the term (listed by get-bills with its bills)' }),
      // Of the bills in force: the run totals, less the cancelled bills', plus the rebills'.
      totals: Totals,
    },
    { description: 'what corrections after posting changed; the run counts and totals above stay what the run made, and corrections.totals are those of the bills in force (run totals less the cancelled bills, plus the rebills)' },
  ),
  exceptions: Type.Array(TermException, { description: 'of the last validation (the first 100)' }),
  job: Type.Object({
    state: Type.Enum(['none', 'scheduled', 'running', 'done', 'failed', 'cancelled']),
    sheduleTime: Type.Union([Type.String(), Type.Null()]),
    startedAt: Type.Union([Type.String(), Type.Null()]),
    finishedAt: Type.Union([Type.String(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    progress: Type.Object({ chunksTotal: Type.Integer(), chunksDone: Type.Integer(), percent: Type.Integer() }),
  }),
  postedAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
  verification: VerificationRecord,
}));
export type TermRecord = Static<typeof TermRecord>;

export const ValidationAnswer = Type.Object({
  exceptions: Type.Array(TermException, { description: "the first 1000" }),
  exceptionCount: Type.Integer(),
  estimated: Type.Integer({ description: 'readings estimated and recorded by this call' }),
  preview: Type.Object({ bills: Type.Integer(), failures: Type.Integer(), totals: Totals }),
  previewBills: Type.Array(PreviewBill),
  warnings: Type.Array(TermWarning, { description: "about the term's calendar, not a subscription: TERM_NOT_ENDED, DUE_DATE_PASSED" }),
});
