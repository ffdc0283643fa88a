import { Type, type Static } from 'typebox';
import { Code, VISIBLE_TEXT } from '../primitives.ts';

/**
 * Schema pieces every part of a tariff uses (codes, labels, decimals, price
 * parameters). They live apart from tariff.ts so that the charge models can
 * build their schemas from them while tariff.ts builds on the models.
 *
 * Numbers: every decimal may be written as a JSON string of plain decimal
 * text ("12.50", "-3", "0.1") or as a JSON number (12.5). Strings are
 * preferred: they reach the engine exactly as written. A JSON number is read
 * through its shortest round-trip text, so 0.1 is exactly 0.1.
 * A price parameter (amount, rate, tier rate/flat, percentage, price,
 * minimum, maximum) may instead refer to a `values` entry: { "value": "VAT" }.
 */

// Codes are the API's one Code (src/primitives.ts), re-exported for the models.
export { Code };

export const Label = Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_TEXT });

/** Plain decimal text as a JSON string: "12.50", "-3", "0.000001". No exponent, no spaces. */
export const DECIMAL_STRING_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$';
export const DecimalString = Type.String({
  pattern: DECIMAL_STRING_PATTERN,
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

export const Category = Type.Union([Type.Literal('charge'), Type.Literal('tax')], {
  description: "'charge' (default) or 'tax'; a bill totals each separately",
});
export type Category = Static<typeof Category>;
