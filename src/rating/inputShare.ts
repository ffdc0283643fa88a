// A share of a meter's consumption priced instead of the whole (a component's inputShare,
// models/model.ts InputShare): sewage on 70% of the water used, at most 35 kL a bill, as a
// municipal bill prints it ("Sewerage: 70% of 40 kL = 28 kL"). Pure.
import type { ModelContext } from './models/context.ts';
import { partOfBill, shareOfBill } from './models/billShare.ts';
import { type Dec } from './money.ts';
import { SPLIT_DECIMALS } from './segments.ts';
import type { ShareTrace } from './trace.ts';

/**
 * The quantity a component prices of its meter's (billed) consumption: percentage / 100 of
 * it, exact, at most `maximum`; in a segment of a bill spanning a version change the maximum
 * is the segment's share of it by billed days, rounded on the running total of days as the
 * consumption is split (the segments' maxima add up to the bill's). No share: the whole.
 */
export function shareOfConsumption(share: { percentage: Dec; maximum: Dec | null } | null, consumption: Dec, context: ModelContext): { quantity: Dec; trace?: ShareTrace } {
  if (share === null) return { quantity: consumption };
  const part = consumption.times(share.percentage).div(100);
  const trace: ShareTrace = { of: consumption.toFixed(), percentage: share.percentage.toFixed(), share: part.toFixed(), quantity: part.toFixed() };
  if (share.maximum === null) return { quantity: part, trace };
  const seg = partOfBill(context);
  const maximum = seg === undefined ? share.maximum : shareOfBill(share.maximum, seg.billDays, seg.billDays, context, SPLIT_DECIMALS, 'halfUp');
  trace.maximum = maximum.toFixed();
  if (!part.gt(maximum)) return { quantity: part, trace };
  trace.quantity = maximum.toFixed();
  return { quantity: maximum, trace };
}

/** "70% of 40 = 28" or "70% of 60 = 42, at most 35: 35": the share in words. */
export function explainShare(t: ShareTrace, unit: string): string {
  const u = unit === '' ? '' : ` ${unit}`;
  const capped = t.quantity === t.share ? '' : `, at most ${t.maximum}${u}: ${t.quantity}${u}`;
  return `${t.percentage}% of ${t.of}${u} = ${t.share}${u}${capped}`;
}
