import { Type, type Static } from 'typebox';
import { Id, Money, NOT_BLANK } from '../primitives.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Reason = Type.String({ minLength: 1, maxLength: 500, pattern: NOT_BLANK, description: 'why, printed on the credit note' });
const Rebill = Type.Optional(Type.Boolean({ description: 'bill again with the data as it is now (default true); false: only cancel' }));

export const CancelBillData = Type.Object(
  {
    billID: Id,
    reason: Reason,
    rebill: Rebill,
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          'work the correction out and write nothing: the answer says what the credit note and the rebill would be; its ids and numbers are those they would have taken, and none exists (default false)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const CancelTermData = Type.Object({ termID: Id, reason: Reason, rebill: Rebill }, { additionalProperties: false });
export const EstimatedBillsData = Type.Object({ subscriptionID: Id }, { additionalProperties: false });
export const RebillEstimatesData = Type.Object({ subscriptionID: Id, reason: Reason }, { additionalProperties: false });

export const GetCreditNotesData = Type.Object(
  {
    creditNoteID: Type.Optional(Id),
    creditNoteNumber: Type.Optional(Id),
    billID: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991, description: 'the cancelled bill or its rebill' })),
    accountID: Type.Optional(Id),
    termID: Type.Optional(Id),
    afterCreditNoteID: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991, description: 'paging: credit notes with a larger id' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 100' })),
  },
  { additionalProperties: false },
);
export type GetCreditNotesData = Static<typeof GetCreditNotesData>;

export const Correction = Type.Object({
  cancelled: Type.Integer({ description: 'bills cancelled, one credit note each' }),
  rebilled: Type.Integer({ description: 'new bills posted in their place' }),
  credited: Money,
  rebilledAmount: Money,
  change: Type.String({ description: 'rebilledAmount - credited: what the accounts owe more (< 0: less)' }),
  lateChargesReversed: Type.String({
    description: "the cancelled bills' late payment charges, reversed with them (taken off the accounts besides `change`; a rebill is charged afresh when it is late)",
  }),
  creditNotes: Type.Array(
    Type.Object({
      creditNoteID: Type.Integer(),
      creditNoteNumber: Type.Integer(),
      billID: Type.Integer(),
      billNumber: Type.Integer(),
      rebillID: Nullable(Type.Integer()),
      rebillNumber: Nullable(Type.Integer()),
      accountID: Type.Integer(),
      amount: Money,
      rebillAmount: Nullable(Money),
      lateChargeReversed: Nullable(Money),
    }),
    { description: 'the first 100' },
  ),
});

export const CreditNoteRecord = Type.Object({
  creditNoteID: Type.Integer(),
  creditNoteNumber: Type.Integer({ description: "gapless within the app, a sequence of its own (not the bills')" }),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  termID: Type.Integer(),
  billID: Type.Integer({ description: 'the bill it cancels' }),
  billNumber: Type.Integer(),
  rebillID: Nullable(Type.Integer({ description: 'the bill made in its place' })),
  rebillNumber: Nullable(Type.Integer()),
  creditDate: Type.String({ description: 'dd/mm/yyyy, its ledger date' }),
  charges: Money,
  tax: Money,
  amount: Money,
  reason: Type.String(),
  origin: Type.String({ description: 'cancel-bill, cancel-and-rebill or estimates' }),
  entryID: Type.Integer({ description: 'its ledger entry (kind bill_reversal)' }),
  createdAt: Type.String(),
  createdBy: Type.String(),
});

const ReadingPoint = { readingID: Type.Integer(), readingDate: Type.String(), value: Type.String() };

export const EstimatedBills = Type.Object({
  subscriptionID: Type.Integer(),
  meters: Type.Array(
    Type.Object({
      inputCode: Type.String(),
      lastActual: Type.Object(ReadingPoint),
      previousActual: Nullable(Type.Object(ReadingPoint)),
      estimates: Type.Array(Type.Object({ ...ReadingPoint, spreadValue: Nullable(Type.String({ description: 'what rebill-estimates records in its place' })) })),
      problem: Nullable(Type.String({ description: 'why the estimates cannot be spread' })),
    }),
  ),
  bills: Type.Array(
    Type.Object({ billID: Type.Integer(), billNumber: Type.Integer(), termID: Type.Integer(), periodStart: Type.String(), periodEnd: Type.String(), total: Money }),
  ),
});
