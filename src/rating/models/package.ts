import { DECIMAL_PATTERN } from '../../primitives.ts';
import { Type, type Static } from 'typebox';
import { Amount, DecimalValue } from '../fields.ts';
import { type Dec, toDecimal, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import { consumptionPart, partsOf, shareOfBill } from './billShare.ts';
import type { ModelContext, SegmentContext } from './context.ts';
import { componentFields, defineModel, inputField, inputShareField, type PreparedBase, prorateField, levelBoundFields } from './model.ts';

export const PackageComponent = Type.Object(
  {
    ...componentFields,
    model: Type.Literal('package'),
    input: inputField,
    inputShare: inputShareField,
    ...levelBoundFields,
    prorate: prorateField,
    size: DecimalValue,
    price: Amount,
    freeUnits: Type.Optional(
      Type.Union([Type.String({ pattern: DECIMAL_PATTERN, maxLength: 40 }), Type.Number()], {
        description: 'Units free before the first block is counted (default 0), as Lago\'s free_units',
      }),
    ),
  },
  { additionalProperties: false, title: 'PackageComponent', description: 'price per started block of size units, after freeUnits' },
);
export type PackageComponent = Static<typeof PackageComponent>;
export type PreparedPackage = PreparedBase & { model: 'package'; size: Dec; price: Dec; freeUnits: Dec };
export type PackageTrace = {
  model: 'package';
  quantity: string;
  /** Units free before blocks are counted: as written, or in a segment of a bill its share of them (freeShare). */
  freeUnits?: string;
  /**
   * In a segment of a bill spanning a version change: the free units as written, shared by
   * the segment's billed days over the bill's, rounded on the running total of days
   * (daysBefore: billed days of the earlier segments), as tier bounds are.
   */
  freeShare?: { freeUnits: string; days: number; billDays: number; daysBefore?: number };
  /** Units left in the last block billed in an earlier segment of the bill, used here before a block is started. */
  carriedIn?: string;
  size: string;
  blocks: string;
  price: string;
  /** Units of this line's last block not used here: the next segment of the bill uses them first. */
  left?: string;
};

/**
 * price per started block of `size` units, counted after the first `freeUnits` units:
 * 0 units is 0 blocks, 1 unit is 1 block, size + 1 units is 2. With 100 free units in
 * blocks of 50, 100 units cost nothing and 101 units one block.
 *
 * In a segment of a bill spanning a version change the package is still one per bill:
 * - the free units are shared by the segment's billed days, like a tier bound (a free
 *   first tier), not given again in each segment;
 * - a block is billed once, in the segment it is started, at that version's price; the
 *   units left in it are used first by the next segment (rounding up in each segment
 *   billed one block more per segment than the bill's units needed).
 */
export function ratePackage(component: PreparedPackage, quantity: Dec, context: ModelContext): ModelResult<PackageTrace> {
  // Shared over the segments on a metered consumption only (consumptionPart), to the meter's decimals like a tier bound.
  const shared = consumptionPart(component.input, context);
  const part = shared?.seg;
  let free = component.freeUnits;
  let carriedIn = ZERO;
  let passesOn = false;
  if (shared !== undefined && part !== undefined) {
    if (!free.isZero()) free = shareOfBill(free, part.billDays, part.billDays, context, shared.decimals, 'halfUp');
    const carry = carryOf(component, part);
    if (carry.left !== undefined) carriedIn = toDecimal(carry.left);
    passesOn = carry.passesOn;
  }
  const afterFree = quantity.gt(free) ? quantity.minus(free) : ZERO;
  const fromCarry = afterFree.lt(carriedIn) ? afterFree : carriedIn;
  const paid = afterFree.minus(fromCarry);
  const blocks = paid.gt(0) ? paid.div(component.size).ceil() : ZERO;
  const trace: PackageTrace = { model: 'package', quantity: quantity.toFixed(), size: component.size.toFixed(), blocks: blocks.toFixed(), price: component.price.toFixed() };
  if (!free.isZero()) trace.freeUnits = free.toFixed();
  if (part !== undefined) {
    if (!component.freeUnits.isZero()) {
      trace.freeShare = { freeUnits: component.freeUnits.toFixed(), days: context.activeDays, billDays: part.billDays };
      if (part.daysBefore > 0) trace.freeShare.daysBefore = part.daysBefore;
    }
    if (!carriedIn.isZero()) trace.carriedIn = carriedIn.toFixed();
    const left = carriedIn.minus(fromCarry).plus(blocks.times(component.size)).minus(paid);
    if (passesOn && left.gt(0)) trace.left = left.toFixed();
  }
  return { amount: blocks.times(component.price), rate: component.price, trace };
}

/**
 * The units the previous segment's line of this package left in its last block (shown in
 * its trace, where the carry is made), and whether a later segment has the package.
 */
function carryOf(component: PreparedPackage, seg: SegmentContext): { left: string | undefined; passesOn: boolean } {
  const parts = partsOf(seg, component.code, (c): c is PreparedPackage => c.model === 'package');
  const at = parts.findIndex((p) => p.index === seg.index);
  const before = parts[at - 1];
  const left = before === undefined ? undefined : (before.segment.traces[before.component.index] as PackageTrace | undefined)?.left;
  return { left, passesOn: at < parts.length - 1 };
}

export const packageModel = defineModel({
  name: 'package',
  schema: PackageComponent,
  usesInput: true,
  prorate: 'off',
  lineQuantity: 'measured',
  solvable: ['price'],
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
  segmentKey: (c, _context, seg) => {
    const carry = carryOf(c, seg);
    return `${carry.left ?? ''},${carry.passesOn ? 1 : 0}`;
  },
  explain: (t) => {
    const free = t.freeUnits === undefined ? '' : ` less ${t.freeUnits} free${t.freeShare === undefined ? '' : ` (${t.freeShare.freeUnits} x ${t.freeShare.days}/${t.freeShare.billDays} of the days)`}`;
    const carried = t.carriedIn === undefined ? '' : ` less ${t.carriedIn} left in a block billed before`;
    const left = t.left === undefined ? '' : `, ${t.left} unit(s) of the last left for the next segment`;
    return `${free === '' && carried === '' ? '' : `${t.quantity}${free}${carried}: `}${t.blocks} block(s) of ${t.size} x ${t.price}${left}`;
  },
});
