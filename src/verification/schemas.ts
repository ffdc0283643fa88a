import { Type, type Static } from 'typebox';
import { Id, Money, Paging, PagingInput } from '../primitives.ts';

export const VerifyBillData = Type.Object(
  {
    billID: Type.Optional(Id),
    billNumber: Type.Optional(Id),
  },
  { additionalProperties: false, description: 'billID or billNumber (one of them)' },
);
export type VerifyBillData = Static<typeof VerifyBillData>;

const Amounts = Type.Object({ charges: Money, tax: Money, total: Money, balanceBroughtForward: Money, totalDue: Money });

export const Difference = Type.Object({
  componentCode: Type.Union([Type.String(), Type.Null()], { description: "the line's component; null for a bill total" }),
  field: Type.String({ description: "'amount' or 'quantity' of a line; 'charges', 'tax', 'total', 'balanceBroughtForward' or 'totalDue' of the bill" }),
  stored: Type.Union([Type.String(), Type.Null()], { description: 'as stored on the bill; null when the stored bill has no such line' }),
  rerated: Type.Union([Type.String(), Type.Null()], { description: 'rated again; null when the rating gives no such line' }),
  difference: Type.Union([Type.String(), Type.Null()], { description: 'stored minus rerated' }),
});

export const Problem = Type.Object({ code: Type.String(), path: Type.String(), message: Type.String() });

export const BillVerification = Type.Object({
  billID: Type.Integer(),
  billNumber: Type.Integer(),
  termID: Type.Integer(),
  subscriptionID: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a Post Account bill' }),
  accountID: Type.Integer(),
  basis: Type.Enum(['recorded', 'trace'], {
    description: "'recorded': rated again from the inputs recorded with the bill; 'trace': a bill made before they were recorded, from its own lines' trace",
  }),
  matches: Type.Boolean({ description: 'every line and total equal to the last decimal, and no problem' }),
  stored: Amounts,
  rerated: Type.Union([Amounts, Type.Null()]),
  differences: Type.Array(Difference),
  problems: Type.Array(Problem),
});

export const VerificationRecord = Type.Object({
  status: Type.Enum(['none', 'running', 'verified', 'mismatched', 'outdated'], {
    description: "'none': never verified; 'verified': every bill matched; 'outdated': the term was run again since (retry, reverse)",
  }),
  verifiedAt: Type.Union([Type.String(), Type.Null()], { description: 'when the last chunk finished (app time zone)' }),
  requestedAt: Type.Union([Type.String(), Type.Null()]),
  requestedBy: Type.Union([Type.String(), Type.Null()]),
  bills: Type.Integer({ description: 'bills verified so far' }),
  mismatches: Type.Integer(),
  progress: Type.Object({ chunksTotal: Type.Integer(), chunksDone: Type.Integer(), percent: Type.Integer() }),
});
export type VerificationRecord = Static<typeof VerificationRecord>;

export const TermVerificationData = Type.Object({ termID: Id, ...PagingInput }, { additionalProperties: false });

export const MismatchRecord = Type.Object({
  billID: Type.Integer(),
  billNumber: Type.Integer(),
  subscriptionID: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a Post Account bill' }),
  accountID: Type.Integer(),
  basis: Type.String(),
  differences: Type.Array(Difference),
  problems: Type.Array(Problem),
});

export const TermVerificationAnswer = Type.Object({
  verification: VerificationRecord,
  mismatches: Type.Array(MismatchRecord, { description: 'by billID' }),
  paging: Paging,
});
