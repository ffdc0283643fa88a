import { Type, type Static } from 'typebox';

import { Code, DecimalString, DecimalValue, Label, ValueRef } from './fields.ts';
import { Component } from './models/registry.ts';

/**
 * The element shapes of a pricing template's arrays (values, meteredInputs,
 * unmeteredInputs, connectionInputs, components). These schemas validate
 * make-service input and feed the OpenAPI document; checkTariff() then checks
 * what a schema cannot (unique codes, references, tier order, cycles).
 * The shared pieces (codes, decimals, price parameters) are in fields.ts, each
 * charge model's component in its own module under models/ (see registry.ts).
 */

export { Code, DecimalString, DecimalValue, ValueRef, Amount, Category, Label } from './fields.ts';
export {
  CHARGE_MODELS,
  Component,
  StoredComponent,
  type ChargeModelName as ChargeModel,
} from './models/registry.ts';

// ---------------------------------------------------------------- values

export const TariffValue = Type.Object(
  { code: Code, label: Label, value: DecimalValue },
  { additionalProperties: false, description: 'A named number components can refer to, e.g. a VAT rate' },
);
export type TariffValue = Static<typeof TariffValue>;

// ---------------------------------------------------------------- inputs

export const MeterConversion = Type.Object(
  {
    factor: Type.Union([DecimalString, Type.Number(), ValueRef], {
      description: 'Units billed per unit read, above 0: 1.037 therms per hundred cubic feet; a decimal, or { "value": CODE } of the template\'s values (a factor that changes each month is a value of each month\'s version)',
    }),
    unit: Type.String({ minLength: 1, maxLength: 20, description: 'The unit billed, e.g. therm, kWh' }),
    decimals: Type.Integer({ minimum: 0, maximum: 6, description: 'Decimals the billed quantity keeps' }),
    rounding: Type.Optional(
      Type.Union([Type.Literal('halfUp'), Type.Literal('down'), Type.Literal('up')], { description: "How the billed quantity is rounded to its decimals: 'halfUp' (default), 'down' or 'up'" }),
    ),
  },
  {
    additionalProperties: false,
    description: "The consumption converted before it is priced: consumption x factor, rounded to decimals (gas read in hundreds of cubic feet and billed in therms). Every component on the meter prices the converted quantity; the reading's trace keeps both",
  },
);
export type MeterConversion = Static<typeof MeterConversion>;

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
    conversion: Type.Optional(MeterConversion),
    register: Type.Optional(
      Type.Union([Type.Literal('cumulative'), Type.Literal('maximum')], {
        description:
          "What a reading holds: 'cumulative' (default), a running total, the period's consumption the last reading in it less the one before; 'maximum', a demand register (kW, kVA) reset when it is read for the bill, the period's quantity the value of the last reading in it",
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

/** The part of a pricing template the rating core reads. A missing array means empty. */
export const Tariff = Type.Object({
  values: Type.Optional(Type.Array(TariffValue, { maxItems: 1000 })),
  meteredInputs: Type.Optional(Type.Array(MeteredInput, { maxItems: 100 })),
  unmeteredInputs: Type.Optional(Type.Array(UnmeteredInput, { maxItems: 100 })),
  connectionInputs: Type.Optional(Type.Array(ConnectionInput, { maxItems: 100 })),
  components: Type.Optional(Type.Array(Component, { maxItems: 200 })),
});
export type Tariff = Static<typeof Tariff>;

export { checkNumber, checkTariff, outOfRange, type Issue } from './checkTariff.ts';
