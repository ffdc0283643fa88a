import { type Dec, roundMoney } from '../money.ts';
import type { PreparedTier, PreparedTierProration } from '../prepareTariff.ts';
import type { TierProrationTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';

/**
 * The tier upper bounds used for this bill: as written, or with tier
 * proration scaled by activeDays / basisDays and rounded to `decimals` by its
 * rule (a 30-day bound of 10 becomes 10 x 31/30 = 10.33 for a 31-day period,
 * 10 when rounded down to 0 decimals, 11 when rounded up).
 * Rounding is monotonic, so scaled bounds stay in order (two may become equal:
 * the tier between them is then empty).
 */
export function tierBounds(
  tiers: readonly PreparedTier[],
  proration: PreparedTierProration | null,
  context: ModelContext,
): { bounds: (Dec | null)[]; trace?: TierProrationTrace } {
  if (proration === null) return { bounds: tiers.map((t) => t.upTo) };
  const bounds: (Dec | null)[] = [];
  const traced: { upTo: string; scaled: string }[] = [];
  for (const t of tiers) {
    if (t.upTo === null) {
      bounds.push(null);
      continue;
    }
    const scaled = roundMoney(t.upTo.times(context.activeDays).div(proration.basisDays), proration.decimals, proration.rounding);
    bounds.push(scaled);
    traced.push({ upTo: t.upTo.toFixed(), scaled: scaled.toFixed() });
  }
  const trace: TierProrationTrace = {
    basisDays: proration.basisDays,
    activeDays: context.activeDays,
    decimals: proration.decimals,
    rounding: proration.rounding,
    bounds: traced,
  };
  if (context.suspended !== undefined) trace.suspendedDays = context.suspended.days;
  return { bounds, trace };
}
