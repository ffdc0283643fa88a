// Calendar dates of accounts, subscriptions and readings. They travel as dd/mm/yyyy,
// like the term dates of interface.md; YYYY-MM-DD is accepted on input too, because
// the files a utility exports from its old system mostly carry ISO dates. Inside, a
// date is always the ISO text, which PostgreSQL's date type reads and sorts.
import { Type } from 'typebox';
import { daysInMonth } from '../rating/days.ts';

const DMY = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/;
const ISO = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

export const DateText = Type.String({
  pattern: '^([0-9]{2}/[0-9]{2}/[0-9]{4}|[0-9]{4}-[0-9]{2}-[0-9]{2})$',
  maxLength: 10,
  description: 'A calendar date, dd/mm/yyyy (YYYY-MM-DD also accepted)',
});

/** The ISO text of a dd/mm/yyyy or YYYY-MM-DD date, or null when it is not a calendar date (31/02/2025). */
export function parseDate(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  let y: number, m: number, d: number;
  let r = DMY.exec(text);
  if (r) {
    d = Number(r[1]);
    m = Number(r[2]);
    y = Number(r[3]);
  } else if ((r = ISO.exec(text))) {
    y = Number(r[1]);
    m = Number(r[2]);
    d = Number(r[3]);
  } else return null;
  if (y < 1900 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** dd/mm/yyyy from the ISO text PostgreSQL gives. */
export function formatDate(iso: string): string;
export function formatDate(iso: string | null): string | null;
export function formatDate(iso: string | null): string | null {
  if (iso === null) return null;
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

export const DATE_MESSAGE = 'must be a calendar date, dd/mm/yyyy (or YYYY-MM-DD)';
