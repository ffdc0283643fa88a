// The periods of a bill-cycle schedule: pure arithmetic on 'YYYY-MM-DD' text through the
// rating core's calendar (rating/days.ts), no Date, no clock, no I/O.
//
// A schedule has an anchor (the first period's first day) and a cycle of 1, 2, 3, 6 or
// 12 months. Period k starts on the anchor plus k x cycle months (addMonths): the
// anchor's day of that month, or the month's last day when it is shorter, as Stripe's
// billing anchor and Zuora's bill cycle day place a bill. Each period ends the day before
// the next one starts, so periods never overlap nor leave a gap: from 31 January, monthly,
// 31/01-27/02, 28/02-30/03, 31/03-29/04, 30/04-30/05. Every start is computed from the
// anchor, never from the previous period, so the anchor's day comes back in every month
// that has it (28 February + 1 month would be 28 March).
//
// billingPeriodID is yyyymm of the period's first day, which is always in the month it
// stands for (the anchor's month plus k x cycle months), so no two periods share an id.
import { addMonths, dateOfDay, dayNumber } from '../rating/days.ts';

export type Period = { index: number; billingPeriodId: number; start: string; end: string };

/** The first day of period k (k >= 0) of a schedule anchored on `anchor`, every `months` months. */
const startOf = (anchor: string, months: number, k: number): string => addMonths(anchor, k * months, 'anchor');

/** Period k (0 is the one starting on the anchor). */
export function periodAt(anchor: string, months: number, k: number): Period {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`period index ${k} is not a whole number from 0`);
  const start = startOf(anchor, months, k);
  return {
    index: k,
    billingPeriodId: Number(start.slice(0, 4)) * 100 + Number(start.slice(5, 7)),
    start,
    end: dateOfDay(dayNumber(startOf(anchor, months, k + 1)) - 1),
  };
}

/**
 * Period `p` as a schedule opens it after its previous period, made already, ended on
 * `previousEnd`: started no earlier than the day after. Under this rule it never moves a
 * period (each starts the day after the one before ends). A schedule whose earlier
 * periods were made by the rule before it (a month without the anchor's day started the
 * period on the 1st of the month after: 01/05 where this rule says 30/04) would otherwise
 * open a period overlapping its last term by that one day, which make-term refuses.
 */
export function periodAfter(p: Period, previousEnd: string | null): Period {
  if (previousEnd === null || p.start > previousEnd) return p;
  return { ...p, start: dateOfDay(dayNumber(previousEnd) + 1) };
}

/** The index of the period that holds `date`, or -1 when the date is before the anchor. */
export function periodIndexOn(anchor: string, months: number, date: string): number {
  dayNumber(anchor, 'anchor');
  dayNumber(date);
  if (date < anchor) return -1;
  const monthsApart = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - (Number(anchor.slice(0, 4)) * 12 + Number(anchor.slice(5, 7)));
  // The period starting in the date's month or the one before it (a date before the
  // anchor's day in its month): at most one step from the month count.
  let k = Math.floor(monthsApart / months);
  while (k > 0 && startOf(anchor, months, k) > date) k--;
  while (periodAt(anchor, months, k).end < date) k++;
  return k;
}
