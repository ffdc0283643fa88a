// What a correction of a subscription's Prepaid bills takes with it, and the locks of a
// correction. A Prepaid bill bills the coming period in advance (billRun/prepaid.ts); the
// later bills of its subscription settle that advance (each names it, with the days it
// settled, in source.prepaid.settles): a final bill credits the unused days, the next bill
// counts them paid. Cancelled and rebilled with the data as it is now, the advance may
// change (a termination recorded since bills the advance only up to the end date), so the
// later bills that settled the cancelled advance are corrected with it: cancelled, and
// rebilled after it, so that they settle the rebill's advance. Before 2026-11-26 they were
// left as they were, and a final bill kept crediting days of the cancelled advance that its
// rebill no longer billed: the credit given twice (a new user's walk: 29.85).
import type pg from 'pg';
import type { Queryable } from '../db/pool.ts';
import { invalidState } from '../errors.ts';
import { lockTerm, type TermRow } from '../billRun/termStore.ts';
import { compareIds } from '../settlement/core.ts';
import { lockBills, type LockedBill } from './store.ts';
import type { TermBills } from './correctBills.ts';
import { chainFollowers } from '../billRun/meterChain.ts';

/** A live bill that settled the advance of a bill being corrected (or of another such bill). */
type Settler = { bill_id: string; bill_number: string; term_id: string; status: string; settles_number: string };

/**
 * The live bills of the same subscriptions that settled the advances of `billIds`, and, in
 * turn, those that settled theirs: not `billIds` themselves. One probe of the Prepaid bills'
 * partial index (migration 057) per subscription and round; nothing for a term not Prepaid.
 */
async function laterSettlers(db: Queryable, appCode: number, billIds: readonly string[]): Promise<Settler[]> {
  const known = new Set(billIds);
  const found: Settler[] = [];
  let frontier = [...billIds];
  while (frontier.length > 0) {
    const r = await db.query<Settler>(
      `SELECT DISTINCT ON (o.bill_id) o.bill_id, o.bill_number, o.term_id, o.status, b.bill_number AS settles_number
         FROM bill b
         JOIN bill o ON o.subscription_id = b.subscription_id AND (o.source->'prepaid') IS NOT NULL AND o.status NOT IN ('withdrawn', 'cancelled')
        CROSS JOIN LATERAL json_array_elements(o.source->'prepaid'->'settles') s
        WHERE b.app_code = $1 AND b.bill_id = ANY($2::bigint[]) AND (b.source->'prepaid') IS NOT NULL
          AND s->>'billId' = b.bill_id::text
        ORDER BY o.bill_id, b.bill_id`,
      [appCode, frontier],
    );
    frontier = [];
    for (const s of r.rows) {
      if (known.has(s.bill_id)) continue;
      known.add(s.bill_id);
      found.push(s);
      frontier.push(s.bill_id);
    }
  }
  return found;
}

const sameBills = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * Locks a correction of the bills `targets()` reads and of the later bills that settled
 * their advances: every term in id order, then every bill (the lock order of
 * docs/corrections.md), then reads both again under the locks; what changed meanwhile is a
 * 409 to try again. `check` refuses what cannot be cancelled, on the locked targets, before
 * the settlers are looked at. Answers the correction's groups, one per term, in the terms' date order (oldest first: each rebill settles the one before it).
 */
export async function lockCorrection(
  tx: pg.PoolClient,
  appCode: number,
  today: string,
  o: {
    targets: (db: Queryable) => Promise<{ termIds: string[]; billIds: string[] }>;
    check: (locked: { terms: Map<string, TermRow>; bills: LockedBill[] }) => void;
    rebill: boolean;
    path: string;
  },
): Promise<TermBills[]> {
  const first = await o.targets(tx);
  const settlers = await laterSettlers(tx, appCode, first.billIds);
  // Rebilled, a bill ends at the readings as they are now; the next term's bill must then
  // start there too (billRun/meterChain.ts). Cancelled without a rebill, nothing moves.
  const followersOf = (ids: string[], s: Settler[]) => (o.rebill ? chainFollowers(tx, appCode, [...ids, ...s.map((x) => x.bill_id)]) : Promise.resolve([]));
  const followers = await followersOf(first.billIds, settlers);
  const termIds = [...new Set([...first.termIds, ...settlers.map((s) => s.term_id), ...followers.map((f) => f.termId)])].sort(compareIds);
  const terms = new Map<string, TermRow>();
  for (const id of termIds) {
    const t = await lockTerm(tx, appCode, id);
    if (t !== undefined) terms.set(id, t);
  }
  const now = await o.targets(tx);
  const locked = await lockBills(tx, appCode, [...now.billIds, ...settlers.map((s) => s.bill_id), ...followers.map((f) => f.billId)], today);
  const byId = new Map(locked.map((b) => [b.bill_id, b]));
  const bills = now.billIds.map((id) => byId.get(id)).filter((b) => b !== undefined);
  o.check({ terms, bills });
  const again = await laterSettlers(tx, appCode, now.billIds);
  const followersAgain = await followersOf(now.billIds, again);
  if (now.termIds.some((id) => !terms.has(id)) || !sameBills(again.map((s) => s.bill_id), settlers.map((s) => s.bill_id)) || !sameBills(followersAgain.map((f) => f.billId), followers.map((f) => f.billId))) {
    throw invalidState('Other bills were made or corrected meanwhile; try again.', o.path);
  }
  for (const f of followersAgain) {
    if (f.status !== 'posted') {
      throw invalidState(
        `Bill ${f.billNumber} (billID ${f.billId}, term ${f.termId}, ${f.status}) starts from a reading the rebill of bill ${f.follows} moves, so it is rebilled with it: post or reverse its term first.`,
        o.path,
      );
    }
  }
  for (const s of again) {
    if (s.status !== 'posted') {
      throw invalidState(`Bill ${s.bill_number} (term ${s.term_id}, ${s.status}) settled the advance of bill ${s.settles_number}: post or reverse its term first.`, o.path);
    }
    if (!o.rebill) {
      throw invalidState(
        `Bill ${s.bill_number} settled the advance of bill ${s.settles_number}: cancel it first, or cancel with rebill, which corrects it too.`,
        o.path,
      );
    }
  }
  // Only posted terms' bills are corrected: a posted term in a retry round of its failures
  // (Scheduled, Processing) waits until it is Posted again (a reviewer: a bill cancelled during
  // the round was billed again by it).
  for (const t of terms.values()) {
    if (t.status !== 'Posted') throw invalidState(`Term ${t.term_id} is ${t.status}: its bills are corrected once it is Posted${t.posted_at !== null ? ' again (a retry of its failures is running)' : ''}.`, o.path);
  }

  const all = [...new Map([...bills, ...again.map((s) => byId.get(s.bill_id)!), ...followersAgain.map((f) => byId.get(f.billId)!)].map((b) => [b.bill_id, b])).values()];
  const order = [...terms.values()].sort((x, y) => (x.start_date < y.start_date ? -1 : x.start_date > y.start_date ? 1 : compareIds(x.term_id, y.term_id)));
  return order.map((term) => ({ term, bills: all.filter((b) => b.term_id === term.term_id) })).filter((g) => g.bills.length > 0);
}
