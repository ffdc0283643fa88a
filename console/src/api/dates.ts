// The API writes calendar dates dd/mm/yyyy; the date pickers hold YYYY-MM-DD.
export const isoToApi = (iso: string): string => {
  const [y, m, d] = iso.slice(0, 10).split('-');
  return `${d}/${m}/${y}`;
};
export const apiToIso = (api: string): string => {
  const [d, m, y] = api.split('/');
  return `${y}-${m}-${d}`;
};

/** The month a billing period names (yyyymm: 202611), as ISO first and last days; null for a number that names none. */
export function monthOfPeriod(period: number): { start: string; end: string } | null {
  const y = Math.floor(period / 100);
  const m = period % 100;
  if (!Number.isInteger(period) || y < 1900 || y > 9999 || m < 1 || m > 12) return null;
  const mm = String(m).padStart(2, '0');
  return { start: `${y}-${mm}-01`, end: `${y}-${mm}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}` };
}

/** The first and last day of the month before the given one (a term's usual period), as YYYY-MM-DD. */
export function previousMonth(today = new Date()): { start: string; end: string; period: number } {
  const y = today.getUTCMonth() === 0 ? today.getUTCFullYear() - 1 : today.getUTCFullYear();
  const m = today.getUTCMonth() === 0 ? 12 : today.getUTCMonth();
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const mm = String(m).padStart(2, '0');
  return { start: `${y}-${mm}-01`, end: `${y}-${mm}-${String(last).padStart(2, '0')}`, period: y * 100 + m };
}

/** Today in the app's time zone (the server judges a reading's date by it), dd/mm/yyyy; the browser's own without one. */
export function todayApi(timeZone?: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const part = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')}`;
}

/** The app's today (dd/mm/yyyy) as its session says, else today in its zone by the browser's clock. */
export const appTodayApi = (app: { today?: string; timeZone?: string } | null | undefined): string => app?.today ?? todayApi(app?.timeZone);

/** The earlier of two dd/mm/yyyy dates. */
export const earlierDay = (a: string, b: string): string => (apiToIso(a) <= apiToIso(b) ? a : b);

/** A YYYY-MM-DD date moved by whole days. */
export function addDaysIso(iso: string, days: number): string {
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * A moment the API writes 'YYYY-MM-DD HH:MM:SS' (in the app's time zone) as the console prints
 * dates, dd/mm/yyyy HH:MM; anything else as it is. A new user found "2026-11-27 17:12:09" beside
 * dd/mm/yyyy everywhere else.
 */
export const atText = (at: string | null | undefined): string => {
  if (at === null || at === undefined) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})/.exec(at);
  return m === null ? at : `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}`;
};

/** Months in a term of each billingCycle lookup id (docs/templates.md: 1 Monthly ... 5 Yearly). */
export const CYCLE_MONTHS: Readonly<Record<number, number>> = { 1: 1, 2: 2, 3: 3, 4: 6, 5: 12 };

/**
 * The period after a term that ended on `lastEnd` (YYYY-MM-DD): from the next day, `months`
 * long, ending the day before the same day that many months on; its billing period the
 * yyyymm of its first day.
 */
export function periodAfter(lastEnd: string, months: number): { start: string; end: string; period: number } {
  const start = addDaysIso(lastEnd, 1);
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  const monthsOn = new Date(Date.UTC(y, m - 1 + months, 1));
  // The same day that many months on (that month's last when it is shorter); from a 1st, whole months.
  const lastOfMonth = new Date(Date.UTC(monthsOn.getUTCFullYear(), monthsOn.getUTCMonth() + 1, 0)).getUTCDate();
  const same = new Date(Date.UTC(monthsOn.getUTCFullYear(), monthsOn.getUTCMonth(), Math.min(d, lastOfMonth)));
  return { start, end: addDaysIso(same.toISOString().slice(0, 10), -1), period: y * 100 + m };
}
