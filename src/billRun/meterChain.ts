// A meter's consumption is billed as a chain: each bill of a subscription starts at the
// reading its bill of an earlier term ended at, so every unit between the first reading and
// the last is billed once, whatever was recorded after a bill was made. The run reads a
// term's previous reading as the last one before the term (rateRoster.ts, READINGS_SQL),
// which is that reading as long as nothing happened since; three things move it, and each
// would bill consumption twice or never (an attacker's walk, 2026-11-27):
// - a reading dated in a billed term after the one its bill ended at (read late, or
//   captured after the term's approval): the next term would start from it, and the
//   consumption between them would be billed by no bill;
// - a correction of the reading a bill ended at: the next term would start from the new
//   value, billing the difference twice or never;
// - a whole term spent suspended (off its roster) with the meter read meanwhile: the first
//   term after it would start from that reading, and what the meter moved while suspended
//   would be billed by no bill.
// So a roster meter whose last reading before the term is not where the subscription's
// latest earlier bill ended starts from where that bill ended (`chainToEarlierBills`): the
// reading as that bill billed it, even when corrected since (the correction is the bill's to
// make, by cancel-bill, and its rebill carries the later bills with it: `chainFollowers`).
// The other way, a term billed after a later term already billed its consumption (terms run
// out of order, a failure retried after the next term), is refused per subscription
// (`LATER_BILL_OVERLAP`): its bill cannot end where the later one started without billing
// that later bill's consumption again.
import type { Queryable } from '../db/pool.ts';
import { formatDate } from '../calendar/calendar.ts';
import { effectiveSql } from '../readings/store.ts';
import { decodeStored, loadPrototypes } from '../billLines/storedLines.ts';
import { Dec } from '../rating/money.ts';
import type { BillSource } from './billSource.ts';
import type { TermRow } from './termStore.ts';

/** A term of the same template and batch, before or after this one, that may hold bills: its dates and the lowest watermark its rounds read with. */
export type NearTerm = { termId: string; start: string; end: string; watermark: string | null };

/** The failure code of a subscription whose consumption in the term a later term's bill billed already. */
export const LATER_BILL_OVERLAP = 'LATER_BILL_OVERLAP';

const LIVE = `status NOT IN ('withdrawn', 'cancelled')`;

/**
 * The terms that bill (or billed) subscriptions of the term's roster before it and after it,
 * each in date order. A subscription belongs to one template and one batch (a move makes a
 * new one), so its bills are all in such terms.
 */
export async function termsAround(
  db: Queryable,
  term: Pick<TermRow, 'term_id' | 'app_code' | 'service_id' | 'batch_id' | 'start_date' | 'end_date'>,
): Promise<{ earlier: NearTerm[]; later: NearTerm[] }> {
  const r = await db.query<{ term_id: string; start_date: string; end_date: string; reading_watermark: string | null }>(
    `SELECT term_id, start_date, end_date, lowest_reading_watermark AS reading_watermark FROM term
      WHERE app_code = $1 AND service_id = $2 AND batch_id = $3 AND term_id <> $4
        AND (end_date < $5::date OR start_date > $6::date)
        AND status IN ('Processing', 'Processed', 'Posted')
      ORDER BY start_date`,
    [term.app_code, term.service_id, term.batch_id, term.term_id, term.start_date, term.end_date],
  );
  const all = r.rows.map((t) => ({ termId: t.term_id, start: t.start_date, end: t.end_date, watermark: t.reading_watermark }));
  return { earlier: all.filter((t) => t.end < term.start_date), later: all.filter((t) => t.start > term.end_date) };
}

/** A roster meter's readings as READINGS_SQL found them (the fields chaining reads and may replace). */
export type ChainRow = {
  subscription_id: string;
  code: string;
  prev_id: string | null;
  prev_date: string | null;
  prev_value: string | null;
  prev_kind: string | null;
  cur_id: string | null;
  cur_date: string | null;
  cur_value: string | null;
};

/** What chaining needs of a roster subscription. */
export type ChainInput = { accountId: string; suspended?: unknown };

/** A subscription that cannot be billed in the term: the meter at fault and why. */
export type ChainConflict = { path: string; message: string };

/** A live bill of a subscription (its own, or its account's) and the ids of the readings it was rated from, by meter. */
type BilledReadings = { billId: string; billNumber: string; termId: string; readings: BillSource['readings'] };
type ReadingRow = { id: string; date: string; value: string; kind: string };

/**
 * Makes each roster meter start where its subscription's latest bill of an earlier term ended
 * (rows changed in place). Only a meter whose last reading before the term may not be that
 * one is looked at: one recorded after the term its date falls in was approved (its id above
 * the lowest watermark that term's rounds read with, migration 099: a late reading, a
 * correction, a capture after approval; a rebill, made later still, read no more than what
 * was recorded by then), or of a subscription with
 * suspensions (a whole term off the roster). So a run whose readings were all recorded
 * before the last term was approved, with no suspension, reads no bill.
 */
export async function chainToEarlierBills(db: Queryable, earlier: readonly NearTerm[] | undefined, inputs: ReadonlyMap<string, ChainInput>, rows: ChainRow[]): Promise<void> {
  if (earlier === undefined || earlier.length === 0) return;
  const corrected = await correctedMeters(db, earlier, rows);
  const suspects = rows.filter((r) => {
    if (r.prev_id === null || r.prev_date === null) return false;
    if (inputs.get(r.subscription_id)?.suspended !== undefined || corrected.has(`${r.subscription_id}|${r.code}`)) return true;
    const term = covering(earlier, r.prev_date);
    return term !== undefined && (term.watermark === null || BigInt(r.prev_id) > BigInt(term.watermark));
  });
  if (suspects.length === 0) return;
  const subs = [...new Set(suspects.map((r) => r.subscription_id))];
  const bills = await latestBills(db, earlier, 'earlier', subs.map((id) => ({ subscriptionId: id, accountId: inputs.get(id)!.accountId })));
  const ends = new Map<ChainRow, string>();
  for (const r of suspects) {
    const end = bills.get(r.subscription_id)?.readings[r.code]?.current;
    if (end != null && end !== r.prev_id) ends.set(r, end);
  }
  if (ends.size === 0) return;
  const found = await readingsById(db, [...ends.values()]);
  for (const [r, id] of ends) {
    const end = found.get(id);
    if (end === undefined || (end.date === r.prev_date && new Dec(end.value).eq(r.prev_value!))) continue;
    r.prev_id = end.id;
    r.prev_date = end.date;
    r.prev_value = end.value;
    r.prev_kind = end.kind;
  }
}

/**
 * The roster subscriptions whose bill would end at another reading than the one their bill of
 * a later term starts from (terms billed out of order): by subscription id, why. Read only
 * when a later term holds bills.
 */
export async function laterBillOverlaps(db: Queryable, later: readonly NearTerm[] | undefined, inputs: ReadonlyMap<string, ChainInput>, rows: readonly ChainRow[]): Promise<Map<string, ChainConflict>> {
  const out = new Map<string, ChainConflict>();
  if (later === undefined || later.length === 0) return out;
  const metered = rows.filter((r) => r.prev_id !== null);
  if (metered.length === 0) return out;
  const subs = [...new Set(metered.map((r) => r.subscription_id))];
  const bills = await latestBills(db, later, 'later', subs.map((id) => ({ subscriptionId: id, accountId: inputs.get(id)!.accountId })));
  const starts = new Map<ChainRow, { bill: BilledReadings; start: string }>();
  for (const r of metered) {
    const bill = bills.get(r.subscription_id);
    const start = bill?.readings[r.code]?.previous;
    if (bill !== undefined && start != null && start !== r.cur_id) starts.set(r, { bill, start });
  }
  if (starts.size === 0) return out;
  const found = await readingsById(db, [...starts.values()].map((s) => s.start));
  const termOf = new Map(later.map((t) => [t.termId, t]));
  for (const [r, { bill, start }] of starts) {
    const s = found.get(start);
    if (s === undefined || out.has(r.subscription_id) || (r.cur_date === s.date && new Dec(r.cur_value!).eq(s.value))) continue;
    const term = termOf.get(bill.termId)!;
    const ends = r.cur_date === null ? 'this term has no reading of it' : `this term would bill it up to ${trim(r.cur_value!)} (reading of ${formatDate(r.cur_date)})`;
    out.set(r.subscription_id, {
      path: `readings.${r.code}`,
      message:
        `bill ${bill.billNumber} (billID ${bill.billId}) of the later term ${term.termId} (${formatDate(term.start)} to ${formatDate(term.end)}) bills ${r.code} from ` +
        `${trim(s.value)} (reading of ${formatDate(s.date)}), and ${ends}: billed so, consumption would be billed twice or by no bill. ` +
        `Cancel and rebill bill ${bill.billNumber} (cancel-bill), so that it starts from this term's last reading, then retry this subscription (retry-failures)`,
    });
  }
  return out;
}

/**
 * The roster subscriptions that ended inside the term by a move, whose new subscription's
 * first live bill starts a meter from another value than this term's last reading: the
 * closing reading was recorded, or corrected, after the new one was billed from the reading
 * carried over at the move (readings/carry.ts), and both bills would bill the difference.
 * Cancel and rebill that bill (cancel-bill carries again first), then retry. Only
 * subscriptions ending in the term are looked at: one probe of the moves' index for those.
 */
export async function successorOverlaps(db: Queryable, end: string, inputs: ReadonlyMap<string, ChainInput & { endDate: string | null }>, rows: readonly ChainRow[]): Promise<Map<string, ChainConflict>> {
  const out = new Map<string, ChainConflict>();
  const ending = [...new Set(rows.filter((r) => r.cur_id !== null && (inputs.get(r.subscription_id)?.endDate ?? '9999-12-31') <= end).map((r) => r.subscription_id))];
  if (ending.length === 0) return out;
  const r = await db.query<{ old_id: string; new_id: string; bill_id: string; bill_number: string; term_id: string; source: unknown }>(
    `SELECT DISTINCT ON (n.moved_from_subscription_id) n.moved_from_subscription_id AS old_id, n.subscription_id AS new_id, b.bill_id, b.bill_number, b.term_id, b.source
       FROM subscription n
       JOIN term t ON t.service_id = n.service_id AND t.batch_id = n.batch_id AND t.status IN ('Processing', 'Processed', 'Posted')
       JOIN bill b ON b.term_id = t.term_id AND b.subscription_id = n.subscription_id AND b.${LIVE}
      WHERE n.moved_from_subscription_id = ANY($1::bigint[])
      ORDER BY n.moved_from_subscription_id, t.start_date`,
    [ending],
  );
  if (r.rowCount === 0) return out;
  await loadPrototypes(db, r.rows.map((b) => b.source));
  const firstBill = new Map(r.rows.map((b) => [b.old_id, { ...b, readings: sourceGroups(b.new_id, b.source)[0]?.readings ?? {} }]));
  const starts = new Map<ChainRow, string>();
  for (const row of rows) {
    const start = firstBill.get(row.subscription_id)?.readings[row.code]?.previous;
    if (start != null) starts.set(row, start);
  }
  const found = await readingsById(db, [...starts.values()]);
  for (const [row, id] of starts) {
    const s = found.get(id);
    const bill = firstBill.get(row.subscription_id)!;
    if (s === undefined || out.has(row.subscription_id) || (row.cur_value !== null && new Dec(row.cur_value).eq(s.value))) continue;
    out.set(row.subscription_id, {
      path: `readings.${row.code}`,
      message:
        `subscription ${bill.new_id}, moved from this one, has bill ${bill.bill_number} (billID ${bill.bill_id}, term ${bill.term_id}) starting ${row.code} from ${trim(s.value)} (the reading carried over at the move), ` +
        `and this term would bill it up to ${row.cur_value === null ? 'no reading' : trim(row.cur_value)}: billed so, consumption would be billed twice or by no bill. ` +
        `Cancel and rebill bill ${bill.bill_number} (cancel-bill: its rebill starts from this subscription's last reading), then retry this subscription (retry-failures)`,
    });
  }
  return out;
}

/** A bill that must be rebilled with a correction, because its previous reading changes with it: which bill, and the bill it follows. */
export type ChainFollower = { billId: string; billNumber: string; termId: string; status: string; follows: string };

/**
 * The live bills of later terms whose start a correction of `billIds` with rebills moves:
 * for each bill, the same subscription's (or account's) bill of the next term of its
 * template and batch, when that bill's previous reading of a meter is no longer the last
 * effective reading before its term, with another value; and in turn the bills after those.
 * Rebilled after the corrected bills (oldest first), they start where those now end.
 */
export async function chainFollowers(db: Queryable, appCode: number, billIds: readonly string[]): Promise<ChainFollower[]> {
  const known = new Set(billIds);
  const found: ChainFollower[] = [];
  let frontier = [...billIds];
  while (frontier.length > 0) {
    const next = await db.query<{ follows: string; bill_id: string; bill_number: string; term_id: string; status: string; start_date: string; subscription_id: string | null; source: unknown; demand: string[] }>(
      `SELECT DISTINCT ON (c.bill_id) c.bill_number AS follows, n.bill_id, n.bill_number, n.term_id, n.status, t2.start_date, n.subscription_id, n.source,
              -- Its template's demand registers: billed as read, they start from no earlier bill's end.
              array(SELECT DISTINCT m->>'code' FROM service_version v, jsonb_array_elements(v.definition->'meteredInputs') m
                     WHERE v.service_id = t2.service_id AND m->>'register' = 'maximum') AS demand
         FROM bill c
         JOIN term t ON t.term_id = c.term_id
         JOIN term t2 ON t2.app_code = t.app_code AND t2.service_id = t.service_id AND t2.batch_id = t.batch_id AND t2.start_date > t.end_date
                     AND t2.status IN ('Processing', 'Processed', 'Posted')
         JOIN bill n ON n.term_id = t2.term_id AND n.${LIVE}
                    AND (n.subscription_id = c.subscription_id OR (c.subscription_id IS NULL AND n.subscription_id IS NULL AND n.account_id = c.account_id))
        WHERE c.app_code = $1 AND c.bill_id = ANY($2::bigint[])
        ORDER BY c.bill_id, t2.start_date`,
      [appCode, frontier],
    );
    frontier = [];
    if (next.rowCount === 0) break;
    await loadPrototypes(db, next.rows.map((r) => r.source));
    const starts: { billId: string; subscriptionId: string; code: string; startDate: string; previous: string }[] = [];
    for (const r of next.rows) {
      if (known.has(r.bill_id)) continue;
      for (const group of sourceGroups(r.subscription_id, r.source)) {
        for (const [code, ids] of Object.entries(group.readings)) {
          if (!r.demand.includes(code)) starts.push({ billId: r.bill_id, subscriptionId: group.subscriptionId, code, startDate: r.start_date, previous: ids.previous });
        }
      }
    }
    if (starts.length === 0) continue;
    // A previous reading dated in its own term (a new connection's opening reading) has no reading before the term to move to.
    const moved = await db.query<{ bill_id: string }>(
      `SELECT DISTINCT x.bill_id
         FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::date[], $5::bigint[]) AS x(bill_id, subscription_id, code, start_date, previous)
         JOIN reading p ON p.reading_id = x.previous
         LEFT JOIN LATERAL (
           SELECT r.reading_id, r.reading_date, r.value FROM reading r
            WHERE r.subscription_id = x.subscription_id AND r.input_code = x.code AND r.reading_date < x.start_date AND ${effectiveSql('r')}
            ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) now ON true
        WHERE p.reading_date < x.start_date AND (now.value IS DISTINCT FROM p.value OR now.reading_date IS DISTINCT FROM p.reading_date)`,
      [starts.map((s) => s.billId), starts.map((s) => s.subscriptionId), starts.map((s) => s.code), starts.map((s) => s.startDate), starts.map((s) => s.previous)],
    );
    const movedIds = new Set(moved.rows.map((m) => m.bill_id));
    for (const r of next.rows) {
      if (!movedIds.has(r.bill_id) || known.has(r.bill_id)) continue;
      known.add(r.bill_id);
      found.push({ billId: r.bill_id, billNumber: r.bill_number, termId: r.term_id, status: r.status, follows: r.follows });
      frontier.push(r.bill_id);
    }
  }
  return found;
}

/**
 * The roster meters with a correction recorded after the term just before this one was
 * approved (its lowest watermark): a correction may move the reading that term's bill ended
 * at out of its term (its date changed), and the last reading before this term is then an
 * older one, under every watermark (a reviewer: September billed from 31/07, 20 m3 twice).
 * One run later the chain holds it: that term's bill ended where this one's starts. By the
 * corrections' partial index (migration 100): corrections are few.
 */
async function correctedMeters(db: Queryable, earlier: readonly NearTerm[], rows: readonly ChainRow[]): Promise<Set<string>> {
  const lowest = earlier[earlier.length - 1]!.watermark ?? '0';
  const subs = [...new Set(rows.filter((r) => r.prev_id !== null).map((r) => r.subscription_id))];
  if (subs.length === 0) return new Set();
  const r = await db.query<{ subscription_id: string; input_code: string }>(
    `SELECT DISTINCT subscription_id, input_code FROM reading
      WHERE corrects_reading_id IS NOT NULL AND subscription_id = ANY($1::bigint[]) AND reading_id > $2::bigint`,
    [subs, String(lowest)],
  );
  return new Set(r.rows.map((x) => `${x.subscription_id}|${x.input_code}`));
}

/** The earlier term whose dates hold `date` (terms in date order). */
function covering(terms: readonly NearTerm[], date: string): NearTerm | undefined {
  for (let i = terms.length - 1; i >= 0; i--) {
    const t = terms[i]!;
    if (t.start <= date && date <= t.end) return t;
    if (t.end < date) return undefined;
  }
  return undefined;
}

/**
 * Per subscription, its bill (its own, or its account's bill) in the latest of `terms`
 * (`earlier`: the latest live one) or the first (`later`) that has one, with the readings it
 * was rated from. In `later`, a term whose bill of the subscription is cancelled and not
 * replaced yet answers none: a correction cancels every bill it rebills first, and that
 * bill's rebill starts from this one's end (a reviewer: with three months posted, the
 * rebill of the first was compared with the third's start, and refused). One probe of a
 * bill key per subscription and term; one row (one source decoded) per subscription.
 */
async function latestBills(db: Queryable, terms: readonly NearTerm[], which: 'earlier' | 'later', subs: { subscriptionId: string; accountId: string }[]): Promise<Map<string, BilledReadings>> {
  const status = which === 'earlier' ? `b.${LIVE}` : `b.status <> 'withdrawn'`;
  const r = await db.query<{ subscription_id: string; bill_id: string; bill_number: string; term_id: string; own: boolean; status: string; source: unknown }>(
    `SELECT DISTINCT ON (x.subscription_id) x.* FROM (
       SELECT w.subscription_id, b.bill_id, b.bill_number, b.term_id, true AS own, b.status, t.start_date, b.source
         FROM unnest($1::bigint[], $2::bigint[]) AS w(subscription_id, account_id)
        CROSS JOIN unnest($3::bigint[], $4::date[]) AS t(term_id, start_date)
         JOIN bill b ON b.term_id = t.term_id AND b.subscription_id = w.subscription_id AND ${status}
       UNION ALL
       SELECT w.subscription_id, b.bill_id, b.bill_number, b.term_id, false, b.status, t.start_date, b.source
         FROM unnest($1::bigint[], $2::bigint[]) AS w(subscription_id, account_id)
        CROSS JOIN unnest($3::bigint[], $4::date[]) AS t(term_id, start_date)
         JOIN bill b ON b.term_id = t.term_id AND b.account_id = w.account_id AND b.subscription_id IS NULL AND ${status}) x
      ORDER BY x.subscription_id, x.start_date ${which === 'earlier' ? 'DESC' : 'ASC'}, x.status = 'cancelled', x.bill_id DESC`,
    [subs.map((s) => s.subscriptionId), subs.map((s) => s.accountId), terms.map((t) => t.termId), terms.map((t) => t.start)],
  );
  const live = r.rows.filter((b) => b.status !== 'cancelled');
  await loadPrototypes(db, live.map((b) => b.source));
  const out = new Map<string, BilledReadings>();
  for (const b of live) {
    const group = sourceGroups(b.own ? b.subscription_id : null, b.source).find((g) => g.subscriptionId === b.subscription_id);
    if (group !== undefined) out.set(b.subscription_id, { billId: b.bill_id, billNumber: b.bill_number, termId: b.term_id, readings: group.readings });
  }
  return out;
}

/** A bill's source per subscription: a subscription bill's own, or each group's of an account bill (billRun/accountRun.ts). */
function sourceGroups(subscriptionId: string | null, stored: unknown): { subscriptionId: string; readings: BillSource['readings'] }[] {
  if (stored === null || stored === undefined) return [];
  const source = decodeStored<BillSource | { account: true; groups: (BillSource & { subscriptionId: string | number })[] }>(stored);
  if ('account' in source && source.account === true) return source.groups.map((g) => ({ subscriptionId: String(g.subscriptionId), readings: g.readings ?? {} }));
  return subscriptionId === null ? [] : [{ subscriptionId, readings: (source as BillSource).readings ?? {} }];
}

async function readingsById(db: Queryable, ids: string[]): Promise<Map<string, ReadingRow>> {
  const r = await db.query<{ reading_id: string; reading_date: string; value: string; kind: string }>(
    'SELECT reading_id, reading_date, value, kind FROM reading WHERE reading_id = ANY($1::bigint[])',
    [ids],
  );
  return new Map(r.rows.map((x) => [x.reading_id, { id: x.reading_id, date: x.reading_date, value: x.value, kind: x.kind }]));
}

const trim = (v: string) => new Dec(v).toFixed();
