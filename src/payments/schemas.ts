// Request and response shapes of the payment operations.
import { Type, type Static } from 'typebox';
import { AccountRefFields, AmountText } from '../ledger/common.ts';
import { AccountNumber, IDENTIFIER_PATTERN, Id } from '../primitives.ts';
import { dateText } from '../calendar/calendar.ts';
import { named } from '../http/openapi.ts';

export const Reference = Type.String({ minLength: 1, maxLength: 100, pattern: IDENTIFIER_PATTERN, description: 'unique within the app: a payment recorded twice is refused' });
export const Channel = Type.String({ minLength: 1, maxLength: 50, description: 'how it was paid: bank, cash, cheque, card, mobile ...' });

export const PaymentInput = Type.Object(
  {
    ...AccountRefFields,
    amount: AmountText,
    paymentDate: Type.Optional(dateText('the day the money was received; today (app time zone) when omitted')),
    reference: Reference,
    channel: Channel,
    cashAccountID: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: "the cash (bank) account it was paid into; when omitted, the cash account of the template of the account's oldest open bill (else of its subscription's template; else 0)" })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type PaymentInput = Static<typeof PaymentInput>;

// A statement row as it comes: the import checks every field itself so that it can
// name each bad row, so the schema only bounds the shape.
export const ImportRow = Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Null()]));

export const ImportInput = Type.Object(
  {
    fileName: Type.Optional(Type.String({ maxLength: 255 })),
    csv: Type.Optional(Type.String({ minLength: 1, description: 'the statement as CSV text with a header row (see docs/payments.md)' })),
    payments: Type.Optional(Type.Array(ImportRow, { minItems: 1, maxItems: 200000, description: 'the statement as JSON rows, instead of csv' })),
    skipRecorded: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'true: a row whose reference is recorded already with the same account, amount and date is skipped instead of refusing the file',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportInput = Static<typeof ImportInput>;

export const ReverseInput = Type.Object(
  {
    paymentID: Type.Optional(Id),
    reference: Type.Optional(Reference),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'why: a bounced cheque, a chargeback ...' }),
    reversalDate: Type.Optional(dateText('the ledger date of the reversal; today (app time zone) when omitted')),
  },
  { additionalProperties: false },
);

export const PaymentStatus = ['Posted', 'Reversed'] as const;

export const PaymentFilters = Type.Object(
  {
    paymentID: Type.Optional(Id),
    reference: Type.Optional(Type.String({ maxLength: 100 })),
    accountNumber: Type.Optional(AccountNumber),
    accountID: Type.Optional(Id),
    importID: Type.Optional(Id),
    fromDate: Type.Optional(dateText('payments on or after')),
    toDate: Type.Optional(dateText('payments on or before')),
    status: Type.Optional(Type.Enum(PaymentStatus)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const AllocationRecord = named('Allocation', Type.Object({
  billID: Nullable(Type.Integer()),
  billNumber: Nullable(Type.Integer()),
  kind: Type.String({ description: 'what was paid: bill, adjustment (a debit note), payment_reversal (the pairing of a reversal)' }),
  lineNo: Nullable(Type.Integer({ description: "the bill line paid (its place in the bill's lines, from 1); null: the item as a whole" })),
  componentCode: Nullable(Type.String()),
  amount: Type.String(),
  method: Type.String({ description: 'the rule that placed it: the settlement method (Chronology, Category Priority, Proportional), Bill (a credit tied to its bill) or Reversal' }),
  settlementMethod: Type.String({ description: "the account's settlement method in force when it was made: Chronology, Category Priority or Proportional" }),
  allocatedAt: Type.String(),
  releasedAt: Nullable(Type.String({ description: 'set when a reversal took this settlement back' })),
  releaseReason: Nullable(Type.String()),
}));

export const PaymentRecord = named('Payment', Type.Object({
  paymentID: Type.Integer(),
  appCode: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  reference: Type.String(),
  amount: Type.String(),
  paymentDate: Type.String({ description: 'dd/mm/yyyy' }),
  channel: Type.String(),
  cashAccountID: Type.Integer(),
  description: Type.String(),
  status: Type.Enum(PaymentStatus),
  applied: Type.String({ description: 'what live settlements took of it' }),
  unapplied: Type.String({ description: 'credit still waiting for a bill' }),
  importID: Nullable(Type.Integer()),
  importRow: Nullable(Type.Integer()),
  reversal: Nullable(
    Type.Object({ reason: Type.String(), reversalDate: Type.String(), reversedAt: Type.String(), reversedBy: Type.String() }),
  ),
  allocations: Type.Array(AllocationRecord),
  createdAt: Type.String(),
  createdBy: Type.String(),
}));
export type PaymentRecord = Static<typeof PaymentRecord>;
