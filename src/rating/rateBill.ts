import { holdQuantity } from './levelBound.ts';
import { shareOfConsumption } from './inputShare.ts';
import { apiDate, dateOfDay, dayNumber } from './days.ts';
import { RatingError } from './errors.ts';
import { checkAmountLimit, Dec, DECIMAL_TEXT, formatMinorUnits, minorUnitsOf, parseDecimal, ROUNDING_MODES, type RoundingMode, ZERO } from './money.ts';
import type { ModelContext } from './models/context.ts';
import { type PreparedTariff, type PreparedUnmeteredInput, prepareTariff } from './prepareTariff.ts';
import { billedQuantity, forEachMeter, type LastReadingOnly, type MeterReadings, meterConsumption } from './meterReadings.ts';
import { type LineSettings, type RatedLine, rateLine } from './rateLine.ts';
import type { Tariff } from './tariff.ts';
import type { InputTrace, ReadingTrace, SuspendedPeriod } from './trace.ts';
import type { TariffVersion } from './segments.ts';
import { levelChangesWithin, rateSegmentedBill } from './rateSegments.ts';

export type { ReadingPoint, MeterReadings, LastReadingOnly } from './meterReadings.ts';

/**
 * Everything one bill is rated from: plain data, built from database rows.
 * The tariff object is prepared once and cached by identity: pass the same
 * object for every bill of a term, and do not mutate it afterwards.
 */
export type RateBillInput = {
  tariff: Tariff;
  /** The billing period, both dates included, 'YYYY-MM-DD'. */
  term: { start: string; end: string };
  subscription: {
    /** First active day, included. */
    startDate: string;
    /** Last active day, included; absent or null while connected. */
    endDate?: string | null;
    /** Quantities of unmetered inputs by code (e.g. { rooms: 3 }); a missing one takes the input's default. */
    unmetered?: Readonly<Record<string, string | number>>;
    /**
     * Periods the subscription was suspended, 'YYYY-MM-DD', both dates included; `end`
     * absent or null while still suspended. Their days inside the active period are not
     * billed: they are taken off activeDays. They may overlap or reach outside the term.
     */
    suspended?: readonly { start: string; end?: string | null }[];
    /**
     * Values the unmetered inputs take from a later day of the bill (update-subscription's
     * date), 'YYYY-MM-DD', in date order: `unmetered` holds on the first billed day, each of
     * these from its day on. The bill is then rated in segments cut at those days (5 seats
     * then 10 from the 15th: each part its days), like a version change; a day outside the
     * billed days changes nothing. Needs `versions` (one version is enough) for the segments'
     * version numbers.
     */
    levels?: readonly { from: string; unmetered: Readonly<Record<string, string | number>> }[];
  };
  /** Readings by metered input code. A metered input some component uses must have them. */
  readings?: Readonly<Record<string, MeterReadings | LastReadingOnly | undefined>>;
  /** Decimals of the currency's minor unit: 2 for cents, 0 for yen. */
  minorUnits: number;
  /** Default 'halfUp'. */
  rounding?: RoundingMode;
  /** The account's balance before this bill, decimal text; default "0". */
  balanceBroughtForward?: string | number;
  /**
   * The template versions in force over the term, in date order (segments.ts, versionTimeline),
   * when the term spans a version change: the bill is then rated in segments, one per
   * version in force over the subscription's part of the term, and `tariff` is not used.
   * Absent or one version: `tariff` (or that version's) rates the whole bill, as before.
   */
  versions?: readonly TariffVersion[];
  /**
   * Effective readings dated on a change date (a later version's first day), by metered
   * input code and date: they split the consumption between the segments (segments.ts).
   */
  changeReadings?: Readonly<Record<string, Readonly<Record<string, string | number>> | undefined>>;
};

export type RatedBill = {
  /** In the template's component order. */
  lines: RatedLine[];
  /** Sum of the rounded 'charge' lines. */
  charges: string;
  /** Sum of the rounded 'tax' lines. */
  tax: string;
  /** charges + tax. */
  total: string;
  balanceBroughtForward: string;
  /** total + balanceBroughtForward. */
  totalDue: string;
  /** Days of the term the subscription is connected and not suspended: the days billed. */
  activeDays: number;
  termDays: number;
  /** The part of the term the subscription is connected, both dates included (suspended days inside it are listed below). */
  activePeriod: { start: string; end: string };
  /** Days of activePeriod the subscription was suspended (not billed). */
  suspendedDays: number;
  /** Those days as periods inside activePeriod, merged and in date order; empty when none. */
  suspendedPeriods: SuspendedPeriod[];
  /** True when a reading used by the bill is an estimate. */
  estimated: boolean;
  /** The segments the bill was rated in, when the term spans a version change; absent otherwise. */
  segments?: BillSegment[];
};

/** A segment of a bill: the version in force and its dates (its lines carry the same in trace.segment). */
export type BillSegment = { version: number; start: string; end: string; days: number; suspendedDays: number };

/**
 * Rates one bill. Pure: the same input always gives the same bill.
 * Throws RatingError (code + message) for data that cannot make a correct
 * bill: never a bill with a guessed amount.
 */
export function rateBill(input: RateBillInput): RatedBill {
  const versions = input.versions;
  const prepared = prepareTariff(versions !== undefined && versions.length === 1 ? (versions[0] as TariffVersion).tariff : input.tariff);

  const minorUnits = input.minorUnits;
  if (!Number.isInteger(minorUnits) || minorUnits < 0 || minorUnits > 8) {
    throw new RatingError('INVALID_CURRENCY', `minorUnits must be an integer from 0 to 8, not ${String(minorUnits)}`);
  }
  const rounding = input.rounding ?? 'halfUp';
  if (!ROUNDING_MODES.includes(rounding)) {
    throw new RatingError('INVALID_CURRENCY', `unknown rounding mode ${JSON.stringify(rounding)}`);
  }
  const settings: LineSettings = { minorUnits, rounding };

  // ---- days
  const termStart = dayNumber(input.term.start, 'term.start');
  const termEnd = dayNumber(input.term.end, 'term.end');
  if (termEnd < termStart) {
    throw new RatingError('INVALID_PERIOD', `term ends (${apiDate(input.term.end)}) before it starts (${apiDate(input.term.start)})`);
  }
  const sub = input.subscription;
  const subStart = dayNumber(sub.startDate, 'subscription.startDate');
  const subEnd = sub.endDate === undefined || sub.endDate === null ? null : dayNumber(sub.endDate, 'subscription.endDate');
  if (subEnd !== null && subEnd < subStart) {
    throw new RatingError('INVALID_PERIOD', `subscription ends (${apiDate(String(sub.endDate))}) before it starts (${apiDate(sub.startDate)})`);
  }
  const activeStart = Math.max(termStart, subStart);
  const activeEnd = subEnd === null ? termEnd : Math.min(termEnd, subEnd);
  const termDays = termEnd - termStart + 1;
  const connectedDays = activeEnd - activeStart + 1;
  if (connectedDays <= 0) {
    throw new RatingError('NOT_ACTIVE', `the subscription is not active between ${apiDate(input.term.start)} and ${apiDate(input.term.end)}`);
  }
  const suspension = suspendedWithin(sub.suspended, activeStart, activeEnd);
  const activeDays = connectedDays - suspension.days;
  if (activeDays <= 0) {
    throw new RatingError('NOT_ACTIVE', `the subscription is suspended on every day it is connected between ${apiDate(input.term.start)} and ${apiDate(input.term.end)}`);
  }

  const levelChanges = levelChangesWithin(sub.levels, activeStart, activeEnd);
  if (levelChanges.length > 0 && (versions === undefined || versions.length === 0)) {
    throw new RatingError('INVALID_TARIFF', 'unmetered inputs that change inside the bill need the versions in force (their numbers name the segments)');
  }
  if (versions !== undefined && (versions.length > 1 || levelChanges.length > 0)) {
    return rateSegmentedBill(input, versions, settings, {
      termStart,
      termEnd,
      activeStart,
      activeEnd,
      activeDays,
      termDays,
      suspension,
      balance: balanceBroughtForward(input.balanceBroughtForward, minorUnits),
      levelChanges,
    });
  }

  // ---- quantities, once per input even when several components use it
  let estimated = false;
  const meterQuantities: Dec[] = [];
  const meterTraces: ReadingTrace[] = [];
  // The unit and decimals each meter's lines are shown in: the meter's, or its conversion's.
  const meterUnits: { unit: string; decimals: number }[] = [];
  forEachMeter(prepared.meteredNeeded, (meter) => {
    const { quantity: consumption, trace } = meterConsumption(meter, input.readings?.[meter.code], activeEnd < termEnd ? dateOfDay(activeEnd) : null);
    meterTraces.push(trace);
    if (meter.conversion === null) {
      // Nothing made for a meter priced as read: a run rates a million bills (issue 15).
      meterQuantities.push(consumption);
      meterUnits.push(meter);
    } else {
      const billed = billedQuantity(meter, consumption);
      trace.conversion = billed.conversion;
      meterQuantities.push(billed.quantity);
      meterUnits.push(billed);
    }
    if (trace.estimated) estimated = true;
  });
  const unmeteredQuantities: Dec[] = [];
  const unmeteredTraces: InputTrace[] = [];
  for (const u of prepared.unmeteredNeeded) {
    const { quantity, trace } = unmeteredQuantity(u, sub.unmetered?.[u.code]);
    unmeteredQuantities.push(quantity);
    unmeteredTraces.push(trace);
  }

  // ---- lines, in dependency order
  const amounts: (Dec | undefined)[] = new Array(prepared.components.length);
  const minors: bigint[] = new Array(prepared.components.length);
  const lines: RatedLine[] = new Array(prepared.components.length);
  const context: ModelContext = { activeDays, termDays, minorUnits, rounding, amounts };
  if (suspension.days > 0) context.suspended = { days: suspension.days, periods: suspension.periods };
  const byReadingPeriod = usesReadingPeriod(prepared);
  for (const c of prepared.evaluationOrder) {
    let quantity = ZERO;
    let source: Parameters<typeof rateLine>[4] = {};
    const inp = c.input;
    if (byReadingPeriod) delete context.readingDays;
    if (inp !== null) {
      if (inp.kind === 'metered') {
        const billed = meterUnits[inp.slot] as { unit: string; decimals: number };
        const shared = shareOfConsumption(c.inputShare, meterQuantities[inp.slot] as Dec, context);
        quantity = shared.quantity;
        source = { reading: meterTraces[inp.slot] as ReadingTrace, unit: billed.unit };
        if (shared.trace !== undefined) source.share = shared.trace;
        if (byReadingPeriod) context.readingDays = readingDays(meterTraces[inp.slot] as ReadingTrace);
      } else {
        quantity = unmeteredQuantities[inp.slot] as Dec;
        source = { input: unmeteredTraces[inp.slot] as InputTrace };
      }
      if (c.ratchet !== null || c.bound !== null) {
        const bound = c.bound;
        const held = holdQuantity(c, quantity, { readings: input.readings?.[inp.code], level: () => unmeteredQuantities[bound!.input.slot] as Dec, context, split: undefined });
        quantity = held.quantity;
        if (held.ratchet !== undefined) source.ratchet = held.ratchet;
        if (held.bound !== undefined) source.bound = held.bound;
        // Held up by an estimated demand: the bill rests on an estimate (the cascade lists it when the estimate is replaced).
        if (held.onEstimate) estimated = true;
      }
      if (inp.kind === 'metered') source.decimals = Math.max((meterUnits[inp.slot] as { decimals: number }).decimals, quantity.decimalPlaces());
    }
    const { line, amount, minor } = rateLine(c, quantity, context, settings, source);
    amounts[c.index] = amount;
    minors[c.index] = minor;
    lines[c.index] = line;
  }

  // ---- totals: sums of rounded lines, so the bill adds up as printed (in minor units: exact)
  let charges = 0n;
  let tax = 0n;
  for (const c of prepared.components) {
    if (c.category === 'tax') tax += minors[c.index] as bigint;
    else charges += minors[c.index] as bigint;
  }
  const total = charges + tax;
  const balance = balanceBroughtForward(input.balanceBroughtForward, minorUnits);
  // Each line, then the bill's own sums: what the bill row and the ledger keep.
  for (const c of prepared.components) checkAmountLimit(minors[c.index] as bigint, minorUnits, `the line ${c.code}`);
  checkAmountLimit(total, minorUnits, 'the total');
  checkAmountLimit(total + balance, minorUnits, 'the total due');

  return {
    lines,
    charges: formatMinorUnits(charges, minorUnits),
    tax: formatMinorUnits(tax, minorUnits),
    total: formatMinorUnits(total, minorUnits),
    balanceBroughtForward: formatMinorUnits(balance, minorUnits),
    totalDue: formatMinorUnits(total + balance, minorUnits),
    activeDays,
    termDays,
    activePeriod: {
      start: activeStart === termStart ? input.term.start : sub.startDate,
      end: activeEnd === termEnd ? input.term.end : (sub.endDate as string),
    },
    suspendedDays: suspension.days,
    suspendedPeriods: suspension.periods,
    estimated,
  };
}

/**
 * The suspended days inside [from, to] (day numbers, both included): the periods
 * clipped to it, merged where they overlap or touch, in date order. Overlapping input
 * periods count their common days once.
 */
export function suspendedWithin(
  periods: RateBillInput['subscription']['suspended'],
  from: number,
  to: number,
): { days: number; periods: SuspendedPeriod[] } {
  if (periods === undefined || periods === null || periods.length === 0) return { days: 0, periods: [] };
  const spans: [number, number][] = [];
  periods.forEach((p, i) => {
    const path = `subscription.suspended[${i}]`;
    const start = dayNumber(p?.start, `${path}.start`);
    const end = p.end === undefined || p.end === null ? null : dayNumber(p.end, `${path}.end`);
    if (end !== null && end < start) {
      throw new RatingError('INVALID_PERIOD', `suspension ends (${apiDate(String(p.end))}) before it starts (${apiDate(p.start)})`, [
        { path: `${path}.end`, message: 'before the start' },
      ]);
    }
    const a = Math.max(start, from);
    const b = end === null ? to : Math.min(end, to);
    if (a <= b) spans.push([a, b]);
  });
  spans.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  let days = 0;
  for (const [a, b] of merged) days += b - a + 1;
  return { days, periods: merged.map(([a, b]) => ({ start: dateOfDay(a), end: dateOfDay(b) })) };
}

export function unmeteredQuantity(u: PreparedUnmeteredInput, given: string | number | undefined): { quantity: Dec; trace: InputTrace } {
  const path = `subscription.unmetered.${u.code}`;
  let quantity: Dec;
  let source: InputTrace['source'];
  if (given === undefined || given === null) {
    if (u.default === null) {
      throw new RatingError('MISSING_INPUT', `the subscription has no '${u.code}' and the input has no default`, [
        { path, message: 'missing' },
      ]);
    }
    quantity = u.default;
    source = 'default';
  } else {
    const q = parseDecimal(given);
    if (q === null) {
      throw new RatingError('INVALID_INPUT', `'${u.code}' is not a decimal number: ${JSON.stringify(given)}`, [
        { path, message: 'not a decimal number' },
      ]);
    }
    quantity = q;
    source = 'subscription';
  }
  if (quantity.isNegative() && !quantity.isZero()) {
    throw new RatingError('INVALID_INPUT', `'${u.code}' is negative: ${quantity.toFixed()}`, [{ path, message: 'negative' }]);
  }
  return { quantity, trace: { input: u.code, value: quantity.toFixed(), source } };
}

const readingPeriodUse = new WeakMap<PreparedTariff, boolean>();

/** True when a component prorates its tier bounds by the reading period (cached per prepared tariff). */
export function usesReadingPeriod(prepared: PreparedTariff): boolean {
  let uses = readingPeriodUse.get(prepared);
  if (uses === undefined) {
    uses = prepared.components.some((c) => (c as { tierProration?: { period?: string } | null }).tierProration?.period === 'readingPeriod');
    readingPeriodUse.set(prepared, uses);
  }
  return uses;
}

/** Days between the two readings a line used: tier proration by the reading period. */
export function readingDays(r: ReadingTrace): Dec {
  return new Dec(dayNumber(r.current.date) - dayNumber(r.previous.date));
}

/** The balance brought forward in minor units; a balance finer than the minor unit is refused. */
function balanceBroughtForward(x: string | number | undefined, minorUnits: number): bigint {
  if (x === undefined) return 0n;
  const text = typeof x === 'number' ? (Number.isFinite(x) ? (parseDecimal(x) as Dec).toFixed() : '') : x;
  if (typeof text !== 'string' || !DECIMAL_TEXT.test(text)) throw new RatingError('INVALID_BALANCE', `balanceBroughtForward is not a decimal number: ${JSON.stringify(x)}`);
  const units = minorUnitsOf(text, minorUnits);
  // A balance finer than the minor unit was never a real balance; rounding it here would hide the bug.
  if (units === null) throw new RatingError('INVALID_BALANCE', `balanceBroughtForward ${new Dec(text).toFixed()} has more than ${minorUnits} decimals`);
  return units;
}
