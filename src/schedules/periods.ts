// The periods of a bill-cycle schedule: pure arithmetic on 'YYYY-MM-DD' text through the
// rating core's day numbers (rating/days.ts), no Date, no clock, no I/O.
//
// A schedule has an anchor (the first period's first day) and a cycle of 1, 2, 3, 6 or
// 12 months. Period k starts on the anchor's day of the month k x cycle months after the
// anchor's month; when that month has no such day (the 31st in February, 29 February in
// a common year), it starts on the 1st of the month after. Each period ends the day
// before the next one starts, so periods never overlap nor leave a gap: a period that
// starts on 31 January ends on 28 February (29 in a leap year), the next runs from
// 1 March to 30 March, the one after from 31 March. Every start is computed from the
// anchor, never from the previous period, so the anchor's day is never lost.
//
// billingPeriodID is yyyymm of the period's month, the anchor's month plus k x cycle
// months: the month of its first day whenever that day exists (every anchor on the 1st
// to the 28th), and the month it stands for when it moved to the 1st of the next one
// (the period of 1 March to 30 March above is 202702), so no two periods share an id.
import { dateOfDay, dayNumber, daysInMonth } from '../rating/days.ts';
import { BILLING_CYCLES } from '../templates/schemas.ts';

/** Months per period by the template's billingCycle lookup id (templates/schemas.ts). */
export const CYCLE_MONTHS: Readonly<Record<keyof typeof BILLING_CYCLES, number>> = Object.freeze({ 1: 1, 2: 2, 3: 3, 4: 6, 5: 12 });

export function cycleMonths(billingCycle: number): number {
  const m = CYCLE_MONTHS[billingCycle as keyof typeof CYCLE_MONTHS];
  if (m === undefined) throw new RangeError(`billingCycle ${billingCycle} is not one of 1 to 5`);
  return m;
}

export type Period = { index: number; billingPeriodId: number; start: string; end: string };

const iso = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

function parts(date: string): [number, number, number] {
  dayNumber(date); // throws on anything that is not a calendar date
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

/** The month `n` months after y/m, as [year, month]. */
function plusMonths(y: number, m: number, n: number): [number, number] {
  const total = y * 12 + (m - 1) + n;
  return [Math.floor(total / 12), (total % 12) + 1];
}

/** The first day of period k (k >= 0) of a schedule anchored on `anchor`, every `months` months. */
function startOf(anchor: string, months: number, k: number): string {
  const [y, m, d] = parts(anchor);
  const [ny, nm] = plusMonths(y, m, k * months);
  if (d <= daysInMonth(ny, nm)) return iso(ny, nm, d);
  const [fy, fm] = plusMonths(ny, nm, 1);
  return iso(fy, fm, 1);
}

/** Period k (0 is the one starting on the anchor). */
export function periodAt(anchor: string, months: number, k: number): Period {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`period index ${k} is not a whole number from 0`);
  const [y, m] = parts(anchor);
  const [ny, nm] = plusMonths(y, m, k * months);
  return {
    index: k,
    billingPeriodId: ny * 100 + nm,
    start: startOf(anchor, months, k),
    end: dateOfDay(dayNumber(startOf(anchor, months, k + 1)) - 1),
  };
}

/** The index of the period that holds `date`, or -1 when the date is before the anchor. */
export function periodIndexOn(anchor: string, months: number, date: string): number {
  const [ay, am] = parts(anchor);
  const [y, m] = parts(date);
  if (date < anchor) return -1;
  // The period whose month is the date's, or the one before it (a moved start, a day
  // before the anchor's day): at most one step either way from the month count.
  let k = Math.floor((y * 12 + m - (ay * 12 + am)) / months);
  while (k > 0 && periodAt(anchor, months, k).start > date) k--;
  while (periodAt(anchor, months, k).end < date) k++;
  return k;
}
