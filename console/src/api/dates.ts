// The API writes calendar dates dd/mm/yyyy; the date pickers hold YYYY-MM-DD.
export const isoToApi = (iso: string): string => {
  const [y, m, d] = iso.slice(0, 10).split('-');
  return `${d}/${m}/${y}`;
};
export const apiToIso = (api: string): string => {
  const [d, m, y] = api.split('/');
  return `${y}-${m}-${d}`;
};

/** The first and last day of the month before the given one (a term's usual period), as YYYY-MM-DD. */
export function previousMonth(today = new Date()): { start: string; end: string; period: number } {
  const y = today.getUTCMonth() === 0 ? today.getUTCFullYear() - 1 : today.getUTCFullYear();
  const m = today.getUTCMonth() === 0 ? 12 : today.getUTCMonth();
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const mm = String(m).padStart(2, '0');
  return { start: `${y}-${mm}-01`, end: `${y}-${mm}-${String(last).padStart(2, '0')}`, period: y * 100 + m };
}
