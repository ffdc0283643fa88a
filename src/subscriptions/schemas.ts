import { Type, type Static } from 'typebox';
import { AccountNumber, Code, IDENTIFIER_PATTERN, NO_NUL } from '../primitives.ts';
import { RecordDateText } from '../calendar/calendar.ts';
import { named } from '../http/openapi.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const InputValue = Type.Union([Type.String({ maxLength: 500, pattern: NO_NUL }), Type.Number(), Type.Boolean(), Type.Null()]);
export const Inputs = (description: string) => Type.Record(Type.String({ maxLength: 64 }), InputValue, { description, maxProperties: 100 });
export const Reason = Type.String({ minLength: 1, maxLength: 500, pattern: NO_NUL });

export const SubscriptionDocument = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: IDENTIFIER_PATTERN, description: "as the pricing template's requiredDocs names it" }),
    reference: Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL, description: 'its number or reference' }),
    date: RecordDateText,
  },
  { additionalProperties: false },
);
export const Documents = (description: string) => Type.Array(SubscriptionDocument, { maxItems: 50, description });

export const SubscriptionInput = Type.Object(
  {
    accountNumber: AccountNumber,
    serviceCode: Code,
    batchCode: Code,
    startDate: RecordDateText,
    endDate: Type.Optional(Nullable(RecordDateText)),
    connectionInputs: Type.Optional(Inputs('by the template\'s connectionInputs codes')),
    unmeteredInputs: Type.Optional(Inputs('by the template\'s unmeteredInputs codes; a missing one takes the template\'s default')),
    openingReadings: Type.Optional(Inputs('opening meter readings by the template\'s meteredInputs codes')),
    readingDate: Type.Optional(RecordDateText),
    documents: Type.Optional(Documents("recorded on the subscription; every one the template's requiredDocs lists must be given")),
  },
  { additionalProperties: false },
);

export const SubscriptionStatus = Type.Enum(['active', 'suspended', 'terminated']);

export const SubscriptionEvent = named('SubscriptionEvent', Type.Object({
  kind: Type.Enum(['suspended', 'resumed', 'terminated', 'moved_out', 'moved_in', 'inputs_changed', 'documents_recorded']),
  date: Type.String({ description: 'dd/mm/yyyy it takes effect' }),
  detail: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String(),
  createdBy: Type.String(),
}));

export const SubscriptionRecord = named('Subscription', Type.Object({
  subscriptionID: Type.Integer(),
  appCode: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  serviceID: Type.Integer(),
  serviceCode: Type.String(),
  batchID: Type.Integer(),
  batchCode: Type.String(),
  connectionInputs: Type.Record(Type.String(), Type.Unknown()),
  unmeteredInputs: Type.Record(Type.String(), Type.Unknown()),
  startDate: Type.String(),
  endDate: Nullable(Type.String()),
  status: SubscriptionStatus,
  documents: Type.Array(
    Type.Object({ name: Type.String(), reference: Type.String(), date: Type.String({ description: 'dd/mm/yyyy' }), recordedAt: Type.String(), recordedBy: Type.String() }),
    { description: 'the documents recorded on it, by name' },
  ),
  movedFromSubscriptionID: Nullable(Type.Integer()),
  movedToSubscriptionID: Nullable(Type.Integer()),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
  events: Type.Optional(Type.Array(SubscriptionEvent, { description: 'the history, when one subscription is asked for by subscriptionID' })),
}));
export type SubscriptionRecord = Static<typeof SubscriptionRecord>;
