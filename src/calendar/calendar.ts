// The calendar: dates as the API writes them (dd/mm/yyyy, interface.md), the app's
// "today" and a timestamp in the app's time zone. A date travels as text and is kept as
// a PostgreSQL date; inside, it is always the ISO text (yyyy-mm-dd) that pg returns and
// that sorts as a date. The pure rating core counts days in rating/days.ts and reads
// only that ISO text.
//
// Which inputs take YYYY-MM-DD as well: the records a utility brings from its old system
// (accounts, subscriptions and meter readings, by their operations and by import, so a
// file and the API agree), whose exports mostly carry ISO dates. Terms, payments and the
// ledger take dd/mm/yyyy only, as interface.md writes them. Every output is dd/mm/yyyy.
import { Type } from 'typebox';
import type { Queryable } from '../db/pool.ts';
import { type ErrorDetail, validationFailed } from '../errors.ts';
import { apiDate, daysInMonth } from '../rating/days.ts';

export const DMY_PATTERN = '^[0-9]{2}/[0-9]{2}/[0-9]{4}$';
const DMY = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/;
const ISO = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A date of the API: dd/mm/yyyy. */
export const dateText = (description = 'a calendar date') => Type.String({ pattern: DMY_PATTERN, maxLength: 10, description: `${description}, dd/mm/yyyy` });

/** A date of an account, subscription or reading: dd/mm/yyyy, or YYYY-MM-DD as old systems export it. */
export const RECORD_DATE_PATTERN = '^([0-9]{2}/[0-9]{2}/[0-9]{4}|[0-9]{4}-[0-9]{2}-[0-9]{2})$';
export const RecordDateText = Type.String({
  pattern: RECORD_DATE_PATTERN,
  maxLength: 10,
  description: 'A calendar date, dd/mm/yyyy (YYYY-MM-DD also accepted)',
});
export const RECORD_DATE_MESSAGE = 'must be a calendar date, dd/mm/yyyy (or YYYY-MM-DD)';

/**
 * The ISO text of a dd/mm/yyyy date (or YYYY-MM-DD too with `iso`), or null when it is
 * not one or not a calendar date (31/02/2025), or outside the years 1900 to 9999.
 */
export function parseDate(text: unknown, o: { iso?: boolean } = {}): string | null {
  if (typeof text !== 'string') return null;
  let y: number, m: number, d: number;
  let r = DMY.exec(text);
  if (r) {
    d = Number(r[1]);
    m = Number(r[2]);
    y = Number(r[3]);
  } else if (o.iso && (r = ISO.exec(text))) {
    y = Number(r[1]);
    m = Number(r[2]);
    d = Number(r[3]);
  } else return null;
  if (y < 1900 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * A moment on the app's wall clock as the API takes it (sheduleTime, set-clock's now, the
 * events' since): 'YYYY-MM-DDThh:mm:ss' (or with a space), a real time of a calendar day
 * of the years parseDate takes. Answers it with a T, or null. One reader for all of them:
 * three had grown apart, and the events' one let the year 0000 through to PostgreSQL,
 * which has no such year (a 500).
 */
export function parseLocalTime(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = LOCAL_TIME.exec(text);
  if (!m) return null;
  const day = parseDate(m[1], { iso: true });
  if (day === null || Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4]) > 59) return null;
  return `${day}T${m[2]}:${m[3]}:${m[4]}`;
}
const LOCAL_TIME = /^([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})$/;
/** The message for a value parseLocalTime refuses. */
export const LOCAL_TIME_MESSAGE = 'is not a real date and time (YYYY-MM-DDThh:mm:ss, a year from 1900 to 9999)';

/** A record's date (dd/mm/yyyy or YYYY-MM-DD) as ISO text, or null. */
export const parseRecordDate = (text: unknown): string | null => parseDate(text, { iso: true });

/** dd/mm/yyyy from the ISO text PostgreSQL gives. */
export function formatDate(iso: string): string;
export function formatDate(iso: string | null): string | null;
export function formatDate(iso: string | null): string | null {
  // The one writer of the API's date format is the pure core's, which needs it for
  // its own messages and explanations; the calendar lends it to everyone else.
  return iso === null ? null : apiDate(iso);
}

/** Reads a dd/mm/yyyy date; pushes the problem and answers null when it is not one. */
export function readDate(value: unknown, path: string, issues: ErrorDetail[]): string | null {
  const iso = typeof value === 'string' ? parseDate(value.trim()) : null;
  if (iso === null) issues.push({ path, message: 'must be a calendar date written dd/mm/yyyy' });
  return iso;
}

/**
 * A span of days a report or an extract covers (the journal, the credit notes for print): `from`
 * to `to` (default `from`), both included, at most `maxDays` of them; refused on the field at fault.
 */
export function readPeriod(d: { from: string; to?: string | undefined }, maxDays: number): { from: string; to: string } {
  const from = parseDate(d.from);
  const to = parseDate(d.to ?? d.from);
  if (!from) throw validationFailed([{ path: 'data.from', message: 'must be a calendar date, dd/mm/yyyy' }]);
  if (!to) throw validationFailed([{ path: 'data.to', message: 'must be a calendar date, dd/mm/yyyy' }]);
  if (to < from) throw validationFailed([{ path: 'data.to', message: 'must not be before from' }]);
  if (daysBetween(from, to) + 1 > maxDays) throw validationFailed([{ path: 'data.to', message: `must be at most ${maxDays} days after from` }]);
  return { from, to };
}

/**
 * Reads the date money moved on (a payment received, its reversal, an adjustment, a refund
 * paid): not after the app's today, as a reading is not. A payment dated 2030 was settled
 * at once, and the account's balance and its statement to today then disagreed.
 */
export function readPastDate(value: unknown, path: string, issues: ErrorDetail[], today: string): string | null {
  const iso = readDate(value, path, issues);
  if (iso !== null && iso > today) {
    issues.push({ path, message: `is after today (${formatDate(today)}): money is recorded on or after the day it moves` });
    return null;
  }
  return iso;
}

/**
 * The app's clock column beside a time zone column: `a.time_zone` → `a.clock_offset`. An
 * expression that is not an app's time_zone column has no clock: real time.
 */
const clockOf = (timeZone: string) => (/(^|\.)time_zone$/.test(timeZone) ? timeZone.replace(/time_zone$/, 'clock_offset') : `interval '0'`);

/**
 * SQL: the app's today (a date) in the time zone named by `timeZone` (a column or
 * parameter), on the app's clock (`clock`, the app's clock_offset; by default the column
 * beside an app's time_zone column, so `a.time_zone` reads `a.clock_offset`): a test app
 * that moved its clock forward is on its own day (migrations 007 and 020).
 */
export const todaySql = (timeZone = 'a.time_zone', clock = clockOf(timeZone)) => `billrun_today(${timeZone}, ${clock})`;

/** SQL: the app's now (a timestamptz): real time, or a test app's clock (migration 020). */
export const nowSql = (clock = 'a.clock_offset') => `billrun_now(${clock})`;

/**
 * SQL: the real instant (timestamptz) at which the app's clock shows `localTime` (a
 * timestamp without zone, read in the app's time zone), never before real now: when a
 * scheduled job runs. A test app whose clock is ahead runs it that much earlier.
 */
export const runAtSql = (localTime: string, timeZone = 'a.time_zone', clock = clockOf(timeZone)) =>
  `greatest(now(), coalesce((${localTime}) AT TIME ZONE ${timeZone} - ${clock}, now()))`;

/** SQL: a timestamp as the API shows it, yyyy-mm-dd hh:mm:ss in the app's time zone. */
export const localTimeSql = (column: string, timeZone = 'a.time_zone') => `to_char(${column} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD HH24:MI:SS')`;

/** An ISO date `days` days later (or earlier, when negative). */
export function addDays(iso: string, days: number): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d + days));
  // Past 9999 toISOString writes "+010000-01-01": the day after 31/12/9999 (an end date
  // meaning "never", as some systems write it) reached PostgreSQL as "+010000-01" (a 500, a
  // fuzzer). PostgreSQL reads "10000-01-01", and it orders after every date parseDate takes.
  return `${t.getUTCFullYear()}-${String(t.getUTCMonth() + 1).padStart(2, '0')}-${String(t.getUTCDate()).padStart(2, '0')}`;
}

/** Days from one yyyy-mm-dd to another (negative when `to` is before `from`). */
export function daysBetween(from: string, to: string): number {
  const utc = (iso: string) => {
    const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d);
  };
  return Math.round((utc(to) - utc(from)) / 86_400_000);
}

/**
 * A bill's due date when it is made on `billDate` in a term due `dueDate` (a retry of a
 * posted term's failures, weeks later): the term's, or, once that has passed, as many days
 * after the bill date as the term gave after its end, as a rebill keeps its gap: a retry's
 * bill was born overdue and late-charged at the next daily run (a reviewer).
 */
export function dueDateOn(billDate: string, term: { end_date: string; due_date: string }): string {
  return term.due_date >= billDate ? term.due_date : addDays(billDate, Math.max(0, daysBetween(term.end_date, term.due_date)));
}

/** The app's today, yyyy-mm-dd. */
export async function appToday(db: Queryable, appCode: number): Promise<string> {
  const r = await db.query<{ today: string }>(`SELECT ${todaySql()} AS today FROM app a WHERE a.app_code = $1`, [appCode]);
  return r.rows[0]!.today;
}
