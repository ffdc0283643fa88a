// SQL for webhooks: endpoints (scoped by app), their messages and attempts.
import { eventBodySql } from '../events/body.ts';
import type { Queryable } from '../db/pool.ts';
import { localTimeSql } from '../calendar/calendar.ts';

export type EndpointRow = {
  endpoint_id: string;
  app_code: number;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_by: string;
  modified_by: string;
};

export type EndpointView = EndpointRow & { created_text: string; modified_text: string; previous_until_text: string | null; failing_text: string | null };

const VIEW = `SELECT w.*, ${localTimeSql('w.created_at')} AS created_text, ${localTimeSql('w.modified_at')} AS modified_text,
                     ${localTimeSql('w.previous_secret_until')} AS previous_until_text, ${localTimeSql('w.failing_since')} AS failing_text
                FROM webhook_endpoint w JOIN app a ON a.app_code = w.app_code`;

export async function insertEndpoint(
  db: Queryable,
  appCode: number,
  e: { url: string; description: string; eventTypes: string[]; enabled: boolean; secret: string },
  by: string,
): Promise<string> {
  const r = await db.query<{ endpoint_id: string }>(
    `INSERT INTO webhook_endpoint (app_code, url, description, event_types, enabled, secret, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING endpoint_id`,
    [appCode, e.url, e.description, e.eventTypes, e.enabled, e.secret, by],
  );
  return r.rows[0]!.endpoint_id;
}

export async function listEndpoints(db: Queryable, appCode: number, endpointId: number | undefined): Promise<EndpointView[]> {
  const r = await db.query<EndpointView>(`${VIEW} WHERE w.app_code = $1 AND ($2::bigint IS NULL OR w.endpoint_id = $2) ORDER BY w.endpoint_id`, [appCode, endpointId ?? null]);
  return r.rows;
}

/** The endpoint of the app, locked for a change; undefined when the app has none with this id. */
export async function lockEndpoint(db: Queryable, appCode: number | null, endpointId: number | string): Promise<EndpointRow | undefined> {
  const r = await db.query<EndpointRow>('SELECT * FROM webhook_endpoint WHERE endpoint_id = $1 AND ($2::int IS NULL OR app_code = $2) FOR UPDATE', [endpointId, appCode]);
  return r.rows[0];
}

export async function updateEndpoint(
  db: Queryable,
  endpointId: string,
  e: { url: string; description: string; eventTypes: string[]; enabled: boolean },
  by: string,
): Promise<void> {
  // Enabled again (by a person): the failing streak starts over.
  await db.query(
    `UPDATE webhook_endpoint SET url = $2, description = $3, event_types = $4, enabled = $5,
            disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
            failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END,
            modified_at = now(), modified_by = $6
      WHERE endpoint_id = $1`,
    [endpointId, e.url, e.description, e.eventTypes, e.enabled, by],
  );
}

export async function disableEndpoint(db: Queryable, endpointId: string, reason: string, by: string): Promise<void> {
  await db.query(`UPDATE webhook_endpoint SET enabled = false, disabled_reason = $2, modified_at = now(), modified_by = $3 WHERE endpoint_id = $1`, [endpointId, reason, by]);
}

/** The new secret signs from now on; the old one too until `overlapSeconds` from now. */
export async function rotateSecret(db: Queryable, endpointId: string, secret: string, overlapSeconds: number, by: string): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoint SET previous_secret = CASE WHEN $3 > 0 THEN secret END,
            previous_secret_until = CASE WHEN $3 > 0 THEN now() + make_interval(secs => $3) END,
            secret = $2, modified_at = now(), modified_by = $4
      WHERE endpoint_id = $1`,
    [endpointId, secret, overlapSeconds, by],
  );
}

/** Pending messages of an endpoint that are waiting for it to be enabled again. */
export async function hasPending(db: Queryable, endpointId: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM webhook_message WHERE endpoint_id = $1 AND status = 'pending' LIMIT 1`, [endpointId]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Owes the endpoint these events again (a replay): a new message, or the old one back to
 * pending, due now, its backoff and its day starting over (its attempts stay in
 * webhook_attempt; an attempt already on its way does not settle it: `replays`). Only
 * events of the endpoint's app.
 */
export async function replayMessages(db: Queryable, endpoint: EndpointRow, filter: { eventId?: number; since?: string; types?: string[] | null }): Promise<number> {
  const r = await db.query(
    `INSERT INTO webhook_message (endpoint_id, event_id, app_code, order_key)
     SELECT $1, e.event_id, e.app_code, e.order_key FROM event e
      WHERE e.app_code = $2 AND ($3::bigint IS NULL OR e.event_id = $3) AND ($4::timestamp IS NULL OR e.created_at >= $4::timestamp AT TIME ZONE (SELECT time_zone FROM app WHERE app_code = $2))
        AND ($5::text[] IS NULL OR e.type = ANY ($5))
      ORDER BY e.event_id
     ON CONFLICT (endpoint_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = now(), first_attempt_at = NULL, delivered_at = NULL, attempts = 0,
                                                      replays = webhook_message.replays + 1`,
    [endpoint.endpoint_id, endpoint.app_code, filter.eventId ?? null, filter.since ?? null, filter.types ?? null],
  );
  return r.rowCount ?? 0;
}

export type AttemptView = {
  attempt_id: string;
  message_id: string;
  event_id: string;
  type: string;
  attempted_text: string;
  outcome: string;
  status_code: number | null;
  latency_ms: number;
  excerpt: string;
};

export async function listAttempts(
  db: Queryable,
  appCode: number,
  endpointId: string,
  f: { eventId?: number | undefined; afterAttemptId?: number | undefined; limit?: number | undefined },
): Promise<AttemptView[]> {
  const r = await db.query<AttemptView>(
    `SELECT t.attempt_id, t.message_id, t.event_id, e.type, ${localTimeSql('t.attempted_at')} AS attempted_text, t.outcome, t.status_code, t.latency_ms, t.excerpt
       FROM webhook_attempt t JOIN event e ON e.event_id = t.event_id JOIN app a ON a.app_code = t.app_code
      WHERE t.endpoint_id = $1 AND t.app_code = $2 AND ($3::bigint IS NULL OR t.event_id = $3) AND t.attempt_id > $4
      ORDER BY t.attempt_id LIMIT $5`,
    [endpointId, appCode, f.eventId ?? null, f.afterAttemptId ?? 0, f.limit ?? 1000],
  );
  return r.rows;
}

export type EventView = { event_id: string; type: string; order_key: string; data: Record<string, unknown>; created_text: string; created_iso: string };

export async function listEvents(
  db: Queryable,
  appCode: number,
  f: { type?: string | undefined; afterEventId?: number | undefined; since?: string | undefined; limit?: number | undefined },
): Promise<EventView[]> {
  const r = await db.query<EventView>(
    `SELECT e.event_id, e.type, e.order_key, ${eventBodySql('e')} AS data, ${localTimeSql('e.created_at')} AS created_text,
            to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_iso
       FROM event e JOIN app a ON a.app_code = e.app_code
      WHERE e.app_code = $1 AND ($2::text IS NULL OR e.type = $2) AND e.event_id > $3 AND ($4::timestamp IS NULL OR e.created_at >= $4::timestamp AT TIME ZONE a.time_zone)
      ORDER BY e.event_id LIMIT $5`,
    [appCode, f.type ?? null, f.afterEventId ?? 0, f.since ?? null, f.limit ?? 1000],
  );
  return r.rows;
}
