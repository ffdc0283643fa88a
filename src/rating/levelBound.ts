// A component's quantity held against a threshold the tariff cannot write as a tier bound,
// because it is each customer's own: a share of a level of the subscription (an unmetered
// input), at least (`floor`: a billing demand not less than 60% of the contract demand) or only
// what is above it (`excessOver`: the demand above the notified maximum demand, priced at a
// penalty rate); or a share of the highest demand read in the months before the period (a
// `ratchet`: not less than 75% of the highest of the last eleven months). Business
// electricity tariffs bill demand so. Pure.
import { type Dec, roundMoney, type RoundingMode, ZERO } from './money.ts';
import type { ModelContext } from './models/context.ts';
import { shareOfBill } from './models/billShare.ts';
import type { PreparedMeteredInput, PreparedUnmeteredInput } from './prepareTariff.ts';
import { billedQuantity, readingValue, type LastReadingOnly, type MeterReadings } from './meterReadings.ts';
import { RatingError } from './errors.ts';
import { SPLIT_DECIMALS } from './segments.ts';
import type { BoundTrace, RatchetTrace, ThresholdShare } from './trace.ts';

export type PreparedBound = { kind: 'floor' | 'excessOver'; input: PreparedUnmeteredInput; percentage: Dec };

/**
 * A segment's part of a meter's consumption, the parts before it and the bill's total (as
 * read), and how its priced part is rounded: a conversion's decimals and rule, or
 * SPLIT_DECIMALS half up.
 */
export type PartOfQuantity = { part: Dec; before: Dec; total: Dec; decimals: number; rounding: RoundingMode };

/**
 * The threshold a line is held to: the bill's (`whole`), or, for a segment's part of a metered
 * quantity (`split`), the same share of it as the part is of the bill's quantity, rounded on
 * the running total of the parts (as the consumption is), so the segments' thresholds add up
 * to the bill's and each part is held as the whole is: a floor prices the greater of the
 * parts' sum and the threshold, an excess what the sum is above it, whether the quantity was
 * split by days, by the change date's readings or rounded by a conversion (a reviewer: shared
 * by days, a part split by readings billed 180.00 for 140.00). A bill that measured nothing
 * shares it by billed days. Outside a segment, or for a level: the whole.
 */
function thresholdOf(whole: Dec, split: PartOfQuantity | undefined, context: ModelContext): { threshold: Dec; share?: ThresholdShare } {
  const seg = context.segment;
  if (split === undefined || seg === undefined || context.activeDays === seg.billDays) return { threshold: whole };
  if (split.total.isZero()) {
    return { threshold: shareOfBill(whole, seg.billDays, seg.billDays, context, SPLIT_DECIMALS, 'halfUp'), share: { by: 'days', part: String(context.activeDays), of: String(seg.billDays) } };
  }
  // The threshold's share up to a point, rounded as the priced parts are (on their running total).
  const upTo = (x: Dec) => roundMoney(whole.times(x).div(split.total), split.decimals, split.rounding);
  return { threshold: upTo(split.before.plus(split.part)).minus(upTo(split.before)), share: { by: 'quantity', part: split.part.toFixed(), of: split.total.toFixed() } };
}

/** A trace with the bill's threshold and this part's share of it, in a segment. */
function withShare<T extends { whole?: string; share?: ThresholdShare }>(trace: T, whole: Dec, share: ThresholdShare | undefined): T {
  if (share !== undefined) {
    trace.whole = whole.toFixed();
    trace.share = share;
  }
  return trace;
}

/**
 * The quantity priced against the level: `percentage` / 100 of `level` is the bill's
 * threshold (thresholdOf: a segment's part of a metered quantity is held to its share of it);
 * a floor prices the greater of the quantity and the threshold, an excess what the quantity
 * is above it (0 when not).
 */
export function boundByLevel(bound: PreparedBound, quantity: Dec, level: Dec, context: ModelContext, split: PartOfQuantity | undefined): { quantity: Dec; trace: BoundTrace } {
  const whole = level.times(bound.percentage).div(100);
  const { threshold, share } = thresholdOf(whole, split, context);
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
  return { quantity: priced, trace: withShare(trace, whole, share) };
}

/**
 * A demand ratchet: the quantity priced is at least `percentage` / 100 of the highest demand
 * read in the `months` before the period (`highest`; null when none was: nothing held), a
 * segment's part to its share of it (thresholdOf).
 */
export function ratchetByHistory(
  ratchet: { percentage: Dec; months: number },
  quantity: Dec,
  highest: { date: string; value: Dec; estimated?: boolean } | null,
  context: ModelContext,
  split: PartOfQuantity | undefined,
): { quantity: Dec; trace: RatchetTrace } {
  const whole = highest === null ? ZERO : highest.value.times(ratchet.percentage).div(100);
  const { threshold, share } = highest === null ? { threshold: ZERO, share: undefined } : thresholdOf(whole, split, context);
  const priced = quantity.lt(threshold) ? threshold : quantity;
  const trace: RatchetTrace = {
    months: ratchet.months,
    percentage: ratchet.percentage.toFixed(),
    highest: highest === null ? null : highest.estimated === true ? { date: highest.date, value: highest.value.toFixed(), estimated: true } : { date: highest.date, value: highest.value.toFixed() },
    threshold: threshold.toFixed(),
    of: quantity.toFixed(),
    quantity: priced.toFixed(),
  };
  return { quantity: priced, trace: withShare(trace, whole, share) };
}

/**
 * The highest demand a ratchet holds to, from the meter's readings as the run gives them
 * (MeterReadings.ratchet), in the units the meter's lines price (its conversion applied, as
 * to the demand itself); null when none was read. Not given at all is MISSING_READING: a
 * caller that forgot the history must not bill as if there were none.
 */
export function ratchetHistory(meter: PreparedMeteredInput, readings: MeterReadings | LastReadingOnly | undefined | null, months: number): { date: string; value: Dec; estimated?: boolean } | null {
  const given = (readings as MeterReadings | undefined)?.ratchet?.[String(months)];
  if (given === undefined) {
    throw new RatingError('MISSING_READING', `the demand history of ${meter.code} over the ${months} month(s) before the period was not given (a ratchet needs it)`, [
      { path: `readings.${meter.code}.ratchet.${months}`, message: 'missing' },
    ]);
  }
  if (given === null) return null;
  const value = readingValue(meter, given, `ratchet.${months}`);
  return { date: given.date, value: billedQuantity(meter, value).quantity, ...(given.estimated === true ? { estimated: true } : {}) };
}

/**
 * A line's quantity held as its component says (rateBill and rateSegments alike): first to its
 * ratchet, on a metered input (the history as the run gave it), then to its floor or excess
 * over the level given. Answers the quantity, the traces, and whether an estimated demand held
 * it up (the bill then rests on an estimate).
 */
export function holdQuantity(
  c: { ratchet: { percentage: Dec; months: number } | null; bound: PreparedBound | null; input: PreparedMeteredInput | PreparedUnmeteredInput | null },
  quantity: Dec,
  o: { readings: MeterReadings | LastReadingOnly | undefined | null; level: () => Dec; context: ModelContext; split: PartOfQuantity | undefined },
): { quantity: Dec; ratchet?: RatchetTrace; bound?: BoundTrace; onEstimate: boolean } {
  const out: { quantity: Dec; ratchet?: RatchetTrace; bound?: BoundTrace; onEstimate: boolean } = { quantity, onEstimate: false };
  if (c.ratchet !== null && c.input?.kind === 'metered') {
    const held = ratchetByHistory(c.ratchet, out.quantity, ratchetHistory(c.input, o.readings, c.ratchet.months), o.context, o.split);
    out.quantity = held.quantity;
    out.ratchet = held.trace;
    out.onEstimate = held.trace.highest?.estimated === true && held.trace.quantity !== held.trace.of;
  }
  if (c.bound !== null) {
    const held = boundByLevel(c.bound, out.quantity, o.level(), o.context, o.split);
    out.quantity = held.quantity;
    out.bound = held.trace;
  }
  return out;
}

/** " for the bill, 30 kW of it in this part (20 of the bill's 40 kW)": a segment's share of a bill's threshold in words. */
function partWords(t: { threshold: string; share?: ThresholdShare }, u: string): string {
  if (t.share === undefined) return '';
  // The part and the whole as read (a converted meter's in its own unit): the share of the consumption, no unit said.
  const of = t.share.by === 'days' ? `${t.share.part} of the bill's ${t.share.of} days` : `its part of the consumption, ${t.share.part} of ${t.share.of}`;
  return ` for the bill, ${t.threshold}${u} of it in this part (${of})`;
}

/** "at least 75% of the highest demand of the 11 month(s) before, 80 on 31/07/2026, = 60 kW: 60 kW priced, not 40". */
export function explainRatchet(t: RatchetTrace, unit: string, day: (iso: string) => string): string {
  const u = unit === '' ? '' : ` ${unit}`;
  if (t.highest === null) return `no demand read in the ${t.months} month(s) before to hold it to`;
  const of = `${t.percentage}% of the highest demand of the ${t.months} month(s) before, ${t.highest.value}${t.highest.estimated ? ' (estimated)' : ''} on ${day(t.highest.date)}, = ${t.whole ?? t.threshold}${u}${partWords(t, u)}`;
  return `at least ${of}: ${t.quantity}${u} priced${t.quantity === t.of ? '' : `, not ${t.of}`}`;
}

/** "at least 60% of CONTRACT 100 = 60 kW: 60 kW priced, not 40" or "the part above 100% of NMD 80 = 80 kW: 95 - 80 = 15 kW priced": the bound in words. */
export function explainBound(t: BoundTrace, unit: string): string {
  const u = unit === '' ? '' : ` ${unit}`;
  const of = `${t.percentage}% of ${t.input} ${t.level} = ${t.whole ?? t.threshold}${u}${partWords(t, u)}`;
  if (t.kind === 'floor') return `at least ${of}: ${t.quantity}${u} priced${t.quantity === t.of ? '' : `, not ${t.of}`}`;
  return `the part above ${of}: ${t.quantity === '0' ? `${t.of}${u} is not above it, 0 priced` : `${t.of} - ${t.threshold} = ${t.quantity}${u} priced`}`;
}
