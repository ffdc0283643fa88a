// Term dates travel as dd/mm/yyyy (interface.md) and are kept as SQL dates. The
// calendar check is the rating core's, so a date the API accepts is one it can rate.
import { dayNumber } from '../rating/days.ts';
import { RatingError } from '../rating/errors.ts';

const DMY = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/;

/** 'dd/mm/yyyy' to 'yyyy-mm-dd', or null when it is not a real calendar date. */
export function isoFromDmy(text: string): string | null {
  const m = DMY.exec(text);
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  try {
    dayNumber(iso);
  } catch (err) {
    if (err instanceof RatingError) return null;
    throw err;
  }
  return iso;
}

/** 'yyyy-mm-dd' (as pg returns a date) to 'dd/mm/yyyy'. */
export function dmyFromIso(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

export const DMY_PATTERN = '^[0-9]{2}/[0-9]{2}/[0-9]{4}$';
