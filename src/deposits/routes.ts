import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { AccountRefFields } from '../ledger/common.ts';
import { Money, Paging, PagingInput, Id } from '../primitives.ts';
import { dateText } from '../calendar/calendar.ts';
import { named } from '../http/openapi.ts';
import { getDeposits, payDepositRefunds } from './reads.ts';
import { releaseHeldDeposits } from './releaseHeldDeposits.ts';

const TAG = 'deposits';
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Deposit = named('Deposit', Type.Object({
  depositID: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  subscriptionID: Type.Integer({ description: 'the subscription holding it now (a move carries it to the new subscription)' }),
  chargedSubscriptionID: Type.Integer({ description: 'the subscription it was charged for' }),
  status: Type.Enum(['Held', 'Released'] as const),
  amount: Money,
  chargedOn: Type.String({ description: 'dd/mm/yyyy, the date of its deposit entry' }),
  chargeEntryID: Type.Integer(),
  held: Type.String({ description: 'Held: what payments have paid of it; Released: what it held when released (applied + refunded)' }),
  due: Type.String({ description: 'Held: what is still owed of it; Released: 0' }),
  endedOn: Nullable(Type.String({ description: "dd/mm/yyyy: the end date of the terminated subscription holding it, while it waits for the posting of that period's bill (its final bill), which releases it" })),
  releasedOn: Nullable(Type.String()),
  unpaid: Nullable(Type.String({ description: 'the unpaid part cancelled on release' })),
  applied: Nullable(Type.String({ description: "applied to the subscription's open bills on release" })),
  refunded: Nullable(Type.String({ description: 'the rest, refunded (a deposit_refund entry)' })),
  refundEntryID: Nullable(Type.Integer()),
  refundPaidOn: Nullable(Type.String()),
  refundPaidReference: Nullable(Type.String()),
  refundPaidBy: Nullable(Type.String()),
}));

export async function depositRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/deposits/get-deposits',
    role: 'viewer',
    tag: TAG,
    summary: 'Security deposits',
    description:
      'Security deposits charged for subscriptions, newest first: held (paid and due) or released (unpaid, applied, refunded). refundDue: true lists the refunds not yet paid out, oldest first, for a payment run.',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Deposits' },
      {
        data: Type.Optional(
          Type.Object(
            {
              ...AccountRefFields,
              subscriptionID: Type.Optional(Id),
              status: Type.Optional(Type.Enum(['Held', 'Released'] as const)),
              refundDue: Type.Optional(Type.Boolean({ description: 'true: refunds not yet paid out; false: the others' })),
              ...PagingInput,
            },
            { additionalProperties: false },
          ),
        ),
      },
    ),
    data: Type.Object({ deposits: Type.Array(Deposit), paging: Paging }),
    handler: async (body, ctx) => getDeposits(ctx.db, ctx.caller, body.data ?? {}),
  });

  operation(app, services, {
    path: '/billing/deposits/release-deposits',
    role: 'biller',
    tag: TAG,
    summary: 'Release the deposits of a terminated subscription',
    description:
      "A terminated subscription's deposits are released by the posting of its final bill (the term of its template and batch holding its end date). When that bill will never come (no more terms for the template and batch), this releases them now: each one's unpaid part cancelled, what was held applied to the subscription's open bills, oldest due first, and the rest refunded. A live subscription, or one holding no deposit, is INVALID_STATE.",
    idempotent: true,
    body: requestSchema(
      { method: 'Update', action: 'Release Deposits' },
      { data: Type.Object({ subscriptionID: Id }, { additionalProperties: false }) },
    ),
    data: Type.Object({ released: Type.Integer({ description: 'deposits released' }), unpaid: Money, applied: Money, refunded: Money }),
    handler: async (body, ctx) => releaseHeldDeposits(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/deposits/pay-refunds',
    role: 'biller',
    tag: TAG,
    summary: 'Record refunds paid out',
    description:
      'A payment run paid these deposit refunds out: records the date and transfer reference on each, all or nothing. A deposit without a refund is VALIDATION_FAILED, one paid out already CONFLICT. The ledger is unchanged: the refund entry was written on termination.',
    idempotent: true,
    body: requestSchema(
      { method: 'Update', action: 'Pay Deposit Refunds' },
      {
        data: Type.Object(
          {
            depositIDs: Type.Array(Id, { minItems: 1, maxItems: 10000 }),
            reference: Type.String({ minLength: 1, maxLength: 200, description: 'the transfer or payment run reference' }),
            paidDate: Type.Optional(dateText('the day paid out; today (app time zone) when omitted')),
          },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({ recorded: Type.Integer() }),
    handler: async (body, ctx) => ({ recorded: await payDepositRefunds(ctx.db, ctx.caller, body.data) }),
  });
}
