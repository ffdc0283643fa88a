import { Type, type Static } from 'typebox';
import { Amount, DecimalValue } from '../fields.ts';
import { type Dec, toDecimal } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, inputField, type PreparedBase, prorateField } from './model.ts';

export const PackageComponent = Type.Object(
  { ...componentFields, model: Type.Literal('package'), input: inputField, prorate: prorateField, size: DecimalValue, price: Amount },
  { additionalProperties: false, title: 'PackageComponent', description: 'price per started block of size units' },
);
export type PackageComponent = Static<typeof PackageComponent>;
export type PreparedPackage = PreparedBase & { model: 'package'; size: Dec; price: Dec };
export type PackageTrace = { model: 'package'; quantity: string; size: string; blocks: string; price: string };

/** price per started block of `size` units: 0 units is 0 blocks, 1 unit is 1 block, size + 1 units is 2. */
export function ratePackage(component: PreparedPackage, quantity: Dec, _context: ModelContext): ModelResult<PackageTrace> {
  const blocks = quantity.div(component.size).ceil();
  return {
    amount: blocks.times(component.price),
    rate: component.price,
    trace: {
      model: 'package',
      quantity: quantity.toFixed(),
      size: component.size.toFixed(),
      blocks: blocks.toFixed(),
      price: component.price.toFixed(),
    },
  };
}

export const packageModel = defineModel({
  name: 'package',
  schema: PackageComponent,
  usesInput: true,
  prorate: 'off',
  lineQuantity: 'measured',
  check: (c, path, ctx) => {
    ctx.number(c.size, `${path}.size`, 'positive');
    ctx.amount(c.price, `${path}.price`, 'nonNegative');
  },
  prepare: (c, base, ctx): PreparedPackage => ({ ...base, model: 'package', size: toDecimal(c.size), price: ctx.resolve(c.price) }),
  rate: ratePackage,
  explain: (t) => `${t.blocks} block(s) of ${t.size} x ${t.price}`,
});
