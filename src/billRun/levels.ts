// The values of a subscription's unmetered inputs (rooms, seats: levels) over a bill's days,
// from its history: update-subscription replaces them from a date (subscription_event
// 'inputs_changed', effective_date, detail { before, after }). The subscription row holds
// the values of the last change recorded, whatever its date; a bill reads the values in
// force on each of its days instead, so a change dated inside the term cuts the bill in two
// and a change dated after it does not reach it (a peer check found 5 seats that became 10
// on 15/03 billed as 10 for the whole of March, and a change dated in June billed from March).
//
// The rule: on day d, the values are the `after` of the latest change dated on or before d
// (of two changes dated alike, the one recorded last); before every change's date, the
// `before` of the first change recorded (the values the subscription was made with).

import { parseDecimal } from '../rating/money.ts';

export type LevelChange = { date: string; eventId: string; before: Record<string, string | number> | null; after: Record<string, string | number> | null };
export type Levels = Record<string, string | number>;

/**
 * The values on the first billed day, and each change inside the billed days (after it, up
 * to the last): what RosterInput's `unmetered` and `levels` take. `changes` in the order
 * they were recorded.
 */
export function levelsOver(
  changes: readonly LevelChange[],
  current: Levels,
  firstDay: string,
  lastDay: string,
): { unmetered: Levels; levels?: { from: string; unmetered: Levels }[] } {
  if (changes.length === 0) return { unmetered: current };
  const initial = changes[0]!.before ?? current;
  const dated = [...changes].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : Number(BigInt(a.eventId) - BigInt(b.eventId))));
  const on = (day: string): Levels => {
    let value = initial;
    for (const c of dated) if (c.date <= day) value = c.after ?? value;
    return value;
  };
  const unmetered = on(firstDay);
  // A day cuts the bill only when the values in force change on it: a change of the
  // connection inputs alone (a meter number), or one put back to what it was, records an
  // event with the same unmetered values, and cut there a bill's lines were split for nothing
  // (a reviewer's finding: 2 lines became 4, and a cent moved under rounding 'up').
  const levels: { from: string; unmetered: Levels }[] = [];
  let before = unmetered;
  for (const d of [...new Set(dated.map((c) => c.date))].filter((d) => d > firstDay && d <= lastDay)) {
    const value = on(d);
    if (sameLevels(value, before)) continue;
    levels.push({ from: d, unmetered: value });
    before = value;
  }
  return levels.length === 0 ? { unmetered } : { unmetered, levels };
}

/** The same values, key by key, read as decimals ("5" and 5 and "5.0" alike). */
export function sameLevels(a: Levels, b: Levels): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const x = a[k];
    const y = b[k];
    if (x === undefined || y === undefined) {
      if (x !== y) return false;
      continue;
    }
    const dx = parseDecimal(String(x));
    const dy = parseDecimal(String(y));
    if (dx === null || dy === null ? String(x) !== String(y) : !dx.eq(dy)) return false;
  }
  return true;
}

/** SQL: the changes of unmetered inputs of the subscriptions `filter` selects (a condition on `e`), in the order recorded. */
export const levelChangesSql = (filter: string) => `
  SELECT e.subscription_id, e.event_id, e.effective_date::text AS date,
         e.detail->'before'->'unmeteredInputs' AS before, e.detail->'after'->'unmeteredInputs' AS after
    FROM subscription_event e
   WHERE e.kind = 'inputs_changed' AND (${filter})
   ORDER BY e.subscription_id, e.event_id`;
