import { type Dec, ZERO } from '../money.ts';
import type { PreparedVolume } from '../prepareTariff.ts';
import type { ModelResult, TierTrace, VolumeTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { tierBounds } from './tierBounds.ts';

/**
 * All units at the rate of the tier the total reaches (the first tier whose
 * `upTo` is at or above the quantity), plus that tier's `flat`.
 */
export function rateVolume(component: PreparedVolume, quantity: Dec, context: ModelContext): ModelResult<VolumeTrace> {
  const { bounds, trace: tierProration } = tierBounds(component.tiers, component.tierProration, context);
  let lower = ZERO;
  let i = 0;
  for (; i < component.tiers.length - 1; i++) {
    const upper = bounds[i];
    if (upper === null || upper === undefined || quantity.lte(upper)) break;
    lower = upper;
  }
  const tier = component.tiers[i] as PreparedVolume['tiers'][number];
  const upper = bounds[i] ?? null;
  let amount = quantity.times(tier.rate);
  if (tier.flat !== null) amount = amount.plus(tier.flat);
  const t: TierTrace = {
    tier: i + 1,
    from: lower.toFixed(),
    upTo: upper === null ? null : upper.toFixed(),
    quantity: quantity.toFixed(),
    rate: tier.rate.toFixed(),
    amount: amount.toFixed(),
  };
  if (tier.flat !== null) t.flat = tier.flat.toFixed();
  const trace: VolumeTrace = { model: 'volume', quantity: quantity.toFixed(), tier: t };
  if (tierProration !== undefined) trace.tierProration = tierProration;
  return { amount, rate: tier.rate, trace };
}
