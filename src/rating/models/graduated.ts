import { Type, type Static } from 'typebox';
import { type Dec, formatMoney, roundMoney, roundOnTotal, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext, SegmentContext } from './context.ts';
import { defineModel } from './model.ts';
import {
  checkTiers,
  earlierBoundsKey,
  explainBounds,
  explainTier,
  type PreparedTier,
  type PreparedTiered,
  prepareTiers,
  tierBounds,
  tierFlat,
  type SegmentBoundsTrace,
  type TierProrationTrace,
  tieredComponent,
  tierTrace,
  type TierTrace,
} from './tiers.ts';

export const GraduatedComponent = tieredComponent('graduated', 'Each unit priced by the tier it falls in', {
  roundEachTier: Type.Optional(
    Type.Boolean({
      description:
        "Each tier's amount rounded to the currency's minor unit by the app's rounding rule, and the line their sum (an invoice that prints one amount per step and adds them up); default false: the line is rounded once",
    }),
  ),
});
export type GraduatedComponent = Static<typeof GraduatedComponent>;
export type PreparedGraduated = PreparedTiered<'graduated'> & { roundEachTier: boolean };
export type GraduatedTrace = {
  model: 'graduated';
  quantity: string;
  /** Each tier's amount rounded to the minor unit (the component's roundEachTier). */
  roundEachTier?: true;
  tiers: TierTrace[];
  tierProration?: TierProrationTrace;
  /** Bounds scaled to the segment of a bill spanning a version change. */
  segmentBounds?: SegmentBoundsTrace;
};

/**
 * Each unit priced by the tier it falls in. Tier n holds the units above the
 * previous bound up to and including its own `upTo`. A tier's `flat` is
 * charged once when the quantity reaches the tier: the first tier always
 * (zero consumption is in the first tier), a later tier when the quantity is
 * above its lower bound. In a segment of a bill spanning a version change a flat is
 * charged by the segment's share of the bill's days (tierFlat): once per bill.
 */
export function rateGraduated(component: PreparedGraduated, quantity: Dec, context: ModelContext): ModelResult<GraduatedTrace> {
  const { bounds, trace: tierProration, segment: segmentBounds } = tierBounds(component, context);
  const earlier = component.roundEachTier && context.segment !== undefined ? earlierTiers(component, context.segment) : undefined;
  let amount = ZERO;
  let lower = ZERO;
  const tiers: TierTrace[] = [];
  for (let i = 0; i < component.tiers.length; i++) {
    const tier = component.tiers[i] as PreparedTier;
    const upper = bounds[i] ?? null;
    if (i > 0 && !quantity.gt(lower)) break;
    const top = upper === null || quantity.lt(upper) ? quantity : upper;
    const inTier = top.gt(lower) ? top.minus(lower) : ZERO;
    let tierAmount = inTier.times(tier.rate);
    const flat = tier.flat === null ? undefined : tierFlat(tier.flat, component.input, context);
    if (flat !== undefined) tierAmount = tierAmount.plus(flat.amount);
    const traced = tierTrace(i, lower, upper, tier, inTier, tierAmount, flat?.share);
    if (component.roundEachTier) {
      // The rule of every line (money.ts), applied to each tier: the line is then the sum of
      // what the bill prints for its tiers, to the cent. In a later segment, on the running
      // total of the same tier over the bill, as a line is rounded (TierTrace.carried).
      const alone = roundMoney(tierAmount, context.minorUnits, context.rounding);
      const before = earlier?.get(i + 1);
      const rounded = roundOnTotal(tierAmount, before, context.minorUnits, context.rounding);
      traced.amount = formatMoney(rounded, context.minorUnits);
      if (!rounded.eq(tierAmount)) traced.unrounded = tierAmount.toFixed();
      if (before !== undefined && !rounded.eq(alone)) traced.carried = { unrounded: before.exact.toFixed(), rounded: formatMoney(before.billed, context.minorUnits) };
      tierAmount = rounded;
    }
    amount = amount.plus(tierAmount);
    tiers.push(traced);
    if (upper === null || !quantity.gt(upper)) break;
    if (upper.gt(lower)) lower = upper;
  }
  const trace: GraduatedTrace = { model: 'graduated', quantity: quantity.toFixed(), tiers };
  if (component.roundEachTier) trace.roundEachTier = true;
  if (tierProration !== undefined) trace.tierProration = tierProration;
  if (segmentBounds !== undefined) trace.segmentBounds = segmentBounds;
  return { amount, trace };
}

/**
 * The same tiers (by number) of this component's lines in the bill's earlier segments that
 * rounded each tier: their exact amounts and as billed, where they differ (a tier billed exact
 * leaves nothing to carry).
 */
function earlierTiers(component: PreparedGraduated, seg: SegmentContext): Map<number, { exact: Dec; billed: Dec }> | undefined {
  let found: Map<number, { exact: Dec; billed: Dec }> | undefined;
  for (let j = 0; j < seg.index; j++) {
    const s = seg.segments[j]!;
    const c = s.days === 0 ? undefined : s.components.get(component.code);
    const trace = c === undefined ? undefined : s.traces[c.index];
    if (trace === undefined || trace.model !== 'graduated' || trace.roundEachTier !== true) continue;
    for (const t of trace.tiers) {
      const sums = (found ??= new Map()).get(t.tier) ?? { exact: ZERO, billed: ZERO };
      found.set(t.tier, { exact: sums.exact.plus(t.unrounded ?? t.amount), billed: sums.billed.plus(t.amount) });
    }
  }
  if (found !== undefined) for (const [tier, sums] of found) if (sums.exact.eq(sums.billed)) found.delete(tier);
  return found;
}

export const graduated = defineModel({
  name: 'graduated',
  schema: GraduatedComponent,
  usesInput: true,
  prorate: 'off',
  lineQuantity: 'measured',
  solvable: ['rate', 'flat'],
  check: checkTiers,
  prepare: (c, base, ctx): PreparedGraduated => ({ ...base, model: 'graduated', ...prepareTiers(c, ctx), roundEachTier: c.roundEachTier === true }),
  rate: rateGraduated,
  // What a line reads of the bill's earlier segments (the lines cache's key): bounds an earlier
  // version wrote otherwise, and the tiers' carries of a line rounding each tier.
  segmentKey: (c, context, seg) => {
    const earlier = c.roundEachTier ? earlierTiers(c, seg) : undefined;
    const tiers = earlier === undefined ? '' : [...earlier].map(([t, s]) => `${t}:${s.exact.toString()}:${s.billed.toString()}`).join(';');
    return `${earlierBoundsKey(c, context, seg)}${tiers}`;
  },
  explain: (t) => explainBounds(t) + (t.roundEachTier ? 'each tier rounded to the minor unit; ' : '') + t.tiers.map((x) => `tier ${x.tier}: ${explainTier(x)}`).join('; '),
});
