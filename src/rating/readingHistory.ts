// What a meter's own history says about a period: its daily consumption, whether the
// period's is unusual against it, and the estimate of a missing reading. Pure: the
// readings come in as dates and values.
import { dayNumber } from './days.ts';
import { Dec, roundMoney } from './money.ts';

export type HistoryReading = { date: string; value: string };

/**
 * The history before a period's previous reading: the oldest effective reading of the
 * year before it, and how many reading intervals that year holds up to the previous
 * reading (readings dated in it, so each starts one interval).
 */
export type MeterHistory = { oldest: HistoryReading | null; periods: number };

/** Daily consumption this many times above (or below a 1/n of) the history's is flagged. */
export const UNUSUAL_FACTOR = 3;
/**
 * Intervals of history needed before a consumption is judged unusual. With one month
 * (a new connection's first reading after its opening one) the "history" is a single
 * period that often covers a partial month, a filling tank or a leak found at move-in:
 * a third of new connections were flagged for nothing. Three periods span a season.
 */
export const MIN_HISTORY_PERIODS = 3;

const days = (from: string, to: string) => dayNumber(to) - dayNumber(from);

/** Daily consumption from the oldest history reading to the previous one, or null without one (or across a roll-over). */
export function dailyHistory(history: MeterHistory, previous: HistoryReading): Dec | null {
  if (history.oldest === null) return null;
  const span = days(history.oldest.date, previous.date);
  const used = new Dec(previous.value).minus(history.oldest.value);
  if (span <= 0 || used.isNegative()) return null;
  return used.div(span);
}

export type Unusual = { daily: Dec; history: Dec; direction: 'above' | 'below' };

/**
 * The period's daily consumption when it is more than UNUSUAL_FACTOR times above or below
 * the history's, or null: also null when the history is too short to judge (fewer than
 * MIN_HISTORY_PERIODS intervals), zero, or crosses a roll-over, and for a negative or
 * rolled-over period (the rating reports those).
 */
export function unusualConsumption(history: MeterHistory, previous: HistoryReading, current: HistoryReading): Unusual | null {
  if (history.periods < MIN_HISTORY_PERIODS) return null;
  const daily = dailyHistory(history, previous);
  if (daily === null || daily.isZero()) return null;
  const span = days(previous.date, current.date);
  const used = new Dec(current.value).minus(previous.value);
  if (span <= 0 || used.isNegative()) return null;
  const now = used.div(span);
  if (now.gt(daily.times(UNUSUAL_FACTOR))) return { daily: now, history: daily, direction: 'above' };
  if (now.times(UNUSUAL_FACTOR).lt(daily)) return { daily: now, history: daily, direction: 'below' };
  return null;
}

/**
 * A demand register's reading (the period's highest demand) more than UNUSUAL_FACTOR times
 * above or below the period's before, or null. Judged as soon as the reading before is a
 * period's demand (a reading of the register before it: not its opening 0): a peak does not
 * grow with a partial month's days as a consumption does, so no season of history is waited
 * for (a new user's walk: 103 kW typed for 10.3, after 9.8, passed without a word). Never
 * against a demand of zero. `daily` and `history` hold the two demands, not rates a day.
 */
export function unusualDemand(history: MeterHistory, previous: HistoryReading, current: HistoryReading): Unusual | null {
  if (history.oldest === null || previous.date >= current.date) return null;
  const before = new Dec(previous.value);
  const now = new Dec(current.value);
  if (before.isZero()) return null;
  if (now.gt(before.times(UNUSUAL_FACTOR))) return { daily: now, history: before, direction: 'above' };
  if (now.times(UNUSUAL_FACTOR).lt(before)) return { daily: now, history: before, direction: 'below' };
  return null;
}

/**
 * The estimated reading on `date`: the previous reading plus the history's daily
 * consumption for each day to it, at the meter's decimals (half up), wrapped at the
 * roll-over (a demand register's: the previous reading's value). Null when the history gives no daily consumption or no day is left to
 * estimate (the previous reading is on `date` or after).
 */
export function estimateReading(
  history: MeterHistory,
  previous: HistoryReading,
  date: string,
  meter: { decimals: number; rolloverAt: Dec | null; register?: 'cumulative' | 'maximum' },
): Dec | null {
  // A demand register: last period's demand, when the reading before is one (a meter with
  // history before it; the first reading is the register's opening, 0 at its reset).
  if (meter.register === 'maximum') return history.oldest === null || previous.date >= date ? null : new Dec(previous.value);
  const daily = dailyHistory(history, previous);
  if (daily === null || previous.date >= date) return null;
  let value = roundMoney(new Dec(previous.value).plus(daily.times(days(previous.date, date))), meter.decimals, 'halfUp');
  if (meter.rolloverAt !== null && value.gte(meter.rolloverAt)) value = value.minus(meter.rolloverAt);
  return value;
}
