// A component's quantity held against a level of the subscription (an unmetered input): at
// least a share of it (`floor`: a billing demand not less than 60% of the contract demand), or
// only what is above it (`excessOver`: the demand above the notified maximum demand, priced at
// a penalty rate). Business electricity tariffs bill demand so; the level is the customer's
// own, so tier bounds, the same for every customer, cannot say it. Pure.
import type { Dec } from './money.ts';
import { ZERO } from './money.ts';
import type { ModelContext } from './models/context.ts';
import { shareOfBill } from './models/billShare.ts';
import type { PreparedUnmeteredInput } from './prepareTariff.ts';
import { SPLIT_DECIMALS } from './segments.ts';
import type { BoundTrace } from './trace.ts';

export type PreparedBound = { kind: 'floor' | 'excessOver'; input: PreparedUnmeteredInput; percentage: Dec };

/**
 * The quantity priced against the level: `percentage` / 100 of `level` is the threshold; a
 * floor prices the greater of the quantity and it, an excess what the quantity is above it
 * (0 when not). `shared`: the quantity is a segment's part of the bill's consumption, shared
 * by billed days (a bill spanning a version change), so the threshold is shared the same way
 * (the segments' thresholds add up to the bill's, as the consumption's parts do): the
 * greater of two parts is the part of the greater. Otherwise the whole threshold.
 */
export function boundByLevel(bound: PreparedBound, quantity: Dec, level: Dec, context: ModelContext, shared: boolean): { quantity: Dec; trace: BoundTrace } {
  const whole = level.times(bound.percentage).div(100);
  const seg = context.segment;
  const threshold = shared && seg !== undefined && context.activeDays !== seg.billDays ? shareOfBill(whole, seg.billDays, seg.billDays, context, SPLIT_DECIMALS, 'halfUp') : whole;
  const priced = bound.kind === 'floor' ? (quantity.lt(threshold) ? threshold : quantity) : quantity.gt(threshold) ? quantity.minus(threshold) : ZERO;
  const trace: BoundTrace = {
    kind: bound.kind,
    input: bound.input.code,
    level: level.toFixed(),
    percentage: bound.percentage.toFixed(),
    threshold: threshold.toFixed(),
    of: quantity.toFixed(),
    quantity: priced.toFixed(),
  };
  return { quantity: priced, trace };
}

/** "at least 60% of CONTRACT 100 = 60 kW: 60 kW priced, not 40.0" or "the part above 100% of NMD 80 = 80 kW: 95.0 - 80 = 15.0 kW priced": the bound in words. */
export function explainBound(t: BoundTrace, unit: string): string {
  const u = unit === '' ? '' : ` ${unit}`;
  const of = `${t.percentage}% of ${t.input} ${t.level} = ${t.threshold}${u}`;
  if (t.kind === 'floor') return `at least ${of}: ${t.quantity}${u} priced${t.quantity === t.of ? '' : `, not ${t.of}`}`;
  return `the part above ${of}: ${t.quantity === '0' ? `${t.of}${u} is not above it, 0 priced` : `${t.of} - ${t.threshold} = ${t.quantity}${u} priced`}`;
}
