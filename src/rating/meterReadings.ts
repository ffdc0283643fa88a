// A meter's consumption over a bill's period from its two readings, or the reason there
// is none: the one rule for rateBill and for the run's own reading check before any
// bill is made, so both say the same thing about the same readings.
import { consumptionBetween } from './consumption.ts';
import { apiDate, dayNumber } from './days.ts';
import { RatingError } from './errors.ts';
import { type Dec, parseDecimal, roundMoney, roundOnTotal } from './money.ts';
import type { PreparedMeteredInput } from './prepareTariff.ts';
import type { ConversionTrace, ReadingTrace } from './trace.ts';

/** A reading the rating uses; `estimated`: this reading is an estimate (the bill names which end was). */
export type ReadingPoint = { date: string; value: string | number; estimated?: boolean };

/** Only the last reading before the period is known: there is no current one. */
export type LastReadingOnly = { previous: ReadingPoint; current?: undefined; estimated?: boolean };

export type MeterReadings = {
  previous: ReadingPoint;
  current: ReadingPoint;
  /**
   * A demand register (register 'maximum') read more than once in the period: its highest
   * reading after `previous` up to `current`, when that is not `current` itself. The demand
   * billed; `current` still ends the period (the next one starts after it).
   */
  highest?: ReadingPoint;
  /**
   * A demand register's history for a component's ratchet (levelBound.ts): by the months
   * looked back over ("11"), its highest reading dated in them before the period, or null
   * when it has none there. Given by the run for every ratchet its tariffs have.
   */
  ratchet?: Readonly<Record<string, ReadingPoint | null>>;
  /** True when either reading is an estimate; shown on the line's trace and the bill. */
  estimated?: boolean;
};

/**
 * MISSING_READING in the words docs/bill-run.md promises: the reading the consumption
 * would start from, when there is one, and the day the period ends when that is the
 * subscription's end rather than the term's.
 */
export function missingReading(code: string, previous: ReadingPoint | undefined, activeEndBeforeTermEnd: string | null): RatingError {
  const message =
    previous === undefined
      ? `no reading of ${code} to measure the consumption from (none before or in the term)`
      : `no reading of ${code} dated in the term after the one of ${apiDate(previous.date)}` +
        (activeEndBeforeTermEnd === null ? '' : ` and up to the subscription's end, ${apiDate(activeEndBeforeTermEnd)}`);
  return new RatingError('MISSING_READING', message, [{ path: `readings.${code}`, message: 'missing' }]);
}

/**
 * `consume` for each meter, in order; the meters without a current reading all named in one
 * MISSING_READING (a detail per meter, its own words as the detail's message), not only the
 * first: an officer fixed one meter, validated again, and only then learned of the next.
 * Any other error stops at its meter.
 */
export function forEachMeter<M extends { code: string }>(meters: readonly M[], consume: (meter: M) => void): void {
  const missing: RatingError[] = [];
  for (const meter of meters) {
    try {
      consume(meter);
    } catch (err) {
      if (!(err instanceof RatingError) || err.code !== 'MISSING_READING') throw err;
      missing.push(err);
    }
  }
  if (missing.length === 1) throw missing[0]!;
  if (missing.length > 1) {
    throw new RatingError(
      'MISSING_READING',
      missing.map((e) => e.message).join('; '),
      missing.map((e) => ({ path: e.details![0]!.path, message: e.message })),
    );
  }
}

export function readingValue(meter: PreparedMeteredInput, point: ReadingPoint | undefined, which: string): Dec {
  const path = `readings.${meter.code}.${which}`;
  const fail = (message: string): never => {
    throw new RatingError('INVALID_READING', `${meter.code} ${which} reading ${message}`, [{ path, message }]);
  };
  if (point === undefined || point === null) return fail('is missing');
  dayNumber(point.date, `${path}.date`);
  const v = parseDecimal(point.value);
  if (v === null) return fail(`is not a decimal number: ${JSON.stringify(point.value)}`);
  if (v.isNegative() && !v.isZero()) return fail(`is negative: ${v.toFixed()}`);
  if (v.decimalPlaces() > meter.decimals) return fail(`${v.toFixed()} has more than the meter's ${meter.decimals} decimals`);
  if (meter.rolloverAt !== null && v.gte(meter.rolloverAt)) {
    return fail(`${v.toFixed()} is not below the roll-over value ${meter.rolloverAt.toFixed()}`);
  }
  return v;
}

/** A reading as the trace keeps it: `estimated` only on an estimate, so an actual reading's trace is as before. */
const point = (date: string, value: string, estimated: boolean | undefined): ReadingTrace['previous'] => (estimated === true ? { date, value, estimated: true } : { date, value });

/**
 * The consumption of one meter a component uses; `activeEndBeforeTermEnd` is the
 * subscription's last day when it ends inside the term (for MISSING_READING's words).
 */
export function meterConsumption(
  meter: PreparedMeteredInput,
  readings: MeterReadings | LastReadingOnly | undefined | null,
  activeEndBeforeTermEnd: string | null = null,
): { quantity: Dec; trace: ReadingTrace; previous: Dec; current: Dec } {
  if (readings === undefined || readings === null || readings.current === undefined) {
    const missing = missingReading(meter.code, readings?.previous, activeEndBeforeTermEnd);
    // A demand register's first reading in a term with none before it is taken as where it
    // starts, as a cumulative meter's opening reading is: say what it needs.
    if (meter.register === 'maximum') missing.message += ` (a demand register is billed from its reading before the period to one in it: a new register needs its opening reading, 0 when installed)`;
    throw missing;
  }
  const r: MeterReadings = readings;
  const previous = readingValue(meter, r.previous, 'previous');
  const current = readingValue(meter, r.current, 'current');
  if (r.current.date < r.previous.date) {
    // 'YYYY-MM-DD' texts (validated above) order as the dates do.
    throw new RatingError('INVALID_READING', `${meter.code}: current reading (${apiDate(r.current.date)}) is dated before the previous one (${apiDate(r.previous.date)})`, [
      { path: `readings.${meter.code}.current.date`, message: 'before the previous reading' },
    ]);
  }
  if (meter.register === 'maximum') return demandOf(meter, r, previous, current);
  const consumption = consumptionBetween(previous, current, meter.rolloverAt);
  if (consumption.kind === 'negative') {
    throw new RatingError(
      'NEGATIVE_CONSUMPTION',
      `${meter.code}: current reading ${current.toFixed()} is below the previous ${previous.toFixed()}` +
        (meter.rolloverAt === null ? '' : ` and is not a plausible roll-over at ${meter.rolloverAt.toFixed()}`),
      [{ path: `readings.${meter.code}.current.value`, message: 'below the previous reading' }],
    );
  }
  const trace: ReadingTrace = {
    input: meter.code,
    previous: point(r.previous.date, previous.toFixed(meter.decimals), r.previous.estimated),
    current: point(r.current.date, current.toFixed(meter.decimals), r.current.estimated),
    estimated: r.estimated === true,
    kind: consumption.kind,
    consumption: consumption.quantity.toFixed(meter.decimals),
  };
  if (consumption.kind === 'rollover' && meter.rolloverAt !== null) trace.rolloverAt = meter.rolloverAt.toFixed();
  return { quantity: consumption.quantity, trace, previous, current };
}

/**
 * A maximum (demand) register's quantity: the current reading itself, the highest demand
 * since the register was reset at the reading before it. The previous reading bounds the
 * period (it is in the trace, and a reading dated before it is refused as for any meter)
 * but is not subtracted: a demand may be lower than last period's. As for any meter, the
 * period needs a reading before its current one: a new register's opening reading (0 when
 * it is installed and reset).
 */
function demandOf(meter: PreparedMeteredInput, r: MeterReadings, previous: Dec, current: Dec): { quantity: Dec; trace: ReadingTrace; previous: Dec; current: Dec } {
  // A reading between the two higher than the last (a check read that reset the register, or
  // one on the day new rates start): the period's demand is the highest (an outside check of
  // a published tariff billed the month-end 40 kW after 60 kW on the 15th).
  let billed = current;
  let highest: ReadingPoint | undefined;
  if (r.highest !== undefined && r.highest !== null) {
    const h = readingValue(meter, r.highest, 'highest');
    if (r.highest.date <= r.previous.date || r.highest.date > r.current.date) {
      throw new RatingError('INVALID_READING', `${meter.code}: the highest reading (${apiDate(r.highest.date)}) is not dated after the previous one and up to the current one`, [
        { path: `readings.${meter.code}.highest.date`, message: 'outside the period' },
      ]);
    }
    if (h.gt(current)) {
      billed = h;
      highest = r.highest;
    }
  }
  const value = billed.toFixed(meter.decimals);
  // Estimated when the demand billed is an estimate, or the period ends on one: the part of the
  // period after the highest reading was not read (a reviewer: such a bill was not listed for
  // the cascade when the estimate was replaced).
  const billedEstimated = highest?.estimated === true || r.current.estimated === true || (r.estimated === true && r.previous.estimated !== true);
  const trace: ReadingTrace = {
    input: meter.code,
    previous: point(r.previous.date, previous.toFixed(meter.decimals), r.previous.estimated),
    current: point(r.current.date, current.toFixed(meter.decimals), r.current.estimated),
    estimated: billedEstimated,
    kind: 'maximum',
    consumption: value,
  };
  if (highest !== undefined) trace.highest = point(highest.date, value, highest.estimated);
  return { quantity: billed, trace, previous, current };
}

/**
 * What the lines of a meter price: its consumption, or, for a meter with a conversion (gas
 * read in hundreds of cubic feet, billed in therms), consumption x factor rounded to the
 * conversion's decimals by its rule, with the trace of it. Converted first and rounded there,
 * as the utility's bill prints it (76 therms), not a factor folded into the rates, which
 * priced 75.701 therms and differed by cents.
 */
export function billedQuantity(
  meter: PreparedMeteredInput,
  consumption: Dec,
  before?: ConvertedSoFar,
): { quantity: Dec; unit: string; decimals: number; conversion?: ConversionTrace; soFar?: ConvertedSoFar } {
  const c = meter.conversion;
  if (c === null) return { quantity: consumption, unit: meter.unit, decimals: meter.decimals };
  const exact = consumption.times(c.factor);
  const alone = roundMoney(exact, c.decimals, c.rounding);
  // A later segment's part: rounded on the bill's running total (ConversionTrace.earlier).
  const quantity = roundOnTotal(exact, before, c.decimals, c.rounding);
  const soFar = before === undefined ? { exact, billed: quantity } : { exact: before.exact.plus(exact), billed: before.billed.plus(quantity) };
  const conversion: ConversionTrace = { factor: c.factor.toFixed(), unit: c.unit, decimals: c.decimals, rounding: c.rounding, quantity: quantity.toFixed(c.decimals) };
  if (before !== undefined && !quantity.eq(alone)) conversion.earlier = { exact: before.exact.toFixed(), billed: before.billed.toFixed(c.decimals) };
  return { quantity, unit: c.unit, decimals: c.decimals, conversion, soFar };
}

/** A meter's parts of a bill converted so far: exact, and as billed (billedQuantity). */
export type ConvertedSoFar = { exact: Dec; billed: Dec };
