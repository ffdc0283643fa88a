// The roster of a term and what freezes it: who is billed (the batch's subscriptions to
// the template, less those suspended throughout), the readings' watermark, and the
// roster's split into chunks.
import type pg from 'pg';
import type { Queryable } from '../db/pool.ts';
import type { TermRow } from './termStore.ts';
import { suspensionPeriodsSql } from './suspensions.ts';

/**
 * The roster: the batch's subscriptions to the term's template active on at least one
 * day of the term, less those suspended on every day of it they are connected (they
 * get no bill and are no failure). Replaces an earlier roster of the same term.
 *
 * Driven from the batch's subscriptions (one index scan), each looking up its own
 * suspension events by index (a correlated subquery, which the planner cannot turn
 * into a join), so its plan needs no statistics. The earlier form, a CTE of the batch's
 * suspensions joined to the subscriptions, was planned on tables just filled by an
 * import (no statistics yet) as a nested loop that ran the CTE again for every
 * subscription: quadratic, 74 s for 5,000 subscriptions, 275 s for 20,000 (issue 9,
 * defect 14; figures in docs/bill-run.md). The periods are worked out (a window over
 * the events, then range_agg) only for a subscription that has a suspension event at
 * all, found by one probe of the same index: run for every subscription, that subquery
 * was 40% of the roster of a 1,000,000-subscription term (issue 15, docs/bill-run.md).
 */
export const ROSTER_SQL = `
  INSERT INTO term_subscription (term_id, subscription_id)
  SELECT $1, s.subscription_id FROM subscription s
   WHERE s.app_code = $2 AND s.service_id = $3 AND s.batch_id = $4
     AND s.start_date <= $6 AND (s.end_date IS NULL OR s.end_date >= $5)
     AND NOT (EXISTS (SELECT 1 FROM subscription_event e WHERE e.subscription_id = s.subscription_id AND e.kind IN ('suspended', 'resumed'))
              AND coalesce((SELECT range_agg(x.period) FROM (${suspensionPeriodsSql('e.subscription_id = s.subscription_id')}) x)
                           @> daterange(greatest(s.start_date, $5::date), least(s.end_date, $6::date), '[]'), false))`;

export async function loadRoster(db: Queryable, term: TermRow): Promise<number> {
  await clearRoster(db, term.term_id);
  const r = await db.query(ROSTER_SQL, rosterParams(term));
  return r.rowCount ?? 0;
}

export async function clearRoster(db: Queryable, termId: string): Promise<void> {
  await db.query('DELETE FROM term_subscription WHERE term_id = $1', [termId]);
}

/** Below this many ids between the batch's first and last subscription, the roster is one statement. */
const ROSTER_SPLIT_FROM_IDS = 50_000;

/**
 * The plan's roster (a term it has just cleared, clearRoster): the two halves of the
 * batch's subscription ids inserted side by side, each on a connection of its own, so
 * that PostgreSQL works on two cores. As one statement the roster of 1,000,000
 * subscriptions held one core for 2.5 to 3.5 s of the plan (issue 15, docs/bill-run.md).
 *
 * The halves are not one snapshot, nor one transaction: a subscription is in one half
 * only, and whether it is billed depends on its own row alone, which each half reads as
 * committed when it starts (as one statement would, a moment earlier or later). The
 * caller records the roster (recordRoster) only after both halves are in; a plan that
 * stops between finds the term's roster not recorded and clears it again.
 */
export async function loadRosterSideBySide(db: pg.Pool, term: TermRow, splitFromIds = ROSTER_SPLIT_FROM_IDS): Promise<number> {
  const ends = await db.query<{ lo: string | null; hi: string | null }>(
    `SELECT min(subscription_id) AS lo, max(subscription_id) AS hi FROM subscription WHERE app_code = $1 AND batch_id = $2`,
    [term.app_code, term.batch_id],
  );
  const { lo, hi } = ends.rows[0]!;
  if (lo === null || hi === null) return 0;
  const ranges = BigInt(hi) - BigInt(lo) < splitFromIds ? [[lo, hi] as const] : idHalves(lo, hi);
  const counts = await Promise.all(
    ranges.map(async ([from, to]) => (await db.query(`${ROSTER_SQL} AND s.subscription_id BETWEEN $7 AND $8`, [...rosterParams(term), from, to])).rowCount ?? 0),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** The ids [lo, hi] as two halves, [lo, mid] and [mid + 1, hi]: the work of a plan's statement on two connections. */
export function idHalves(lo: string, hi: string): [[string, string], [string, string]] {
  const mid = (BigInt(lo) + BigInt(hi)) / 2n;
  return [[lo, String(mid)], [String(mid + 1n), hi]];
}

export const rosterParams = (term: TermRow) => [term.term_id, term.app_code, term.service_id, term.batch_id, term.start_date, term.end_date];

/**
 * Freezes the readings: the run reads only reading rows with an id up to the mark.
 * The SHARE lock waits for transactions still adding readings, so no row below the
 * mark can appear after it is taken.
 */
export async function readingWatermark(db: Queryable): Promise<string> {
  await db.query("SET LOCAL lock_timeout = '15s'");
  await db.query('LOCK TABLE reading IN SHARE MODE');
  const r = await db.query<{ w: string }>('SELECT coalesce(max(reading_id), 0)::bigint AS w FROM reading');
  return r.rows[0]!.w;
}

/**
 * Consecutive slices of the roster's subscription ids without a live bill (withBilled:
 * all of them), `size` each: [from, to] inclusive.
 *
 * One ordered pass over the roster's index that keeps only each slice's first and last
 * row (the first by its position, the last by its position or by having no next row),
 * so at most two rows a slice leave the window and nothing of the roster is sorted.
 * Numbering every row and grouping by slice sorted the whole roster again (on disk at
 * 1,000,000) and, with the bills' check, probed the bill table once per subscription
 * even in a first round, when the term has no bill: the check per row is made only when
 * the term has a live bill (a retry, a second chunk plan of the round). Issue 15.
 */
export async function rosterSlices(db: Queryable, termId: string, size: number, o: { withBilled?: boolean } = {}): Promise<[string, string][]> {
  const billed = !o.withBilled && (await db.query(`SELECT 1 FROM bill b WHERE b.term_id = $1 AND ${LIVE_BILL} LIMIT 1`, [termId])).rowCount !== 0;
  const r = await db.query<{ i: string; subscription_id: string; last: boolean }>(
    `SELECT x.i, x.subscription_id, x.next IS NULL OR x.i % $2 = 0 AS last
       FROM (SELECT ts.subscription_id, row_number() OVER w AS i, lead(ts.subscription_id) OVER w AS next
               FROM term_subscription ts
              WHERE ts.term_id = $1
                ${billed ? `AND NOT EXISTS (SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.subscription_id = ts.subscription_id AND ${LIVE_BILL})` : ''}
             WINDOW w AS (ORDER BY ts.subscription_id)) x
      WHERE (x.i - 1) % $2 = 0 OR x.i % $2 = 0 OR x.next IS NULL
      ORDER BY x.i`,
    [termId, size],
  );
  const slices: [string, string][] = [];
  for (const row of r.rows) {
    if ((Number(row.i) - 1) % size === 0) slices.push([row.subscription_id, row.subscription_id]);
    if (row.last) slices[slices.length - 1]![1] = row.subscription_id;
  }
  return slices;
}

/** A bill that counts (rateRoster's NOT_BILLED and the one-bill-per-subscription index say the same). */
const LIVE_BILL = `b.status NOT IN ('withdrawn', 'cancelled')`;
