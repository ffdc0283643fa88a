// The one writer of events. Called in the transaction of the change it records: an
// event never exists without its change, nor a change without its event. In the same
// statement every enabled endpoint of the app subscribed to the type gets a message, and
// the endpoints' dispatch jobs are queued in the same transaction (dispatchQueue.ts).
import type { Queryable } from '../db/pool.ts';
import { queueDispatch } from './dispatchQueue.ts';
import type { EventType } from './types.ts';

export type EventItem = { orderKey: string; data: Record<string, unknown> };

/**
 * Writes events of one type (one row each, in the order given) and their messages;
 * answers the new event ids. orderKey groups the events an endpoint receives in order
 * ('term:12', 'bill:40'), see docs/webhooks.md.
 */
export async function recordEvents(tx: Queryable, appCode: number, type: EventType, items: readonly EventItem[]): Promise<string[]> {
  if (items.length === 0) return [];
  const r = await tx.query<{ event_id: string; endpoints: string[] | null }>(
    `WITH e AS (
       INSERT INTO event (app_code, type, order_key, data)
       SELECT $1, $2, k, d FROM unnest($3::text[], $4::jsonb[]) WITH ORDINALITY AS u(k, d, n) ORDER BY n
       RETURNING event_id, app_code, type, order_key),
     m AS (
       INSERT INTO webhook_message (endpoint_id, event_id, app_code, order_key)
       SELECT w.endpoint_id, e.event_id, e.app_code, e.order_key
         FROM e JOIN webhook_endpoint w ON w.app_code = e.app_code AND w.enabled AND e.type = ANY (w.event_types)
       RETURNING endpoint_id)
     SELECT e.event_id, (SELECT array_agg(DISTINCT endpoint_id::text) FROM m) AS endpoints FROM e ORDER BY e.event_id`,
    [appCode, type, items.map((i) => i.orderKey), items.map((i) => JSON.stringify(i.data))],
  );
  const endpoints = r.rows[0]?.endpoints ?? [];
  await queueDispatch(tx, endpoints);
  return r.rows.map((x) => x.event_id);
}

/** One event. */
export async function recordEvent(tx: Queryable, appCode: number, type: EventType, orderKey: string, data: Record<string, unknown>): Promise<string> {
  const [id] = await recordEvents(tx, appCode, type, [{ orderKey, data }]);
  return id!;
}

/**
 * Writes the lean events `insert` makes (an INSERT INTO event ... RETURNING event_id, app_code,
 * type, order_key), each subscribed endpoint's message in the same statement, and queues the
 * endpoints' dispatch. Answers how many events were written.
 */
async function writeBillEvents(tx: Queryable, insert: string, values: unknown[]): Promise<number> {
  const r = await tx.query<{ written: string; endpoints: string[] | null }>(
    `WITH e AS (${insert}),
     m AS (
       INSERT INTO webhook_message (endpoint_id, event_id, app_code, order_key)
       SELECT w.endpoint_id, e.event_id, e.app_code, e.order_key
         FROM e JOIN webhook_endpoint w ON w.app_code = e.app_code AND w.enabled AND e.type = ANY (w.event_types)
       RETURNING endpoint_id)
     SELECT (SELECT count(*) FROM e) AS written, (SELECT array_agg(DISTINCT endpoint_id::text) FROM m) AS endpoints`,
    values,
  );
  await queueDispatch(tx, r.rows[0]?.endpoints ?? []);
  return Number(r.rows[0]?.written ?? 0);
}

/**
 * The per-bill events of a posted term (or of the bills given), set-based in SQL in the
 * posting's statement. Always written, subscriber or not: product.md makes every bill
 * posted an event, logged and replayable, and an endpoint added later replays them. Each
 * row names its bill and stores no body (body.ts renders it on read, migration 103): a
 * million bodies built here took a third of the posting. Answers how many were written.
 */
export async function recordBillEvents(tx: Queryable, appCode: number, termId: string, type: 'bill.posted', billIds?: readonly string[]): Promise<number> {
  return writeBillEvents(
    tx,
    `INSERT INTO event (app_code, type, order_key, source_id)
     SELECT b.app_code, $3, 'bill:' || b.bill_id, b.bill_id
       FROM bill b
      WHERE b.term_id = $2 AND b.app_code = $1 AND b.status = 'posted' AND ($4::bigint[] IS NULL OR b.bill_id = ANY ($4::bigint[]))
      ORDER BY b.bill_id
     RETURNING event_id, app_code, type, order_key`,
    [appCode, termId, type, billIds ?? null],
  );
}

/**
 * Events whose body is rendered from their bill's row (body.ts): one per bill given, in the
 * order given, in the caller's transaction (the late charges of a page). Answers how many.
 */
export async function recordBillSourcedEvents(tx: Queryable, appCode: number, type: 'late_charge.made', billIds: readonly string[]): Promise<number> {
  if (billIds.length === 0) return 0;
  return writeBillEvents(
    tx,
    `INSERT INTO event (app_code, type, order_key, source_id)
     SELECT $1, $2, 'bill:' || b, b FROM unnest($3::bigint[]) WITH ORDINALITY AS u(b, n) ORDER BY n
     RETURNING event_id, app_code, type, order_key`,
    [appCode, type, billIds],
  );
}
