import { Type, type Static } from 'typebox';
import { Amount } from '../fields.ts';
import type { Dec } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, inputField, inputShareField, type PreparedBase, prorateField, levelBoundFields } from './model.ts';

export const PerUnitComponent = Type.Object(
  { ...componentFields, model: Type.Literal('perUnit'), input: inputField, inputShare: inputShareField, ...levelBoundFields, prorate: prorateField, rate: Amount },
  { additionalProperties: false, title: 'PerUnitComponent', description: 'rate x quantity' },
);
export type PerUnitComponent = Static<typeof PerUnitComponent>;
export type PreparedPerUnit = PreparedBase & { model: 'perUnit'; rate: Dec };
export type PerUnitTrace = { model: 'perUnit'; quantity: string; rate: string };

/** rate x quantity. */
export function ratePerUnit(component: PreparedPerUnit, quantity: Dec, _context: ModelContext): ModelResult<PerUnitTrace> {
  return {
    amount: quantity.times(component.rate),
    rate: component.rate,
    trace: { model: 'perUnit', quantity: quantity.toFixed(), rate: component.rate.toFixed() },
  };
}

export const perUnit = defineModel({
  name: 'perUnit',
  schema: PerUnitComponent,
  usesInput: true,
  prorate: 'off',
  lineQuantity: 'measured',
  solvable: ['rate'],
  check: (c, path, ctx) => void ctx.amount(c.rate, `${path}.rate`, 'any'),
  prepare: (c, base, ctx): PreparedPerUnit => ({ ...base, model: 'perUnit', rate: ctx.resolve(c.rate) }),
  rate: ratePerUnit,
  explain: (t) => `${t.quantity} x ${t.rate}`,
});
