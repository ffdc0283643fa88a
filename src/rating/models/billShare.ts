// A bill whose term spans a template version change is rated in segments (rateSegments.ts),
// every component once per segment. What a tariff gives or asks once per bill must then be
// counted once over the segments, not once in each: the audit of issue 12 found a 1000
// commitment topped up in full in both segments of a bill, free units given twice and a
// package's blocks rounded up twice. These are the pieces the models and rateLine share for
// it (docs/rating.md, "Versions in segments"). Pure.
import { type Dec, roundMoney, type RoundingMode } from '../money.ts';
import type { ModelContext, SegmentContext, SegmentOfBill } from './context.ts';
import type { PreparedComponent } from './registry.ts';
import type { PreparedInput } from '../prepareTariff.ts';
import { SPLIT_DECIMALS } from '../segments.ts';

/**
 * The segment a line is one part of its bill in, or undefined when the line is rated over
 * the whole bill: no version change, or the bill's only segment with billed days (a
 * subscription starting after the change), which is rated exactly as a bill without one.
 */
export function partOfBill(context: ModelContext): SegmentContext | undefined {
  const seg = context.segment;
  return seg !== undefined && context.activeDays !== seg.billDays ? seg : undefined;
}

/**
 * The segment a line's quantity is one part of, with the decimals that part was split to,
 * when an allowance given per bill on the quantity (tier bounds, a tier's flat, free units,
 * a package's started block) is to be shared over the bill's segments: only for a metered
 * consumption, which segments.ts splits among them. Undefined otherwise, and then the model
 * rates the line as over the whole bill:
 * - a level (an unmetered input: rooms, seats) is the whole of itself in every segment, so
 *   it meets the whole allowance there, and rateLine takes the segment's share of the amount
 *   by days. Shared out, the allowance shrank while the level did not: a version identical
 *   to the one before billed 20 rooms on a volume tier "up to 20" at the next tier's rate
 *   (600.00 for 800.00), and a package's blocks were carried between segments (a peer check);
 * - a line outside a segment.
 * The decimals are those the consumption was split to (SPLIT_DECIMALS): the allowance is
 * shared like the consumption (the running total of days, rounded half up to them), so a
 * consumption on a bound is on the bound in every segment, and one past it past it.
 */
export function consumptionPart(input: PreparedInput | null, context: ModelContext): { seg: SegmentContext; decimals: number } | undefined {
  if (input === null || input.kind !== 'metered') return undefined;
  const seg = partOfBill(context);
  return seg === undefined ? undefined : { seg, decimals: SPLIT_DECIMALS };
}

/** A segment of the bill whose version has the component asked for, and that component. */
export type BillPart<C extends PreparedComponent> = { index: number; segment: SegmentOfBill; component: C };

/**
 * The bill's segments with billed days whose version has a component of this code that
 * `has` accepts, in date order: what one per-bill rule is measured over. A version without
 * the component (or without the limit asked for) takes no part.
 */
export function partsOf<C extends PreparedComponent>(seg: SegmentContext, code: string, has: (c: PreparedComponent) => c is C): BillPart<C>[] {
  const parts: BillPart<C>[] = [];
  seg.segments.forEach((segment, index) => {
    if (segment.days === 0) return;
    const component = segment.components.get(code);
    if (component !== undefined && has(component)) parts.push({ index, segment, component });
  });
  return parts;
}

/**
 * The share of `x` (given per `per` units of a measure the bill has `total` of: its billed
 * days, or its reading period's days) for the line's part of the bill, rounded:
 * - outside a segment: round(x × total / per), the rule without a version change;
 * - in a segment: its share by billed days, rounded on the running total, i.e.
 *   round(x × total × (before + days) / (billDays × per)) − round(x × total × before / (billDays × per)),
 *   so consecutive segments' shares add up exactly to the bill's round(x × total / per).
 *   Rounding each share alone lost or gained a unit of allowance per segment (a 30-day
 *   bound of 10 rounded down over 14 and 17 of 31 days gave 4 + 5, not 10).
 * One division, last, so a share that is a terminating decimal is exact.
 */
export function shareOfBill(x: Dec, total: Dec | number, per: Dec | number, context: ModelContext, decimals: number, rounding: RoundingMode): Dec {
  const seg = context.segment;
  if (seg === undefined) return roundMoney(x.times(total).div(per), decimals, rounding);
  // A fractional basis (30.4375) multiplies exactly: still one division.
  const divisor = typeof per === 'number' ? seg.billDays * per : per.times(seg.billDays);
  const upTo = (days: number) => roundMoney(x.times(total).times(days).div(divisor), decimals, rounding);
  return seg.daysBefore === 0 ? upTo(context.activeDays) : upTo(seg.daysBefore + context.activeDays).minus(upTo(seg.daysBefore));
}
