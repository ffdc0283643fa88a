// The cascade from estimates, pure: when an actual reading arrives after estimated ones,
// each estimate between the two actual readings is replaced by the actual consumption
// spread by days (a straight line from the previous actual reading to the new one), so
// each rebilled period carries its share of what the meter really measured. No I/O.
import { Dec } from '../rating/money.ts';
import { dayNumber } from '../rating/days.ts';

export type ReadingPoint = { date: string; value: string };

export class SpreadError extends Error {}

/**
 * The value the meter read on each of `dates` (YYYY-MM-DD, strictly between the two
 * actual readings) by spreading actual.value - previous.value by days, rounded down to
 * the meter's decimals (so the spread readings never pass the actual one and each
 * period's consumption is never negative). The days run from the previous reading's
 * date: a date d gets previous + consumption × (d - previous.date) / (actual.date - previous.date).
 */
export function spreadReadings(previous: ReadingPoint, actual: ReadingPoint, dates: readonly string[], decimals: number): ReadingPoint[] {
  const from = dayNumber(previous.date);
  const to = dayNumber(actual.date);
  if (to <= from) throw new SpreadError(`the actual reading of ${actual.date} is not after the previous actual reading of ${previous.date}`);
  const start = new Dec(previous.value);
  const used = new Dec(actual.value).minus(start);
  if (used.lt(0)) {
    throw new SpreadError(
      `the meter reads less on ${actual.date} (${actual.value}) than on ${previous.date} (${previous.value}): a roll-over or a new meter cannot be spread; correct the estimates one by one`,
    );
  }
  return dates.map((date) => {
    const d = dayNumber(date);
    if (d <= from || d >= to) throw new SpreadError(`the estimate of ${date} is not between the actual readings of ${previous.date} and ${actual.date}`);
    const value = start.plus(used.times(d - from).div(to - from)).toDecimalPlaces(decimals, Dec.ROUND_DOWN);
    return { date, value: value.toFixed() };
  });
}
