import { Type, type Static } from 'typebox';
import { ACCOUNT_NUMBER, Id, IdOf, Money } from '../primitives.ts';
import { named } from '../http/openapi.ts';
import { Category } from '../rating/fields.ts';
import './traceSchema.ts';


/** What a bill may be: drafted by a run, posted with its term, withdrawn by a reversal. */
export const BILL_STATUSES = ['draft', 'posted', 'withdrawn', 'cancelled'] as const;

// A bill's five amounts; a term's totals and a dry run's are the same five, summed.
const AMOUNTS = { charges: Money, tax: Money, total: Money, balanceBroughtForward: Money, totalDue: Money };

export const Totals = named('Totals', Type.Object(AMOUNTS));
export type Totals = Static<typeof Totals>;

export const GetBillsData = Type.Object(
  {
    termID: Type.Optional(Id),
    accountID: Type.Optional(Id),
    accountNumber: Type.Optional(Type.String({ ...ACCOUNT_NUMBER, minLength: 1, description: "the account's own number, as get-account and payments take it" })),
    billID: Type.Optional(Id),
    billNumber: Type.Optional(Id),
    subscriptionID: Type.Optional(IdOf("the subscription's bills: its own (Post Subscription) and its account's bills that group it (Post Account)")),
    status: Type.Optional(Type.Enum(BILL_STATUSES)),
    afterBillID: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991, description: 'paging: bills with a larger billID' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 100' })),
  },
  { additionalProperties: false, description: 'at least one of termID, accountID, accountNumber, billID, billNumber, subscriptionID' },
);
export type GetBillsData = Static<typeof GetBillsData>;


/** A line's days (bills/explain.ts, lineDays), in the preview's lines and the bills' alike. */
const LINE_DAYS = {
  prorated: Type.Optional(Type.String({ description: 'a line prorated by days: how many it is for, as the bill prints it beside the name ("17 of 31 days"); its quantity and rate are the whole period\'s' })),
  version: Type.Optional(Type.Integer({ description: 'when the bill is rated in segments (the term spans a version change, or the unmetered inputs change inside it): the template version the line was rated by' })),
  segment: Type.Optional(Type.String({ description: 'when the bill is rated in segments (a version change, or unmetered inputs changed inside it): the dates of the line\'s segment, "dd/mm/yyyy to dd/mm/yyyy"' })),
  days: Type.Optional(Type.Integer({ description: 'a rate per unit per day (perUnitPerDay): the days billed, so quantity x rate x days is the amount' })),
};

export const BillLine = named('BillLine', Type.Object({
  subscriptionID: Type.Optional(Type.Integer({ description: 'a Post Account bill: the subscription the line is of' })),
  componentCode: Type.String(),
  name: Type.String(),
  category: Category,
  quantity: Type.String(),
  unit: Type.Optional(Type.String()),
  rate: Type.Optional(Type.String()),
  amount: Money,
  ...LINE_DAYS,
  explanation: Type.String({ description: 'the trace in words' }),
  // Sent as the rating core wrote it; documented by ./traceSchema.ts (typed by charge model).
  trace: Type.Unknown({ title: 'LineTrace', description: 'how the amount was reached: readings, tiers with their quantities and rates, proration, limits, rounding' }),
}));

/** A Post Account bill's part for one subscription (docs/bill-run.md, "Post Account"). */
const GROUP = {
  subscriptionID: Type.Integer(),
  periodStart: Type.String({ description: 'dd/mm/yyyy' }),
  periodEnd: Type.String({ description: 'dd/mm/yyyy' }),
  charges: Money,
  tax: Money,
  total: Type.String({ description: "the subscription's subtotal, charges + tax (exact decimal text)" }),
  estimated: Type.Boolean(),
  lineCount: Type.Integer({ description: "how many of the bill's lines, in order after the groups before it, are this subscription's" }),
};
const GROUPS_DESCRIPTION = "a Post Account bill (one per account): its subscriptions in id order, each with its subtotal; the bill's lines are theirs, group after group";

export const BillRecord = named('Bill', Type.Object({
  billID: Type.Integer(),
  billNumber: Type.Integer(),
  termID: Type.Integer(),
  subscriptionID: Type.Union([Type.Integer(), Type.Null()], { description: 'null on a Post Account bill: its subscriptions are in subscriptions' }),
  postType: Type.Optional(Type.Literal('Post Account', { description: 'present on a Post Account bill only' })),
  subscriptions: Type.Optional(
    Type.Array(
      named('BillSubscription', Type.Object({
        ...GROUP,
        connectionInputs: Type.Record(Type.String(), Type.Unknown(), { description: "the subscription's connection inputs (its meter number ...)" }),
      })),
      { description: GROUPS_DESCRIPTION },
    ),
  ),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  accountName: Type.String({ description: "the account's name now (the customer's; a bill's document keeps the name it was sent with)" }),
  billDate: Type.String({ description: 'dd/mm/yyyy' }),
  dueDate: Type.String(),
  periodStart: Type.String(),
  periodEnd: Type.String(),
  ...AMOUNTS,
  estimated: Type.Boolean(),
  status: Type.Enum(BILL_STATUSES),
  postedAt: Type.Union([Type.String(), Type.Null()]),
  lines: Type.Array(BillLine),
  correctsBillID: Type.Union([Type.Integer(), Type.Null()], { description: 'a rebill: the cancelled bill it replaces' }),
  creditNote: Type.Union(
    [
      Type.Object({
        creditNoteID: Type.Integer(),
        creditNoteNumber: Type.Integer(),
        creditDate: Type.String(),
        amount: Money,
        reason: Type.String(),
        rebillID: Type.Union([Type.Integer(), Type.Null()], { description: 'the bill made in its place' }),
      }),
      Type.Null(),
    ],
    { description: 'a cancelled bill: the credit note that cancelled it (get-credit-notes)' },
  ),
}));
export type BillRecord = Static<typeof BillRecord>;

/** A bill the dry run would write (validate-term's preview). */
export const PreviewBill = named('PreviewBill', Type.Object({
  subscriptionID: Type.Union([Type.Integer(), Type.Null()], { description: 'null on a Post Account bill: its subscriptions are in subscriptions' }),
  accountID: Type.Integer(),
  accountNumber: Type.Optional(Type.String({ description: "the account's number, as the officer knows it" })),
  ...AMOUNTS,
  estimated: Type.Boolean(),
  lines: Type.Array(
    Type.Object({
      subscriptionID: Type.Optional(Type.Integer({ description: 'a Post Account bill: the subscription the line is of' })),
      componentCode: Type.String(),
      name: Type.String({ description: "the component's name, as the bill prints it" }),
      quantity: Type.String(),
      rate: Type.Optional(Type.String()),
      amount: Money,
      ...LINE_DAYS,
    }),
  ),
  segments: Type.Optional(
    Type.Array(
      Type.Object({
        version: Type.Integer(),
        startDate: Type.String({ description: 'dd/mm/yyyy' }),
        endDate: Type.String({ description: 'dd/mm/yyyy' }),
        days: Type.Integer({ description: 'days billed in the segment (suspended days not counted)' }),
      }),
      { description: 'when the term spans a template version change, or the unmetered inputs change inside the bill (update-subscription\'s date): the bill\'s segments, one per version in force and value of the inputs' },
    ),
  ),
  subscriptions: Type.Optional(Type.Array(named('PreviewBillSubscription', Type.Object(GROUP)), { description: GROUPS_DESCRIPTION })),
}));
export type PreviewBill = Static<typeof PreviewBill>;
