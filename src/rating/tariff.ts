import { Type, type Static } from 'typebox';

/**
 * The element shapes of a pricing template's arrays (values, meteredInputs,
 * unmeteredInputs, connectionInputs, components). These schemas validate
 * make-service input and feed the OpenAPI document; checkTariff() then checks
 * what a schema cannot (unique codes, references, tier order, cycles).
 *
 * Numbers: every decimal may be written as a JSON string of plain decimal
 * text ("12.50", "-3", "0.1") or as a JSON number (12.5). Strings are
 * preferred: they reach the engine exactly as written. A JSON number is read
 * through its shortest round-trip text, so 0.1 is exactly 0.1.
 * A price parameter (amount, rate, tier rate/flat, percentage, price,
 * minimum, maximum) may instead refer to a `values` entry: { "value": "VAT" }.
 */

const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

export const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: CODE_PATTERN,
  description: 'Identifier, unique within its array: letters, digits, _ . - (starts with a letter or digit)',
});

const Label = Type.String({ minLength: 1, maxLength: 200 });

/** Plain decimal text as a JSON string: "12.50", "-3", "0.000001". No exponent, no spaces. */
export const DecimalString = Type.String({
  pattern: '^-?[0-9]+(\\.[0-9]+)?$',
  maxLength: 40,
  description: 'Decimal as text, e.g. "12.50"',
});

/** A decimal: JSON string (preferred, exact) or JSON number. */
export const DecimalValue = Type.Union([DecimalString, Type.Number()], {
  description: 'Decimal as a string ("12.50", exact) or a JSON number',
});
export type DecimalValue = Static<typeof DecimalValue>;

/** A reference to a `values` entry by its code. */
export const ValueRef = Type.Object(
  { value: Code },
  { additionalProperties: false, description: 'Refers to the values entry with this code, e.g. { "value": "VAT" }' },
);
export type ValueRef = Static<typeof ValueRef>;

/** A price parameter: a decimal, or a reference to a named value. */
export const Amount = Type.Union([DecimalString, Type.Number(), ValueRef], {
  description: 'Decimal ("12.50" or 12.5) or a reference to a values entry ({ "value": "VAT" })',
});
export type Amount = Static<typeof Amount>;

// ---------------------------------------------------------------- values

export const TariffValue = Type.Object(
  { code: Code, label: Label, value: DecimalValue },
  { additionalProperties: false, description: 'A named number components can refer to, e.g. a VAT rate' },
);
export type TariffValue = Static<typeof TariffValue>;

// ---------------------------------------------------------------- inputs

export const MeteredInput = Type.Object(
  {
    code: Code,
    label: Label,
    unit: Type.String({ minLength: 1, maxLength: 20, description: 'Unit of the reading, e.g. m3, kWh' }),
    decimals: Type.Integer({ minimum: 0, maximum: 6, description: 'Decimals a reading may carry' }),
    rolloverAt: Type.Optional(
      Type.Union([DecimalString, Type.Number()], {
        description: 'Reading at which the meter wraps to 0, e.g. 100000 for a 5-digit meter',
      }),
    ),
  },
  { additionalProperties: false, description: 'A meter read each period' },
);
export type MeteredInput = Static<typeof MeteredInput>;

export const UnmeteredInput = Type.Object(
  {
    code: Code,
    label: Label,
    default: Type.Optional(
      Type.Union([DecimalString, Type.Number()], { description: 'Quantity used when the subscription gives none' }),
    ),
  },
  { additionalProperties: false, description: 'A fixed quantity per subscription, e.g. number of rooms' },
);
export type UnmeteredInput = Static<typeof UnmeteredInput>;

export const ConnectionInputType = Type.Union([
  Type.Literal('string'),
  Type.Literal('number'),
  Type.Literal('date'),
  Type.Literal('boolean'),
]);

export const ConnectionInput = Type.Object(
  {
    code: Code,
    label: Label,
    type: ConnectionInputType,
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Recorded when a subscription is connected, e.g. meter number' },
);
export type ConnectionInput = Static<typeof ConnectionInput>;

// ---------------------------------------------------------------- components

export const Tier = Type.Object(
  {
    upTo: Type.Union([DecimalString, Type.Number(), Type.Null()], {
      description: 'Upper bound of the tier, included; null for the last, open tier',
    }),
    rate: Amount,
    flat: Type.Optional(Amount),
  },
  { additionalProperties: false },
);
export type Tier = Static<typeof Tier>;

export const TierRounding = Type.Union([Type.Literal('down'), Type.Literal('up'), Type.Literal('halfUp')]);
export type TierRounding = Static<typeof TierRounding>;

export const TierProration = Type.Object(
  {
    basisDays: Type.Integer({ minimum: 1, maximum: 366, description: 'Days the tier bounds are written for, e.g. 30' }),
    decimals: Type.Integer({ minimum: 0, maximum: 6, description: 'Decimals a scaled bound keeps' }),
    rounding: TierRounding,
  },
  {
    additionalProperties: false,
    description: 'Scale tier bounds by activeDays / basisDays, rounded to decimals by the rounding rule',
  },
);
export type TierProration = Static<typeof TierProration>;

export const Category = Type.Union([Type.Literal('charge'), Type.Literal('tax')], {
  description: "'charge' (default) or 'tax'; a bill totals each separately",
});
export type Category = Static<typeof Category>;

const common = {
  code: Code,
  name: Label,
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  category: Type.Optional(Category),
  minimum: Type.Optional(Amount),
  maximum: Type.Optional(Amount),
};
const input = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Code of a metered input (the period consumption) or an unmetered input (the subscription quantity)',
});
const prorate = Type.Optional(
  Type.Boolean({ description: 'Scale the amount by activeDays / termDays (default: true for flat, false otherwise)' }),
);
const tiers = Type.Array(Tier, { minItems: 1, maxItems: 100 });

export const FlatComponent = Type.Object(
  { ...common, model: Type.Literal('flat'), prorate, amount: Amount },
  { additionalProperties: false, description: 'A fixed amount per period' },
);
export const PerUnitComponent = Type.Object(
  { ...common, model: Type.Literal('perUnit'), input, prorate, rate: Amount },
  { additionalProperties: false, description: 'rate x quantity' },
);
export const GraduatedComponent = Type.Object(
  { ...common, model: Type.Literal('graduated'), input, prorate, tiers, tierProration: Type.Optional(TierProration) },
  { additionalProperties: false, description: 'Each unit priced by the tier it falls in' },
);
export const VolumeComponent = Type.Object(
  { ...common, model: Type.Literal('volume'), input, prorate, tiers, tierProration: Type.Optional(TierProration) },
  { additionalProperties: false, description: 'All units priced at the tier the total reaches' },
);
export const PackageComponent = Type.Object(
  { ...common, model: Type.Literal('package'), input, prorate, size: DecimalValue, price: Amount },
  { additionalProperties: false, description: 'price per started block of size units' },
);
export const PercentageComponent = Type.Object(
  {
    ...common,
    model: Type.Literal('percentage'),
    percentage: Amount,
    of: Type.Array(Code, { minItems: 1, maxItems: 100, description: 'Codes of the components it is a percentage of' }),
  },
  { additionalProperties: false, description: 'percentage % of the sum of the rounded amounts of the components in of' },
);

export const Component = Type.Union([
  FlatComponent,
  PerUnitComponent,
  GraduatedComponent,
  VolumeComponent,
  PackageComponent,
  PercentageComponent,
]);
export type FlatComponent = Static<typeof FlatComponent>;
export type PerUnitComponent = Static<typeof PerUnitComponent>;
export type GraduatedComponent = Static<typeof GraduatedComponent>;
export type VolumeComponent = Static<typeof VolumeComponent>;
export type PackageComponent = Static<typeof PackageComponent>;
export type PercentageComponent = Static<typeof PercentageComponent>;
export type Component = Static<typeof Component>;
export type ChargeModel = Component['model'];

export const CHARGE_MODELS = ['flat', 'perUnit', 'graduated', 'volume', 'package', 'percentage'] as const;

/** The part of a pricing template the rating core reads. A missing array means empty. */
export const Tariff = Type.Object({
  values: Type.Optional(Type.Array(TariffValue, { maxItems: 1000 })),
  meteredInputs: Type.Optional(Type.Array(MeteredInput, { maxItems: 100 })),
  unmeteredInputs: Type.Optional(Type.Array(UnmeteredInput, { maxItems: 100 })),
  connectionInputs: Type.Optional(Type.Array(ConnectionInput, { maxItems: 100 })),
  components: Type.Optional(Type.Array(Component, { maxItems: 200 })),
});
export type Tariff = Static<typeof Tariff>;

export { checkTariff, type Issue } from './checkTariff.ts';
