import type { Static } from 'typebox';
import { type Dec, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
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

export const VolumeComponent = tieredComponent('volume', 'All units priced at the tier the total reaches');
export type VolumeComponent = Static<typeof VolumeComponent>;
export type PreparedVolume = PreparedTiered<'volume'>;
export type VolumeTrace = {
  model: 'volume';
  quantity: string;
  /** The tier the total reaches; all units at its rate. */
  tier: TierTrace;
  tierProration?: TierProrationTrace;
  /** Bounds scaled to the segment of a bill spanning a version change. */
  segmentBounds?: SegmentBoundsTrace;
};

/**
 * All units at the rate of the tier the total reaches (the first tier whose
 * `upTo` is at or above the quantity), plus that tier's `flat` (in a segment of a bill
 * spanning a version change, the segment's share of it by days: tierFlat).
 */
export function rateVolume(component: PreparedVolume, quantity: Dec, context: ModelContext): ModelResult<VolumeTrace> {
  const { bounds, trace: tierProration, segment: segmentBounds } = tierBounds(component, context);
  let lower = ZERO;
  let i = 0;
  for (; i < component.tiers.length - 1; i++) {
    const upper = bounds[i];
    if (upper === null || upper === undefined || quantity.lte(upper)) break;
    lower = upper;
  }
  const tier = component.tiers[i] as PreparedTier;
  const upper = bounds[i] ?? null;
  let amount = quantity.times(tier.rate);
  const flat = tier.flat === null ? undefined : tierFlat(tier.flat, component.input, context);
  if (flat !== undefined) amount = amount.plus(flat.amount);
  const trace: VolumeTrace = { model: 'volume', quantity: quantity.toFixed(), tier: tierTrace(i, lower, upper, tier, quantity, amount, flat?.share) };
  if (tierProration !== undefined) trace.tierProration = tierProration;
  if (segmentBounds !== undefined) trace.segmentBounds = segmentBounds;
  return { amount, rate: tier.rate, trace };
}

export const volume = defineModel({
  name: 'volume',
  schema: VolumeComponent,
  usesInput: true,
  prorate: 'off',
  lineQuantity: 'measured',
  solvable: ['rate', 'flat'],
  check: (c, path, ctx) => checkTiers(c, path, ctx, 'any'),
  prepare: (c, base, ctx): PreparedVolume => ({ ...base, model: 'volume', ...prepareTiers(c, ctx) }),
  rate: rateVolume,
  // Bounds an earlier version of the bill wrote otherwise (the lines cache's key).
  segmentKey: (c, context, seg) => earlierBoundsKey(c, context, seg),
  explain: (t) => `${explainBounds(t)}all ${t.quantity} at tier ${t.tier.tier}: ${explainTier(t.tier)}`,
});
