// A bill whose term spans a template version change: rated in segments, one per version
// in force over the subscription's part of the term (segments.ts splits the days and the
// consumption), each segment's lines by its own version, in date order.
import { shareOfConsumption } from './inputShare.ts';
import { holdQuantity, type PartOfQuantity } from './levelBound.ts';
import { dateOfDay, dayNumber } from './days.ts';
import { RatingError } from './errors.ts';
import { checkAmountLimit, type Dec, formatMinorUnits, parseDecimal, ZERO } from './money.ts';
import type { ModelContext, SegmentOfBill } from './models/context.ts';
import { billedQuantity, type ConvertedSoFar, forEachMeter, meterConsumption } from './meterReadings.ts';
import { type PreparedMeteredInput, type PreparedTariff, prepareTariff } from './prepareTariff.ts';
import { type BillSegment, type RateBillInput, type RatedBill, readingDays, unmeteredQuantity, usesReadingPeriod } from './rateBill.ts';
import { type LineSettings, type RatedLine, rateLine } from './rateLine.ts';
import { SPLIT_DECIMALS, type SplitMeter, splitSegmentDays, type TariffVersion, type VersionDays, type VersionPiece } from './segments.ts';
import type { LineTrace, ReadingTrace, SegmentTrace, SuspendedPeriod } from './trace.ts';

export type BillDays = {
  termStart: number;
  termEnd: number;
  activeStart: number;
  activeEnd: number;
  activeDays: number;
  termDays: number;
  suspension: { days: number; periods: SuspendedPeriod[] };
  /** In minor units (money.ts, minorUnitsOf). */
  balance: bigint;
  /** The days inside the billed days on which the unmetered inputs change (rateBill's levels), in date order. */
  levelChanges: readonly LevelChange[];
};

/** A day the unmetered inputs take new values on, as a day number. */
export type LevelChange = { day: number; unmetered: Readonly<Record<string, string | number>> };

/** The subscription's level changes inside the billed days, parsed and in date order: empty when none. */
export function levelChangesWithin(levels: RateBillInput['subscription']['levels'], activeStart: number, activeEnd: number): LevelChange[] {
  if (levels === undefined || levels.length === 0) return [];
  return levels
    .map((l) => ({ day: dayNumber(l.from, 'subscription.levels.from'), unmetered: l.unmetered }))
    .filter((c) => c.day > activeStart && c.day <= activeEnd)
    .sort((a, b) => a.day - b.day);
}

/** The term's version pieces from the versions in force (each from its `from` to the day before the next's). */
export function versionPieces(versions: readonly TariffVersion[], termStart: number, termEnd: number): VersionPiece[] {
  const pieces: VersionPiece[] = [];
  versions.forEach((v, i) => {
    const from = Math.max(termStart, dayNumber(v.from, `versions[${i}].from`));
    const next = versions[i + 1];
    const to = next === undefined ? termEnd : Math.min(termEnd, dayNumber(next.from, `versions[${i + 1}].from`) - 1);
    if (from <= to) pieces.push({ version: v.version, start: dateOfDay(from), end: dateOfDay(to) });
  });
  return pieces;
}

type PreparedVersions = { termStart: number; termEnd: number; prepared: Map<number, PreparedTariff>; pieces: VersionDays[] };

// The bill run passes the same versions array for every bill of a term: its tariffs are
// prepared and its pieces parsed once (keyed by the array, with the term's days).
const preparedVersions = new WeakMap<readonly TariffVersion[], PreparedVersions>();

function prepareVersions(versions: readonly TariffVersion[], termStart: number, termEnd: number): PreparedVersions {
  const hit = preparedVersions.get(versions);
  if (hit !== undefined && hit.termStart === termStart && hit.termEnd === termEnd) return hit;
  const prepared = new Map<number, PreparedTariff>();
  for (const v of versions) prepared.set(v.version, prepareTariff(v.tariff));
  const pieces = versionPieces(versions, termStart, termEnd).map((p) => ({ version: p.version, start: dayNumber(p.start), end: dayNumber(p.end) }));
  const made = { termStart, termEnd, prepared, pieces };
  preparedVersions.set(versions, made);
  return made;
}

/**
 * The version pieces cut again at each day the unmetered inputs change inside the billed
 * days (rateBill's levels), each part with the values in force over it: a change of rooms or
 * seats from the 15th bills each value for its own days, as a version change does.
 */
function cutAtLevels(pieces: readonly VersionDays[], changes: readonly LevelChange[], first: Readonly<Record<string, string | number>>, activeStart: number, activeEnd: number): readonly VersionDays[] {
  if (changes.length === 0) return pieces;
  const valueOn = (day: number) => {
    let value = first;
    for (const c of changes) if (c.day <= day) value = c.unmetered;
    return value;
  };
  const out: VersionDays[] = [];
  for (const p of pieces) {
    let start = Math.max(p.start, activeStart);
    const end = Math.min(p.end, activeEnd);
    for (const c of changes) {
      if (c.day <= start || c.day > end) continue;
      out.push({ version: p.version, start, end: c.day - 1, unmetered: valueOn(start) });
      start = c.day;
    }
    out.push({ version: p.version, start, end, unmetered: valueOn(start) });
  }
  return out;
}

export function rateSegmentedBill(input: RateBillInput, versions: readonly TariffVersion[], settings: LineSettings, d: BillDays): RatedBill {
  const { prepared, pieces } = prepareVersions(versions, d.termStart, d.termEnd);
  const activePeriod = { start: dateOfDay(d.activeStart), end: dateOfDay(d.activeEnd) };
  const inPeriod = cutAtLevels(
    pieces.filter((p) => p.end >= d.activeStart && p.start <= d.activeEnd),
    d.levelChanges,
    input.subscription.unmetered ?? {},
    d.activeStart,
    d.activeEnd,
  );

  // ---- each meter any segment's version uses: its consumption once, for the whole bill
  const meters: Record<string, SplitMeter> = {};
  const readingTraces = new Map<string, ReadingTrace>();
  let estimated = false;
  const endsEarly = d.activeEnd < d.termEnd ? activePeriod.end : null;
  const seen = new Set<string>();
  const used = inPeriod.flatMap((p) => (prepared.get(p.version) as PreparedTariff).meteredNeeded).filter((m) => !seen.has(m.code) && Boolean(seen.add(m.code)));
  forEachMeter(used, (meter) => {
    const { quantity, trace, previous, current } = meterConsumption(meter, input.readings?.[meter.code], endsEarly);
    readingTraces.set(meter.code, trace);
    if (trace.estimated) estimated = true;
    meters[meter.code] = {
      previous: { date: trace.previous.date, value: previous },
      current: { date: trace.current.date, value: current },
      quantity,
      decimals: meter.decimals,
      rolloverAt: meter.rolloverAt,
      // A demand read on a change date is the highest up to it, not a point the period's
      // demand is split at: a demand register's quantity is shared by days (docs/rating.md).
      onChangeDates: meter.register === 'maximum' ? undefined : changeReadings(meter, input.changeReadings?.[meter.code]),
    };
  });
  const suspended = d.suspension.periods.map((p) => [dayNumber(p.start), dayNumber(p.end)] as const);
  const segments = splitSegmentDays(d.activeStart, d.activeEnd, suspended, inPeriod, meters);

  // ---- each segment's lines, by its own version, in date order: a rule given once per bill
  // (a commitment, a line's limits, a package's started block) reads the earlier segments'
  // lines through context.segment.segments (models/billShare.ts).
  const lines: RatedLine[] = [];
  const billSegments: BillSegment[] = [];
  const ofBill: SegmentOfBill[] = segments.map((seg) => {
    const tariff = prepared.get(seg.version) as PreparedTariff;
    const n = tariff.components.length;
    return { version: seg.version, start: seg.start, days: seg.days, components: tariff.byCode, amounts: new Array<Dec | undefined>(n), traces: new Array<LineTrace | undefined>(n) };
  });
  // The bill's sums in minor units (money.ts): exact, as rateBill adds them.
  let charges = 0n;
  let tax = 0n;
  let daysBefore = 0;
  const sub = input.subscription;
  // Each converted meter's parts so far (billedQuantity): a part is rounded on the running total.
  const converted = new Map<string, ConvertedSoFar>();
  /**
   * A meter's part of the consumption in a segment, the parts before it and the bill's, over
   * every segment (a version that does not price the meter still has its part of the days): a
   * part held against a threshold is held to the same share of it (levelBound.ts). Rounded as
   * the part is priced: to a conversion's decimals by its rule, so a customer exactly on the
   * threshold is on it in every part; else to SPLIT_DECIMALS. (A reviewer: shared by days, a
   * part split by the change date's readings or rounded by a conversion was held wrongly, and
   * counted over the priced segments alone, a half month was held to the whole month's.)
   */
  const partOf = (meter: PreparedMeteredInput, index: number): PartOfQuantity => {
    let before = ZERO;
    let total = ZERO;
    segments.forEach((s, i) => {
      const q = s.consumption[meter.code]?.quantity ?? ZERO;
      if (i < index) before = before.plus(q);
      total = total.plus(q);
    });
    const part = segments[index]?.consumption[meter.code]?.quantity ?? ZERO;
    const c = meter.conversion;
    return c === null ? { part, before, total, decimals: SPLIT_DECIMALS, rounding: 'halfUp' } : { part, before, total, decimals: c.decimals, rounding: c.rounding };
  };
  segments.forEach((seg, index) => {
    const billedHere = new Map<string, ReturnType<typeof billedQuantity>>();
    billSegments.push({ version: seg.version, start: seg.start, end: seg.end, days: seg.days, suspendedDays: seg.suspendedDays });
    if (seg.days === 0) return; // suspended throughout: nothing billed in it
    const tariff = prepared.get(seg.version) as PreparedTariff;
    const here = ofBill[index] as SegmentOfBill;
    const amounts = here.amounts as (Dec | undefined)[];
    const traces = here.traces as (LineTrace | undefined)[];
    const segLines: RatedLine[] = new Array(tariff.components.length);
    const minors: bigint[] = new Array(tariff.components.length);
    const context: ModelContext = {
      activeDays: seg.days,
      termDays: d.termDays,
      minorUnits: settings.minorUnits,
      rounding: settings.rounding,
      amounts,
      segment: { version: seg.version, start: seg.start, end: seg.end, billDays: d.activeDays, daysBefore, index, segments: ofBill },
    };
    daysBefore += seg.days;
    if (seg.suspendedDays > 0) context.suspended = { days: seg.suspendedDays, periods: seg.suspended };
    const byReadingPeriod = usesReadingPeriod(tariff);
    for (const c of tariff.evaluationOrder) {
      let quantity = ZERO;
      let source: Parameters<typeof rateLine>[4] = {};
      const segment: SegmentTrace = { version: seg.version, start: seg.start, end: seg.end, days: seg.days };
      if (seg.suspendedDays > 0) segment.suspendedDays = seg.suspendedDays;
      if (byReadingPeriod) delete context.readingDays;
      const inp = c.input;
      if (inp !== null && inp.kind === 'metered' && c.levelInput) {
        // A level priced by the day (a demand per kW per day): the meter's whole quantity in
        // every segment, each segment's days in the price, so nothing is shared by days here.
        const whole = (meters[inp.code] as SplitMeter).quantity;
        const billed = billedQuantity(inp, whole);
        quantity = billed.quantity;
        source = { reading: readingTraces.get(inp.code) as ReadingTrace, unit: billed.unit, decimals: Math.max(billed.decimals, quantity.decimalPlaces()), segment };
        // Said in the segment's trace, with the conversion by this version's factor (a reviewer: it was kept nowhere).
        segment.consumption = { input: inp.code, quantity: whole.toFixed(inp.decimals), by: 'whole' };
        if (billed.conversion !== undefined) segment.consumption.conversion = billed.conversion;
      } else if (inp !== null && inp.kind === 'metered') {
        const part = seg.consumption[inp.code];
        const trace = readingTraces.get(inp.code) as ReadingTrace;
        const consumption = part?.quantity ?? ZERO;
        // A part shared by days has up to SPLIT_DECIMALS: shown as it is priced, at least to the meter's decimals.
        const partDecimals = Math.max(inp.decimals, consumption.decimalPlaces());
        // Converted by the segment's own version (a factor that changes with the version), once
        // a segment, whichever of its lines asks first.
        let billed = billedHere.get(inp.code);
        if (billed === undefined) {
          billed = billedQuantity(inp, consumption, converted.get(inp.code));
          if (billed.soFar !== undefined) converted.set(inp.code, billed.soFar);
          billedHere.set(inp.code, billed);
        }
        const shared = shareOfConsumption(c.inputShare, billed.quantity, context);
        quantity = shared.quantity;
        const decimals = Math.max(billed.conversion === undefined ? partDecimals : billed.decimals, quantity.decimalPlaces());
        source = { reading: trace, unit: billed.unit, decimals, segment };
        if (shared.trace !== undefined) source.share = shared.trace;
        segment.consumption = { input: inp.code, quantity: consumption.toFixed(partDecimals), by: part?.by ?? 'days' };
        if (part?.from !== undefined) segment.consumption.from = part.from;
        if (part?.to !== undefined) segment.consumption.to = part.to;
        if (billed.conversion !== undefined) segment.consumption.conversion = billed.conversion;
        // The whole bill's reading period: the tier bounds take the segment's share of it (models/tiers.ts).
        if (byReadingPeriod) context.readingDays = readingDays(trace);
      } else if (inp !== null) {
        const u = unmeteredQuantity(inp, (seg.unmetered ?? sub.unmetered)?.[inp.code]);
        quantity = u.quantity;
        source = { input: u.trace, segment };
      } else source = { segment };
      if ((c.ratchet !== null || c.bound !== null) && inp !== null) {
        // The level in force over the segment; a metered part shared with the bill's other
        // segments is held to the same part of the threshold (levelBound.ts).
        const bound = c.bound;
        const held = holdQuantity(c, quantity, {
          readings: inp.kind === 'metered' ? input.readings?.[inp.code] : undefined,
          level: () => unmeteredQuantity(bound!.input, (seg.unmetered ?? sub.unmetered)?.[bound!.input.code]).quantity,
          context,
          split: inp.kind === 'metered' && !c.levelInput ? partOf(inp, index) : undefined,
        });
        quantity = held.quantity;
        if (held.ratchet !== undefined) source.ratchet = held.ratchet;
        if (held.bound !== undefined) source.bound = held.bound;
        // Held up by an estimated demand: the bill rests on an estimate (the cascade lists it when the estimate is replaced).
        if (held.onEstimate) estimated = true;
        if (source.decimals !== undefined) source.decimals = Math.max(source.decimals, quantity.decimalPlaces());
      }
      const { line, amount, minor } = rateLine(c, quantity, context, settings, source);
      checkAmountLimit(minor, settings.minorUnits, `the line ${c.code}`);
      amounts[c.index] = amount;
      minors[c.index] = minor;
      traces[c.index] = line.trace;
      segLines[c.index] = line;
    }
    for (const c of tariff.components) {
      if (c.category === 'tax') tax += minors[c.index] as bigint;
      else charges += minors[c.index] as bigint;
      lines.push(segLines[c.index] as RatedLine);
    }
  });

  const total = charges + tax;
  // The bill's own sums (each line was checked as it was rated): what the bill row and the ledger keep.
  checkAmountLimit(total, settings.minorUnits, 'the total');
  checkAmountLimit(total + d.balance, settings.minorUnits, 'the total due');
  const minorUnits = settings.minorUnits;
  const sub0 = input.subscription;
  return {
    lines,
    charges: formatMinorUnits(charges, minorUnits),
    tax: formatMinorUnits(tax, minorUnits),
    total: formatMinorUnits(total, minorUnits),
    balanceBroughtForward: formatMinorUnits(d.balance, minorUnits),
    totalDue: formatMinorUnits(total + d.balance, minorUnits),
    activeDays: d.activeDays,
    termDays: d.termDays,
    activePeriod: {
      start: d.activeStart === d.termStart ? input.term.start : sub0.startDate,
      end: d.activeEnd === d.termEnd ? input.term.end : (sub0.endDate as string),
    },
    suspendedDays: d.suspension.days,
    suspendedPeriods: d.suspension.periods,
    estimated,
    segments: billSegments,
  };
}

function changeReadings(meter: PreparedMeteredInput, given: Readonly<Record<string, string | number>> | undefined): Record<string, Dec> | undefined {
  if (given === undefined) return undefined;
  const out: Record<string, Dec> = {};
  for (const [date, value] of Object.entries(given)) {
    dayNumber(date, `changeReadings.${meter.code}`);
    const v = parseDecimal(value);
    if (v === null || (v.isNegative() && !v.isZero()) || v.decimalPlaces() > meter.decimals) {
      throw new RatingError('INVALID_READING', `${meter.code} reading of ${date} is not a reading of this meter: ${JSON.stringify(value)}`, [
        { path: `changeReadings.${meter.code}`, message: 'not a reading' },
      ]);
    }
    out[date] = v;
  }
  return out;
}
