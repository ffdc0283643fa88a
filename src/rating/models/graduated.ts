import { type Dec, ZERO } from '../money.ts';
import type { PreparedGraduated } from '../prepareTariff.ts';
import type { GraduatedTrace, ModelResult, TierTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { tierBounds } from './tierBounds.ts';

/**
 * Each unit priced by the tier it falls in. Tier n holds the units above the
 * previous bound up to and including its own `upTo`. A tier's `flat` is
 * charged once when the quantity reaches the tier: the first tier always
 * (zero consumption is in the first tier), a later tier when the quantity is
 * above its lower bound.
 */
export function rateGraduated(component: PreparedGraduated, quantity: Dec, context: ModelContext): ModelResult<GraduatedTrace> {
  const { bounds, trace: tierProration } = tierBounds(component.tiers, component.tierProration, context);
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
    if (tier.flat !== null) tierAmount = tierAmount.plus(tier.flat);
    amount = amount.plus(tierAmount);
    const t: TierTrace = {
      tier: i + 1,
      from: lower.toFixed(),
      upTo: upper === null ? null : upper.toFixed(),
      quantity: inTier.toFixed(),
      rate: tier.rate.toFixed(),
      amount: tierAmount.toFixed(),
    };
    if (tier.flat !== null) t.flat = tier.flat.toFixed();
    tiers.push(t);
    if (upper === null || !quantity.gt(upper)) break;
    if (upper.gt(lower)) lower = upper;
  }
  const trace: GraduatedTrace = { model: 'graduated', quantity: quantity.toFixed(), tiers };
  if (tierProration !== undefined) trace.tierProration = tierProration;
  return { amount, trace };
}

type PreparedTier = PreparedGraduated['tiers'][number];
