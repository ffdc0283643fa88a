// The reading a move carries over. A move ends the old subscription the day before and
// starts a new one (subscriptions/moveSubscription.ts); the new one's first bill starts from
// a copy of the old one's last reading of each meter the new template has (source 'move',
// dated as the original, before the new one's start). The copy follows its original until
// the new subscription is billed: a closing reading recorded after the move, or a
// correction of the old one's last reading, is carried again (a correction of the copy).
// Before 2026-11-27 the copy was frozen at the move: a closing reading recorded after it
// was billed by both subscriptions (25.00 in an attacker's walk), a corrected one by
// neither, and an estimate was copied as an actual reading, so the actual one after it was
// refused as lower. Once the new subscription has a live bill, the copy stays what that
// bill started from; correcting both is cancel-bill of the new one's bill (its rebill
// carries again first: corrections/correctBills.ts).
import type { Queryable } from '../db/pool.ts';
import { effectiveSql, insertReadings } from './store.ts';

/**
 * Carries again, into the subscriptions moved out of `fromIds` ('all': of the app's) that have no live bill, each
 * meter's last effective reading where their copy of it differs (date, value or kind).
 * Answers how many copies were corrected, and those left because an approved term reads them.
 */
export async function carryAgain(tx: Queryable, appCode: number, by: string, fromIds: readonly string[] | 'all'): Promise<{ carried: number; frozen: Frozen[] }> {
  if (fromIds !== 'all' && fromIds.length === 0) return { carried: 0, frozen: [] };
  const r = await tx.query<{ new_id: string; carried_id: string; input_code: string; from_id: string; reading_date: string; value: string; kind: string; old_id: string; frozen_term: string | null; frozen_status: string | null }>(
    `SELECT n.subscription_id AS new_id, c.reading_id AS carried_id, c.input_code, l.reading_id AS from_id,
            l.reading_date, trim_scale(l.value)::text AS value, l.kind, n.moved_from_subscription_id AS old_id, f.term_id AS frozen_term, f.status AS frozen_status
       FROM subscription n
       JOIN reading c ON c.subscription_id = n.subscription_id AND c.source = 'move' AND c.reading_date < n.start_date AND ${effectiveSql('c')}
       JOIN LATERAL (
         SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
          WHERE r.subscription_id = n.moved_from_subscription_id AND r.input_code = c.input_code AND ${effectiveSql('r')}
          ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) l ON true
       LEFT JOIN LATERAL (
         SELECT t.term_id, t.status FROM term t JOIN term_subscription ts ON ts.term_id = t.term_id AND ts.subscription_id = n.subscription_id
          WHERE t.service_id = n.service_id AND t.batch_id = n.batch_id AND t.status IN ('Approved', 'Scheduled', 'Processing')
          ORDER BY t.term_id LIMIT 1) f ON true
      WHERE n.app_code = $1 AND ($2::bigint[] IS NULL OR n.moved_from_subscription_id = ANY($2::bigint[])) AND n.moved_from_subscription_id IS NOT NULL
        AND (l.reading_date <> c.reading_date OR l.value <> c.value OR l.kind <> c.kind)
        AND NOT EXISTS (
          SELECT 1 FROM term t JOIN bill b ON b.term_id = t.term_id
           WHERE t.service_id = n.service_id AND t.batch_id = n.batch_id AND b.status NOT IN ('withdrawn', 'cancelled')
             AND (b.subscription_id = n.subscription_id OR (b.subscription_id IS NULL AND b.account_id = n.account_id)))`,
    [appCode, fromIds === 'all' ? null : fromIds],
  );
  // A term approved with the new subscription reads the copy frozen at its approval: it is
  // not changed under it (a reviewer: the run billed from the stale copy, and once billed it
  // was never carried again). The caller refuses the write that would have changed it.
  const frozen = r.rows.filter((x) => x.frozen_term !== null).map((x) => ({ newId: x.new_id, oldId: x.old_id, termId: x.frozen_term!, status: x.frozen_status! }));
  const rows = r.rows.filter((x) => x.frozen_term === null);
  await insertReadings(
    tx,
    appCode,
    rows.map((x) => ({
      subscriptionId: x.new_id,
      inputCode: x.input_code,
      date: x.reading_date,
      value: x.value,
      kind: x.kind,
      source: 'move',
      note: `carried over again from reading ${x.from_id} of subscription ${x.old_id}`,
      corrects: x.carried_id,
    })),
    by,
  );
  return { carried: rows.length, frozen };
}

/** A copy not carried again because a term approved with the new subscription reads it. */
export type Frozen = { newId: string; oldId: string; termId: string; status: string };
