// Effective-dated template versions (issue 12, part 1): which version is in force on
// which day of a term, and a subscription's billed interval and consumption split into
// one segment per version. Pure: dates are 'YYYY-MM-DD' text, quantities decimals.
import { consumptionBetween } from './consumption.ts';
import { apiDate, dateOfDay, dayNumber } from './days.ts';
import { RatingError } from './errors.ts';
import { type Dec, roundMoney, ZERO } from './money.ts';
import type { Tariff } from './tariff.ts';
import type { SuspendedPeriod } from './trace.ts';

/** A template version as the timeline reads it: `from` null is "from the beginning". */
export type DatedVersion = { version: number; from: string | null };

/** One version over part of a term, both dates included. */
export type VersionPiece = { version: number; start: string; end: string };

/** A version in force over a term, with its tariff: `from` is the first day of the term it is in force. */
export type TariffVersion = { version: number; from: string; tariff: Tariff };

/**
 * The versions in force over [start, end], in date order. On a day D the version in force
 * is, among the versions whose `from` is on or before D (null counts as before every day),
 * the one with the latest `from`, and of those the highest number: a later save of the
 * same date corrects the earlier one. Days before every `from` take the earliest version.
 */
export function versionTimeline(versions: readonly DatedVersion[], start: string, end: string): VersionPiece[] {
  const first = dayNumber(start, 'start');
  const last = dayNumber(end, 'end');
  if (versions.length === 0) throw new RatingError('INVALID_TARIFF', 'the template has no version');
  // Winner per `from` date, in date order.
  const byDay = new Map<number, number>();
  for (const v of versions) {
    const d = v.from === null ? Number.NEGATIVE_INFINITY : dayNumber(v.from, 'version.from');
    const seen = byDay.get(d);
    if (seen === undefined || v.version > seen) byDay.set(d, v.version);
  }
  const steps = [...byDay.entries()].sort((a, b) => a[0] - b[0]);
  const pieces: VersionPiece[] = [];
  for (let i = 0; i < steps.length; i++) {
    const [from, version] = steps[i] as [number, number];
    const next = steps[i + 1]?.[0] ?? Number.POSITIVE_INFINITY;
    const a = i === 0 ? first : Math.max(first, from);
    const b = Math.min(last, next - 1);
    if (a > b) continue;
    const prev = pieces[pieces.length - 1];
    if (prev !== undefined && prev.version === version) prev.end = dateOfDay(b);
    else pieces.push({ version, start: dateOfDay(a), end: dateOfDay(b) });
  }
  return pieces;
}

/** A meter's readings as the split reads them: values checked by meterConsumption first. */
export type SplitMeter = {
  previous: { date: string; value: Dec };
  current: { date: string; value: Dec };
  /** Consumption between previous and current (roll-over included). */
  quantity: Dec;
  /** Decimals the meter's readings carry: each segment's quantity is rounded to them. */
  decimals: number;
  rolloverAt?: Dec | null;
  /** Effective readings dated on a change date (the first day of a later segment), by date. */
  onChangeDates?: Readonly<Record<string, Dec>>;
};

export type SegmentConsumption = {
  quantity: Dec;
  /** 'readings' when a reading on a change date bounds this segment's consumption, else 'days'. */
  by: 'days' | 'readings';
  /** The reading on this segment's first day (its change date) and on the next segment's, when used. */
  from?: { date: string; value: string };
  to?: { date: string; value: string };
};

export type Segment = {
  version: number;
  start: string;
  end: string;
  /** Days billed in the segment: its days less suspended ones. */
  days: number;
  suspendedDays: number;
  suspended: SuspendedPeriod[];
  /** Per metered input code. */
  consumption: Record<string, SegmentConsumption>;
  /** The unmetered inputs' values in this segment, when they change inside the bill; absent: the subscription's. */
  unmetered?: Readonly<Record<string, string | number>>;
};

export type SplitInput = {
  /** The billed interval: the subscription's part of the term, both dates included. */
  period: { start: string; end: string };
  /** Suspended periods inside the period, merged and in date order (rateBill's). */
  suspended?: readonly SuspendedPeriod[];
  /** The term's version pieces (versionTimeline), in date order. */
  versions: readonly VersionPiece[];
  meters?: Readonly<Record<string, SplitMeter>>;
};

/**
 * Decimals a consumption shared by days keeps (halfUp, on the running total), whatever the
 * meter reads to; the allowances given per bill (tier bounds, free units) are shared to the
 * same, so a consumption on a bound is on it in every segment, and one past it is past it
 * (models/billShare.ts consumptionPart). Shared to the meter's whole units, 11 kL in a 1-day
 * segment of 31 was 0 and 25 kL was 1, a unit then compared with a bound rounded otherwise:
 * a version identical to the one before billed 20 kL on a bound of 20 at the next tier
 * (700.00 for 800.00; a peer check) and 21 kL at the tier below.
 */
export const SPLIT_DECIMALS = 6;

/**
 * The billed interval cut at each version change inside it, one segment per version in
 * force, each with its billed days and its part of each meter's consumption:
 *
 * - By readings: a reading dated on a change date (the first day of the new version) is
 *   taken as read when the new prices start; the consumption up to it is the earlier
 *   segments', the rest the later ones'.
 * - By days: between two known points (the previous reading, a change-date reading, the
 *   current reading) the consumption is shared by billed days (suspended days use none),
 *   each share rounded halfUp to SPLIT_DECIMALS on the running total, so the parts are
 *   never negative and add up exactly to the consumption.
 *
 * A change-date reading outside the two readings around it (below the previous, above the
 * current) is INVALID_READING: splitting by it would bill a negative part.
 */
export function splitSegments(input: SplitInput): Segment[] {
  const suspended = (input.suspended ?? []).map((s) => [dayNumber(s.start, 'suspended.start'), dayNumber(s.end, 'suspended.end')] as const);
  const pieces = input.versions.map((p) => ({ version: p.version, start: dayNumber(p.start, 'version.start'), end: dayNumber(p.end, 'version.end') }));
  return splitSegmentDays(dayNumber(input.period.start, 'period.start'), dayNumber(input.period.end, 'period.end'), suspended, pieces, input.meters);
}

/** A version piece in day numbers (the rating's cached form of VersionPiece). */
export type VersionDays = {
  version: number;
  start: number;
  end: number;
  /** The unmetered inputs' values over the piece, when they change inside the bill (rateBill's levels). */
  unmetered?: Readonly<Record<string, string | number>>;
};

/** splitSegments on day numbers: the bill run's path, with the term's pieces parsed once. */
export function splitSegmentDays(
  start: number,
  end: number,
  suspended: readonly (readonly [number, number])[],
  pieces: readonly VersionDays[],
  meters: Readonly<Record<string, SplitMeter>> | undefined,
): Segment[] {
  const segments: Segment[] = [];
  for (const piece of pieces) {
    const a = Math.max(start, piece.start);
    const b = Math.min(end, piece.end);
    if (a > b) continue;
    let suspendedDays = 0;
    const periods: SuspendedPeriod[] = [];
    for (const [s, e] of suspended) {
      const x = Math.max(s, a);
      const y = Math.min(e, b);
      if (x > y) continue;
      suspendedDays += y - x + 1;
      periods.push({ start: dateOfDay(x), end: dateOfDay(y) });
    }
    const segment: Segment = { version: piece.version, start: dateOfDay(a), end: dateOfDay(b), days: b - a + 1 - suspendedDays, suspendedDays, suspended: periods, consumption: {} };
    if (piece.unmetered !== undefined) segment.unmetered = piece.unmetered;
    segments.push(segment);
  }
  if (meters !== undefined) {
    for (const code in meters) {
      const parts = splitConsumption(code, meters[code] as SplitMeter, segments);
      for (let i = 0; i < segments.length; i++) (segments[i] as Segment).consumption[code] = parts[i] as SegmentConsumption;
    }
  }
  return segments;
}

function splitConsumption(code: string, meter: SplitMeter, segments: readonly Segment[]): SegmentConsumption[] {
  // Known points: the running consumption at the start of segment k (k = 0 is 0), and
  // at the end of the last one (the whole consumption).
  const known: { at: number; total: Dec; reading?: { date: string; value: string } }[] = [{ at: 0, total: ZERO }];
  for (let k = 1; k < segments.length; k++) {
    const date = (segments[k] as Segment).start;
    const value = meter.onChangeDates?.[date];
    if (value === undefined || date <= meter.previous.date || date > meter.current.date) continue;
    const upTo = consumptionBetween(meter.previous.value, value, meter.rolloverAt);
    const before = (known[known.length - 1] as { total: Dec }).total;
    if (upTo.kind === 'negative' || upTo.quantity.lt(before) || upTo.quantity.gt(meter.quantity)) {
      throw new RatingError(
        'INVALID_READING',
        `${code}: the reading of ${apiDate(date)} (${value.toFixed()}) is not between the readings of ${apiDate(meter.previous.date)} and ${apiDate(meter.current.date)}`,
        [{ path: `readings.${code}`, message: 'change-date reading out of order' }],
      );
    }
    known.push({ at: k, total: upTo.quantity, reading: { date, value: value.toFixed(meter.decimals) } });
  }
  known.push({ at: segments.length, total: meter.quantity });

  const parts: SegmentConsumption[] = new Array(segments.length);
  for (let j = 0; j + 1 < known.length; j++) {
    const from = known[j] as (typeof known)[number];
    const to = known[j + 1] as (typeof known)[number];
    const share = to.total.minus(from.total);
    const stretch = segments.slice(from.at, to.at);
    const days = stretch.reduce((n, s) => n + s.days, 0);
    const byReadings = from.reading !== undefined || to.reading !== undefined;
    let running = 0;
    let taken = ZERO;
    stretch.forEach((s, i) => {
      running += s.days;
      const last = i === stretch.length - 1;
      // The running total rounded, minus what earlier segments took: never negative, exact sum.
      const upTo = last ? share : days === 0 ? ZERO : roundMoney(share.times(running).div(days), SPLIT_DECIMALS, 'halfUp');
      const part: SegmentConsumption = { quantity: upTo.minus(taken), by: byReadings && stretch.length === 1 ? 'readings' : 'days' };
      if (i === 0 && from.reading !== undefined) part.from = from.reading;
      if (last && to.reading !== undefined) part.to = to.reading;
      parts[from.at + i] = part;
      taken = upTo;
    });
  }
  return parts;
}
