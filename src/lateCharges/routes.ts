import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Id, Money, Paging, PagingInput } from '../primitives.ts';
import { AccountRefFields } from '../ledger/common.ts';
import { getLateCharges } from './getLateCharges.ts';
import { runLateCharges } from './runLateCharges.ts';

const TAG = 'late charges';

const LateCharge = Type.Object({
  lateChargeID: Type.Integer(),
  billID: Type.Integer(),
  billNumber: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  chargeDate: Type.String({ description: 'dd/mm/yyyy, the app day of the run that made it (the ledger date)' }),
  overdue: Money,
  amount: Money,
  entryID: Type.Integer({ description: 'its ledger entry (kind adjustment, tied to the bill)' }),
  trace: Type.Object(
    {
      bill: Type.Object({ billID: Type.Integer(), billNumber: Type.Integer(), dueDate: Type.String() }),
      chargeDate: Type.String(),
      serviceVersionID: Type.Integer({ description: 'the template version whose rule was applied: the one the bill was made with' }),
      overdue: Type.String({ description: 'unpaid on the bill after settlement when the charge was made' }),
      rule: Type.Object({
        graceDays: Type.Integer(),
        flat: Type.Optional(Type.String()),
        percentage: Type.Optional(Type.String()),
        minimum: Type.Optional(Type.String()),
        maximum: Type.Optional(Type.String()),
      }),
      computation: Type.Object({
        base: Type.String({ description: 'flat, or overdue x percentage / 100, unrounded' }),
        limit: Type.Optional(Type.Enum(['minimum', 'maximum'] as const)),
        unrounded: Type.String(),
        rounding: Type.String(),
        amount: Type.String(),
      }),
    },
    { description: 'how the amount was reached' },
  ),
  reversed: Type.Union(
    [
      Type.Object({
        entryID: Type.Integer({ description: 'the ledger entry taking it back (kind adjustment, minus the charge, tied to the bill)' }),
        creditNoteID: Type.Integer(),
        creditNoteNumber: Type.Integer({ description: 'the credit note that cancelled the bill' }),
        date: Type.String({ description: 'dd/mm/yyyy, the credit note\'s date' }),
      }),
      Type.Null(),
    ],
    { description: 'null while the charge stands; reversed with its bill when a credit note cancels it (docs/late-charges.md)' },
  ),
});

export async function lateChargeRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/late-charges/run-late-charges',
    role: 'admin',
    tag: TAG,
    summary: "Run today's late charges now",
    description:
      "Queues the app's late-charge run for its today (app time zone), the job the daily schedule runs. Bills already charged are never charged again, so running it again is harmless.",
    // product.md: a create or process answers data {}; the day it is for is a header.
    headers: { 'X-Billrun-Charge-Date': 'the day the run is for, dd/mm/yyyy' },
    body: requestSchema({ method: 'Create', action: 'Run Late Charges' }, { data: Type.Optional(Type.Object({}, { additionalProperties: false })) }),
    data: Type.Object({}),
    handler: async (_body, ctx) => {
      const { chargeDate } = await runLateCharges(ctx.db, ctx.caller);
      ctx.reply.header('x-billrun-charge-date', chargeDate);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/late-charges/get-late-charges',
    role: 'viewer',
    tag: TAG,
    summary: 'Late charges made',
    description: 'The late payment charges made, newest first, of the app, one account or one bill, each with its trace.',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Late Charges' },
      { data: Type.Optional(Type.Object({ ...AccountRefFields, billID: Type.Optional(Id), ...PagingInput }, { additionalProperties: false })) },
    ),
    data: Type.Object({ lateCharges: Type.Array(LateCharge), paging: Paging }),
    handler: async (body, ctx) => getLateCharges(ctx.db, ctx.caller, body.data ?? {}),
  });
}
