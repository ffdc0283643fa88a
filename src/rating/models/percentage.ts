import { Type, type Static } from 'typebox';
import { Amount, Code } from '../fields.ts';
import { type Dec, HUNDRED } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { checkOf, componentFields, defineModel, sumOfLines, type PreparedBase } from './model.ts';

export const PercentageComponent = Type.Object(
  {
    ...componentFields,
    model: Type.Literal('percentage'),
    percentage: Amount,
    of: Type.Array(Code, { minItems: 1, maxItems: 100, description: 'Codes of the components it is a percentage of' }),
  },
  { additionalProperties: false, title: 'PercentageComponent', description: 'percentage % of the sum of the rounded amounts of the components in of' },
);
export type PercentageComponent = Static<typeof PercentageComponent>;
export type PreparedPercentage = PreparedBase & {
  model: 'percentage';
  percentage: Dec;
  of: { code: string; index: number }[];
};
export type PercentageTrace = {
  model: 'percentage';
  percentage: string;
  /** The rounded amounts of the lines it is a percentage of. */
  of: { code: string; amount: string }[];
  base: string;
};

/**
 * percentage % of the sum of the already rounded amounts of the components in
 * `of`, so the base printed on the bill adds up from the lines above it.
 * The quantity argument is not used: the base is the line's quantity.
 */
export function ratePercentage(component: PreparedPercentage, _quantity: Dec, context: ModelContext): ModelResult<PercentageTrace> {
  const { sum: base, lines: of } = sumOfLines(`percentage ${component.code}`, component.of, context.amounts, context.minorUnits);
  return {
    amount: base.times(component.percentage).div(HUNDRED),
    rate: component.percentage,
    quantity: base,
    trace: { model: 'percentage', percentage: component.percentage.toFixed(), of, base: base.toFixed(context.minorUnits) },
  };
}

export const percentage = defineModel({
  name: 'percentage',
  schema: PercentageComponent,
  usesInput: false,
  prorate: 'never',
  lineQuantity: 'base',
  solvable: ['percentage'],
  check: (c, path, ctx) => {
    ctx.amount(c.percentage, `${path}.percentage`, 'any');
    checkOf(c.of, c.code, path, ctx, 'a component cannot be a percentage of itself');
  },
  dependsOn: { field: 'of', codes: (c) => (Array.isArray(c.of) ? c.of : []) },
  prepare: (c, base, ctx): PreparedPercentage => ({
    ...base,
    model: 'percentage',
    percentage: ctx.resolve(c.percentage),
    of: c.of.map((code) => ({ code, index: ctx.indexOf.get(code) as number })),
  }),
  rate: ratePercentage,
  explain: (t) => `${t.percentage}% of ${t.base} (${t.of.map((o) => `${o.code} ${o.amount}`).join(' + ')})`,
});
