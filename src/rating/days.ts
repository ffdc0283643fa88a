import { RatingError } from './errors.ts';

/**
 * Calendar dates as day numbers (days since 1970-01-01), computed from the
 * 'YYYY-MM-DD' text alone. No Date object: a date read as local midnight
 * shifts by a day on a machine west of UTC, and a daylight-saving day has
 * 23 or 25 hours, which breaks "ms / 86400000".
 */
const ISO_DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : (MONTH_DAYS[m - 1] ?? 0);
}

// A run reads the same few dates (the term's, its readings', its segments') on every bill:
// each is parsed once. Bounded, so a process that reads dates for years holds a few thousand.
const dayOfDate = new Map<string, number>();
const dateOfDayNumber = new Map<number, string>();
const DATES_KEPT = 8192;

/** The day number of a 'YYYY-MM-DD' date; throws INVALID_DATE for 2025-02-30 and the like. */
export function dayNumber(date: string, what = 'date'): number {
  const known = dayOfDate.get(date);
  if (known !== undefined) return known;
  const day = parseDay(date, what);
  if (dayOfDate.size >= DATES_KEPT) dayOfDate.clear();
  dayOfDate.set(date, day);
  return day;
}

function parseDay(date: string, what: string): number {
  const m = typeof date === 'string' ? ISO_DATE.exec(date) : null;
  if (m === null) throw new RatingError('INVALID_DATE', `${what} is not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) {
    throw new RatingError('INVALID_DATE', `${what} is not a calendar date: ${date}`);
  }
  return daysFromCivil(y, mo, d);
}

/** Howard Hinnant's days_from_civil: proleptic Gregorian, integer arithmetic only. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Number of days from `start` to `end`, both included (2024-02-01..2024-02-29 is 29). */
export function daysInclusive(start: number, end: number): number {
  return end - start + 1;
}

/**
 * `date` plus `n` whole months (n may be negative): the same day of the month, or that
 * month's last day when the month is shorter. 31/01 + 1 month is 28/02 (29/02 in a leap
 * year), 29/02/2028 + 12 months is 28/02/2029: the bill cycle day of Stripe's billing
 * anchor and Zuora's BCD, and PostgreSQL's date + interval 'n months'. Count every step
 * from the same date (31/01 + 2 months is 31/03), never from an earlier result (28/02 + 1
 * month is 28/03): docs/schedules.md.
 */
export function addMonths(date: string, n: number, what = 'date'): string {
  dayNumber(date, what); // a calendar date, or INVALID_DATE
  if (!Number.isInteger(n)) throw new RatingError('INVALID_DATE', `${n} is not a whole number of months`);
  const total = Number(date.slice(0, 4)) * 12 + (Number(date.slice(5, 7)) - 1) + n;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  const d = Math.min(Number(date.slice(8, 10)), daysInMonth(y, m));
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The 'YYYY-MM-DD' date of a day number: the inverse of dayNumber (Hinnant's civil_from_days). */
export function dateOfDay(day: number): string {
  const known = dateOfDayNumber.get(day);
  if (known !== undefined) return known;
  const date = civilDate(day);
  if (dateOfDayNumber.size >= DATES_KEPT) dateOfDayNumber.clear();
  dateOfDayNumber.set(day, date);
  return date;
}

function civilDate(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * 'YYYY-MM-DD' as the API writes dates, dd/mm/yyyy, for the words the core writes
 * (messages, explanations); traces keep 'YYYY-MM-DD', which programs read.
 */
export function apiDate(date: string): string {
  return ISO_DATE.test(date) ? `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}` : date;
}
