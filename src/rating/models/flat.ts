import { Type, type Static } from 'typebox';
import { Amount } from '../fields.ts';
import type { Dec } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, type PreparedBase, prorateField } from './model.ts';

export const FlatComponent = Type.Object(
  { ...componentFields, model: Type.Literal('flat'), prorate: prorateField, amount: Amount },
  { additionalProperties: false, title: 'FlatComponent', description: 'A fixed amount per period' },
);
export type FlatComponent = Static<typeof FlatComponent>;
export type PreparedFlat = PreparedBase & { model: 'flat'; amount: Dec };
export type FlatTrace = { model: 'flat'; amount: string };

/** A fixed amount per period. Proration (on by default for flat) is applied by rateLine. */
export function rateFlat(component: PreparedFlat, _quantity: Dec, _context: ModelContext): ModelResult<FlatTrace> {
  return { amount: component.amount, rate: component.amount, trace: { model: 'flat', amount: component.amount.toFixed() } };
}

export const flat = defineModel({
  name: 'flat',
  schema: FlatComponent,
  usesInput: false,
  prorate: 'on',
  lineQuantity: 'one',
  solvable: ['amount'],
  check: (c, path, ctx) => void ctx.amount(c.amount, `${path}.amount`, 'any'),
  prepare: (c, base, ctx): PreparedFlat => ({ ...base, model: 'flat', amount: ctx.resolve(c.amount) }),
  rate: rateFlat,
  explain: (t) => `flat ${t.amount}`,
});
