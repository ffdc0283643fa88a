// Request and response shapes of the pricing-template operations. The pricing arrays'
// elements come from the rating core, which is what reads them.
import { Type, type Static } from 'typebox';
import { Component, ConnectionInput, MeteredInput, StoredComponent, TariffValue, UnmeteredInput } from '../rating/tariff.ts';
import { Code, IDENTIFIER_PATTERN, DECIMAL_PATTERN, VISIBLE_TEXT } from '../primitives.ts';
import type { BillingCycleId } from '../calendar/cycles.ts';
import { LateChargeRule } from '../rating/lateCharge.ts';
import { named } from '../http/openapi.ts';
import { SETTLEMENT_METHODS as SETTLEMENT_CORE_METHODS } from '../settlement/core.ts';

// Allowed values beyond those interface.md shows are decided in docs/templates.md:
// only what the bill run implements is accepted.
export const SERVICE_TYPES = ['Sale', 'Rental', 'Subscription'] as const;
export const CHARGING_TYPES = ['Postpaid', 'Prepaid'] as const;
export const POST_TYPES = ['Post Subscription', 'Post Account'] as const;
// The settlement core's methods (docs/payments.md#settlement).
export const SETTLEMENT_METHODS = SETTLEMENT_CORE_METHODS;
// billingCycle / billingCycleLookupID: the cycles' names by lookup id; their months are
// calendar/cycles.ts's CYCLE_MONTHS, which must name the same ids (checked here).
export const BILLING_CYCLES = Object.freeze({ 1: 'Monthly', 2: 'Bi-monthly', 3: 'Quarterly', 4: 'Half-yearly', 5: 'Yearly' } as const satisfies Record<BillingCycleId, string>);

const literals = <const T extends string[]>(values: readonly [...T]) => Type.Enum(values);

const Text = (max: number) => Type.String({ maxLength: max });
const TemplateRef = Type.Union([
  Type.Null(),
  Type.Object(
    {
      templateID: Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]),
      templateName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    },
    { additionalProperties: false },
  ),
]);

export const BankAccount = Type.Object(
  {
    bankName: Type.String({ minLength: 1, maxLength: 200 }),
    accountName: Type.Optional(Text(200)),
    accountNumber: Type.String({ minLength: 1, maxLength: 64 }),
    branch: Type.Optional(Text(200)),
    swift: Type.Optional(Text(20)),
  },
  { additionalProperties: false, description: 'Where customers pay; printed on bills' },
);

export const ServiceDefinition = Type.Object(
  {
    code: Code,
    name: Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_TEXT }),
    serviceType: literals(SERVICE_TYPES),
    chargingType: literals(CHARGING_TYPES),
    postType: literals(POST_TYPES),
    billingCycle: Type.Integer({ minimum: 1, maximum: 5, description: '1 Monthly, 2 Bi-monthly, 3 Quarterly, 4 Half-yearly, 5 Yearly' }),
    dueDateOffset: Type.Integer({ minimum: 0, maximum: 366, description: 'days from a term end to its due date' }),
    description: Type.Optional(Text(2000)),
    postBilling: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1: bills are posted to accounts as soon as a term is processed' })),
    paymentSettlementMethod: Type.Optional(literals(SETTLEMENT_METHODS)),
    cashAccountID: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
    businessUnitID: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
    securityDeposit: Type.Optional(Type.Union([Type.Null(), Type.String({ pattern: DECIMAL_PATTERN, maxLength: 30 }), Type.Number({ minimum: 0 })])),
    requiredDocs: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: IDENTIFIER_PATTERN }), {
          maxItems: 50,
          uniqueItems: true,
          description: 'the documents (by name) a subscription must have recorded before it is connected',
        }),
      ]),
    ),
    values: Type.Optional(Type.Array(TariffValue, { maxItems: 1000 })),
    components: Type.Optional(Type.Array(Component, { maxItems: 200 })),
    connectionInputs: Type.Optional(Type.Array(ConnectionInput, { maxItems: 100 })),
    meteredInputs: Type.Optional(Type.Array(MeteredInput, { maxItems: 100 })),
    unmeteredInputs: Type.Optional(Type.Array(UnmeteredInput, { maxItems: 100 })),
    bankAccounts: Type.Optional(Type.Array(BankAccount, { maxItems: 50 })),
    batches: Type.Optional(Type.Array(Code, { maxItems: 1000, description: 'batch codes this template is billed in; new ones are made' })),
    invoiceTemplate: Type.Optional(TemplateRef),
    emailTemplate: Type.Optional(TemplateRef),
    lateCharge: Type.Optional(Type.Union([Type.Null(), LateChargeRule], { description: 'late payment charge on its bills (docs/late-charges.md); null: none' })),
  },
  { additionalProperties: false },
);
export type ServiceDefinition = Static<typeof ServiceDefinition>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ServiceRecord = named('Service', Type.Object({
  serviceID: Type.Integer(),
  appCode: Type.Integer(),
  serviceCode: Type.String(),
  serviceLabel: Type.String(),
  serviceType: literals(SERVICE_TYPES),
  chargingType: literals(CHARGING_TYPES),
  billingCycleLookupID: Type.Integer(),
  dueDateOffset: Type.Integer(),
  postBilling: Type.Integer(),
  postType: literals(POST_TYPES),
  paymentSettlementMethod: literals(SETTLEMENT_METHODS),
  cashAccountID: Type.Integer(),
  businessUnitID: Type.Integer(),
  securityDeposit: Nullable(Type.String()),
  description: Type.String(),
  requiredDocs: Nullable(Type.Array(Type.String())),
  templateID: Type.Integer(),
  templateName: Type.String(),
  emailTemplateID: Nullable(Type.Integer()),
  emailTemplateName: Nullable(Type.String()),
  archiveStatus: Type.Integer(),
  ts: Type.Integer({ description: 'last modification, Unix seconds' }),
  createdAt: Type.String({ description: 'YYYY-MM-DD HH:MM:SS in the app time zone' }),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
  version: Type.Integer({ description: 'the current version; terms keep the version they were made with' }),
  batches: Type.Array(Type.String()),
  values: Type.Array(TariffValue),
  components: Type.Array(StoredComponent),
  connectionInputs: Type.Array(ConnectionInput),
  meteredInputs: Type.Array(MeteredInput),
  unmeteredInputs: Type.Array(UnmeteredInput),
  bankAccounts: Type.Array(BankAccount),
  lateCharge: Nullable(LateChargeRule),
}));
export type ServiceRecord = Static<typeof ServiceRecord>;

/** What a version holds: the list record's definition fields, without the template's identity and audit. */
export const VersionDefinition = Type.Omit(ServiceRecord, ['serviceID', 'appCode', 'archiveStatus', 'ts', 'createdAt', 'createdBy', 'modifiedAt', 'modifiedBy', 'version']);
export const ServiceVersion = named('ServiceVersion', Type.Object({
  version: Type.Integer(),
  createdAt: Type.String({ description: 'YYYY-MM-DD HH:MM:SS in the app time zone' }),
  createdBy: Type.String(),
  effectiveFrom: Type.Union([Type.String(), Type.Null()], {
    description: "dd/mm/yyyy: the first day the version's prices are in force; null: from the beginning (docs/templates.md, Effective dates)",
  }),
  effectiveFromGiven: Type.Boolean({ description: 'true when update-service gave effectiveFrom; false when it was taken from the version in force the day it was saved' }),
  definition: VersionDefinition,
}));
export type ServiceVersion = Static<typeof ServiceVersion>;
