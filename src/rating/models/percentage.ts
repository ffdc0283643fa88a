import { type Dec, HUNDRED, ZERO } from '../money.ts';
import type { PreparedPercentage } from '../prepareTariff.ts';
import type { ModelResult, PercentageTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';

/**
 * percentage % of the sum of the already rounded amounts of the components in
 * `of`, so the base printed on the bill adds up from the lines above it.
 * The quantity argument is not used: the base is the line's quantity.
 */
export function ratePercentage(component: PreparedPercentage, _quantity: Dec, context: ModelContext): ModelResult<PercentageTrace> {
  let base = ZERO;
  const of: { code: string; amount: string }[] = [];
  for (const ref of component.of) {
    const amount = context.amounts[ref.index];
    // rateBill evaluates in dependency order; a gap here is a bug, not bad data.
    if (amount === undefined) throw new Error(`percentage ${component.code}: '${ref.code}' not rated yet`);
    base = base.plus(amount);
    of.push({ code: ref.code, amount: amount.toFixed(context.minorUnits) });
  }
  return {
    amount: base.times(component.percentage).div(HUNDRED),
    rate: component.percentage,
    quantity: base,
    trace: { model: 'percentage', percentage: component.percentage.toFixed(), of, base: base.toFixed(context.minorUnits) },
  };
}
