import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { AccountRefFields, AmountText } from './common.ts';
import { Money, Paging, PagingInput, Id, IdOf } from '../primitives.ts';
import { dateText } from '../calendar/calendar.ts';
import { makeAdjustment } from './makeAdjustment.ts';
import { getAgeing, getOpenBills, getStatement } from './reads.ts';
import { checkLedger } from './checkLedger.ts';
import { named } from '../http/openapi.ts';

const Empty = Type.Object({});
const TAG = 'ledger';
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const AdjustmentInput = Type.Object(
  {
    ...AccountRefFields,
    kind: Type.Enum(['credit', 'debit'] as const, { description: 'credit: a credit note, lowers what the customer owes; debit: a debit note, raises it' }),
    amount: AmountText,
    reason: Type.String({ minLength: 1, maxLength: 500 }),
    adjustmentDate: Type.Optional(dateText('the ledger date; today (app time zone) when omitted')),
    billID: Type.Optional(IdOf('the posted bill of this account it is about; a credit note pays it first')),
  },
  { additionalProperties: false },
);

const StatementEntry = named('StatementEntry', Type.Object({
  entryID: Type.Integer(),
  date: Type.String(),
  kind: Type.Enum(['bill', 'bill_reversal', 'payment', 'payment_reversal', 'adjustment', 'opening_balance', 'deposit', 'deposit_release', 'deposit_refund']),
  description: Type.String(),
  amount: Type.String({ description: '> 0 raises what is owed; a payment is negative' }),
  balance: Type.String({ description: 'the running balance after this entry' }),
  billID: Nullable(Type.Integer()),
  billNumber: Nullable(Type.Integer()),
  paymentID: Nullable(Type.Integer()),
  reference: Nullable(Type.String()),
  reversesEntryID: Nullable(Type.Integer()),
  creditNoteID: Nullable(Type.Integer({ description: "the credit note that made the entry: a bill_reversal's, or the one whose bill took its late charge with it (an adjustment)" })),
  creditNoteNumber: Nullable(Type.Integer({ description: 'its gapless number (get-credit-notes, get-credit-note-document)' })),
  createdBy: Type.String(),
}));

const Statement = Type.Object({
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  name: Type.String(),
  fromDate: Nullable(Type.String()),
  toDate: Type.String(),
  openingBalance: Money,
  debits: Money,
  credits: Money,
  closingBalance: Money,
  balance: Type.String({ description: 'the balance now, whatever the dates' }),
  heldDeposit: Type.String({ description: 'security deposits paid and held now (not yet released), apart from the balance: not credit' }),
  entries: Type.Array(StatementEntry),
});

const OpenBill = named('OpenBill', Type.Object({
  billID: Type.Integer(),
  billNumber: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  billDate: Type.String(),
  dueDate: Type.String(),
  daysOverdue: Type.Integer(),
  total: Money,
  paid: Money,
  due: Money,
  settledBy: Type.Enum(['line', 'bill'] as const, { description: 'line: payments are split across the lines in order; bill: the bill as one item' }),
  lines: Type.Array(
    Type.Object({ lineNo: Type.Integer(), componentCode: Nullable(Type.String()), name: Nullable(Type.String()), amount: Money, due: Nullable(Money) }),
  ),
}));

const OtherItem = Type.Object({ entryID: Type.Integer(), kind: Type.String(), date: Type.String(), description: Type.String(), open: Type.String({ description: '> 0 owed, < 0 credit waiting for a bill' }) });

const Buckets = {
  current: Money,
  days30: Money,
  days60: Money,
  days90: Money,
  over90: Money,
  credit: Type.String({ description: 'credit waiting for bills' }),
  balance: Type.String({ description: 'the buckets less the credit' }),
};

const Problem = Type.Object({ accountID: Type.Integer(), entryID: Nullable(Type.Integer()), problem: Type.String(), expected: Type.String(), actual: Type.String() });

export async function ledgerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/ledger/make-adjustment',
    headers: { 'X-Billrun-Adjustment-Id': 'the new adjustment id' },
    role: 'biller',
    tag: TAG,
    summary: 'Record a credit or debit note',
    description: 'A credit note or debit note on an account with its reason, optionally about one posted bill. The new adjustment id is in the X-Billrun-Adjustment-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Adjustment' }, { data: AdjustmentInput }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await makeAdjustment(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-adjustment-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/ledger/get-statement',
    role: 'viewer',
    tag: TAG,
    summary: 'Account statement',
    description: 'The entries of an account between fromDate (from the first entry when omitted) and toDate (today when omitted), with the opening, running and closing balance.',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Statement' },
      { data: Type.Object({ ...AccountRefFields, fromDate: Type.Optional(dateText('first day')), toDate: Type.Optional(dateText('last day')) }, { additionalProperties: false }) },
    ),
    data: Type.Object({ statement: Statement }),
    handler: async (body, ctx) => getStatement(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/ledger/get-open-bills',
    role: 'viewer',
    tag: TAG,
    summary: 'Open bills',
    description:
      'Posted bills not yet paid in full, oldest due first, with what is due on each line; of one account, of one bill (billID: none when it is paid, or not posted), of up to 100 bills (billIDs: those of them still open, as a list of bills marks each paid or not), or of the app. For one account, its other open items too.',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Open Bills' },
      {
        data: Type.Optional(
          Type.Object(
            {
              ...AccountRefFields,
              billID: Type.Optional(Id),
              billIDs: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, description: 'of these bills only (a page of a bills list): a posted bill absent from the answer is paid' })),
              ...PagingInput,
            },
            { additionalProperties: false },
          ),
        ),
      },
    ),
    data: Type.Object({ bills: Type.Array(OpenBill), otherItems: Type.Array(OtherItem), paging: Paging }),
    handler: async (body, ctx) => getOpenBills(ctx.db, ctx.caller, body.data ?? {}),
  });

  operation(app, services, {
    path: '/billing/ledger/get-ageing',
    role: 'viewer',
    tag: TAG,
    summary: 'Ageing of what is owed',
    description: 'What is open now, by days past due on asOf (today when omitted): current (not yet due), 1-30, 31-60, 61-90, over 90; totals and the accounts that owe most first.',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Ageing' },
      { data: Type.Optional(Type.Object({ ...AccountRefFields, asOf: Type.Optional(dateText('the day ages are counted to')), ...PagingInput }, { additionalProperties: false })) },
    ),
    data: Type.Object({
      ageing: Type.Object({ asOf: Type.String(), accountCount: Type.Integer({ description: 'accounts with anything open' }), ...Buckets }),
      accounts: Type.Array(Type.Object({ accountID: Type.Integer(), accountNumber: Type.String(), name: Type.String(), ...Buckets })),
      paging: Paging,
    }),
    handler: async (body, ctx) => getAgeing(ctx.db, ctx.caller, body.data ?? {}),
  });

  operation(app, services, {
    path: '/billing/ledger/check-ledger',
    role: 'viewer',
    tag: TAG,
    summary: 'Prove the ledger',
    description:
      'For every account of the app (or one): balance = sum of its entries = sum of its open items; every open item = its entry less its live settlements; no bill line settled past its amount. ok is false with the first 100 problems listed otherwise.',
    body: requestSchema({ method: 'Retrieve', action: 'Check Ledger' }, { data: Type.Optional(Type.Object({ ...AccountRefFields }, { additionalProperties: false })) }),
    data: Type.Object({
      check: Type.Object({ ok: Type.Boolean(), accounts: Type.Integer(), entries: Type.Integer(), problems: Type.Array(Problem) }),
    }),
    handler: async (body, ctx) => checkLedger(ctx.db, ctx.caller, body.data ?? {}),
  });
}
