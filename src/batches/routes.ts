import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { conflict, notFound } from '../errors.ts';
import { BatchCode, BatchRecord } from './schemas.ts';
import { VISIBLE_TEXT } from '../primitives.ts';
import { insertBatch, listBatches, updateBatchLabel, type BatchRow } from './store.ts';

const Empty = Type.Object({});
const Label = Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_TEXT });

const record = (r: BatchRow): BatchRecord => ({
  batchID: Number(r.batch_id),
  appCode: r.app_code,
  batchCode: r.batch_code,
  label: r.label,
  serviceCodes: r.service_codes,
  subscriptionCount: Number(r.subscription_count),
  createdAt: r.created_at,
  createdBy: r.created_by,
});

export async function batchRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/batches/make-batch',
    headers: { 'X-Billrun-Batch-Id': 'the new batchID' },
    role: 'admin',
    tag: 'batches',
    summary: 'Create a batch',
    description: 'A batch groups subscriptions read and billed together. The new batchID is in the X-Billrun-Batch-Id header. A template naming a new batch code also makes it.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Batch' }, {
      data: Type.Object({ batchCode: BatchCode, label: Type.Optional(Label) }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      const { batchCode, label } = body.data;
      const id = await insertBatch(ctx.db, ctx.caller.appCode, batchCode, label ?? batchCode, ctx.caller.email);
      if (!id) throw conflict(`A batch with code "${batchCode}" exists already.`, 'data.batchCode');
      ctx.reply.header('x-billrun-batch-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/batches/update-batch',
    role: 'admin',
    tag: 'batches',
    summary: 'Rename a batch',
    description: 'Changes the label; the code never changes, as terms and subscriptions refer to it.',
    body: requestSchema({ method: 'Update', action: 'Update Batch' }, {
      data: Type.Object({ batchCode: BatchCode, label: Label }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      const found = await updateBatchLabel(ctx.db, ctx.caller.appCode, body.data.batchCode, body.data.label);
      if (!found) throw notFound('batch', 'data.batchCode');
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/batches/get-batches',
    role: 'viewer',
    tag: 'batches',
    summary: 'List batches',
    description: 'All batches of the app, or the one whose batchCode is given (NOT_FOUND when there is none).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Batches' }, {
      data: Type.Optional(Type.Object({ batchCode: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false })),
    }),
    data: Type.Object({ batches: Type.Array(BatchRecord) }),
    handler: async (body, ctx) => {
      const code = body.data?.batchCode;
      const rows = await listBatches(ctx.db, ctx.caller.appCode, code);
      if (code !== undefined && rows.length === 0) throw notFound('batch', 'data.batchCode');
      return { batches: rows.map(record) };
    },
  });
}
