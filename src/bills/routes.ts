import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { BillRecord, GetBillsData } from './schemas.ts';
import { getBills } from './getBills.ts';

export async function billRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/bills/get-bills',
    role: 'viewer',
    tag: 'bills',
    summary: 'List bills',
    description:
      'Bills by term, account, bill id or number (at least one), in billID order, 100 at a time (afterBillID pages). Each line carries its trace and an explanation in words.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Bills' }, { data: GetBillsData }),
    data: Type.Object({ bills: Type.Array(BillRecord) }),
    handler: async (body, ctx) => ({ bills: await getBills(ctx.db, ctx.caller.appCode, body.data) }),
  });
}
