import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Code, Id } from '../primitives.ts';
import { DecimalValue } from '../rating/tariff.ts';
import { RecordDateText } from '../calendar/calendar.ts';
import { Note, ReadingInput, ReadingKind, ReadingRecord, Source } from './schemas.ts';
import { captureReadings } from './captureReadings.ts';
import { correctReading } from './correctReading.ts';
import { readingHistory } from './readingHistory.ts';

const Empty = Type.Object({});
const TAG = 'readings';

export async function readingRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/readings/capture-readings',
    headers: { 'X-Billrun-Reading-Ids': 'the new readingIDs, comma-separated, in the order given', 'X-Billrun-Consumption-Kinds': 'the consumption kind of each reading (first, normal or rollover; maximum on a demand register), comma-separated, in the order given' },
    role: 'biller',
    tag: TAG,
    summary: 'Capture meter readings',
    description:
      'Records up to 10,000 readings, all or none. A value lower than the reading before is accepted only as a roll-over of the meter (template rolloverAt); otherwise it is refused as an error, saying which. X-Billrun-Reading-Ids lists the new readingIDs and X-Billrun-Consumption-Kinds each one\'s first, normal or rollover, in the order given.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Capture Readings' }, {
      data: Type.Object({ readings: Type.Array(ReadingInput, { minItems: 1, maxItems: 10000 }) }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      const { ids, results } = await captureReadings(ctx.db, ctx.caller, body.data.readings);
      ctx.reply.header('x-billrun-reading-ids', ids.join(','));
      ctx.reply.header('x-billrun-consumption-kinds', results.map((r) => r.kind).join(','));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/readings/correct-reading',
    headers: { 'X-Billrun-Reading-Id': 'the new readingID', 'X-Billrun-Consumption-Kind': 'its consumption kind: first, normal or rollover; maximum on a demand register' },
    role: 'biller',
    tag: TAG,
    summary: 'Correct a meter reading',
    description:
      'Adds a corrected reading beside the original (kept, never overwritten), which stops being effective. The new readingID is in X-Billrun-Reading-Id, its consumption kind in X-Billrun-Consumption-Kind.',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Correct Reading' }, {
      data: Type.Object(
        { readingID: Id, value: DecimalValue, readingDate: Type.Optional(RecordDateText), kind: Type.Optional(ReadingKind), source: Type.Optional(Source), note: Type.Optional(Note) },
        { additionalProperties: false },
      ),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      const { id, result } = await correctReading(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-reading-id', id);
      ctx.reply.header('x-billrun-consumption-kind', result.kind);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/readings/get-readings',
    role: 'viewer',
    tag: TAG,
    summary: 'A subscription\'s reading history',
    description: 'Every reading of the subscription (or of one meter), oldest first per meter, corrected readings beside their corrections; each effective reading carries its consumption since the one before.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Readings' }, {
      data: Type.Object({ subscriptionID: Id, inputCode: Type.Optional(Code) }, { additionalProperties: false }),
    }),
    data: Type.Object({ readings: Type.Array(ReadingRecord) }),
    handler: async (body, ctx) => ({ readings: await readingHistory(ctx.db, ctx.caller.appCode, body.data.subscriptionID, body.data.inputCode) }),
  });
}
