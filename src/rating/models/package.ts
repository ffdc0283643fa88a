import { Type, type Static } from 'typebox';
import { Amount, DecimalValue } from '../fields.ts';
import { type Dec, toDecimal, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, inputField, type PreparedBase, prorateField } from './model.ts';

export const PackageComponent = Type.Object(
  {
    ...componentFields,
    model: Type.Literal('package'),
    input: inputField,
    prorate: prorateField,
    size: DecimalValue,
    price: Amount,
    freeUnits: Type.Optional(
      Type.Union([Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 40 }), Type.Number()], {
        description: 'Units free before the first block is counted (default 0), as Lago\'s free_units',
      }),
    ),
  },
  { additionalProperties: false, title: 'PackageComponent', description: 'price per started block of size units, after freeUnits' },
);
export type PackageComponent = Static<typeof PackageComponent>;
export type PreparedPackage = PreparedBase & { model: 'package'; size: Dec; price: Dec; freeUnits: Dec };
export type PackageTrace = { model: 'package'; quantity: string; freeUnits?: string; size: string; blocks: string; price: string };

/**
 * price per started block of `size` units, counted after the first `freeUnits` units:
 * 0 units is 0 blocks, 1 unit is 1 block, size + 1 units is 2. With 100 free units in
 * blocks of 50, 100 units cost nothing and 101 units one block.
 */
export function ratePackage(component: PreparedPackage, quantity: Dec, _context: ModelContext): ModelResult<PackageTrace> {
  const paid = quantity.minus(component.freeUnits);
  const blocks = paid.gt(0) ? paid.div(component.size).ceil() : ZERO;
  const trace: PackageTrace = { model: 'package', quantity: quantity.toFixed(), size: component.size.toFixed(), blocks: blocks.toFixed(), price: component.price.toFixed() };
  if (!component.freeUnits.isZero()) trace.freeUnits = component.freeUnits.toFixed();
  return { amount: blocks.times(component.price), rate: component.price, trace };
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
    if (c.freeUnits !== undefined) ctx.number(c.freeUnits, `${path}.freeUnits`, 'nonNegative');
  },
  prepare: (c, base, ctx): PreparedPackage => ({
    ...base,
    model: 'package',
    size: toDecimal(c.size),
    price: ctx.resolve(c.price),
    freeUnits: c.freeUnits === undefined ? ZERO : toDecimal(c.freeUnits),
  }),
  rate: ratePackage,
  explain: (t) => `${t.freeUnits === undefined ? '' : `${t.quantity} less ${t.freeUnits} free: `}${t.blocks} block(s) of ${t.size} x ${t.price}`,
});
