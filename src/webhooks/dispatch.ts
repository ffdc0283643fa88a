// The dispatch job of one endpoint: sends its due messages, a batch at a time, the
// oldest message of each order key only (the next of a key waits until it is delivered
// or given up, so a term's events arrive in the order they happened), many keys at once.
// Each attempt is logged; a failure is retried with exponential backoff until a day
// after the message's first attempt; an endpoint that has failed for a whole day is
// disabled, and an event says so. When retries are left, the job queues itself again for
// the earliest of them.
import { eventBodySql } from '../events/body.ts';
import { Agent, request } from 'undici';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { inTransaction } from '../db/pool.ts';
import { recordEvent } from '../events/record.ts';
import { ForbiddenAddress, guardedLookup, refusedAddress } from './address.ts';
import { signedHeaders } from './signing.ts';
import type { EndpointRow } from './store.ts';
import { DISPATCH_TASK } from '../events/dispatchQueue.ts';

export type WebhookSettings = Pick<Config, 'webhooksAllowPrivate' | 'webhookTimeoutMs' | 'webhookRetryBaseMs' | 'webhookGiveUpSeconds'>;

/** Messages read per batch, and requests of one batch in flight at once. */
const BATCH = 500;
const IN_FLIGHT = 32;
/** A job sends for this long at most, then queues itself again, so other endpoints get the workers too. */
const SLICE_MS = 30_000;
/** Longest wait between two attempts of a message. */
const MAX_DELAY_MS = 4 * 3600 * 1000;
/** Characters of the answer (or of the error) kept with an attempt. */
const EXCERPT = 500;

export type Due = { message_id: string; replays: number; event_id: string; type: string; data: Record<string, unknown>; created_iso: string };
export type Result = { ok: boolean; status: number | null; latencyMs: number; excerpt: string };

const agents = new Map<string, Agent>();
function agentFor(s: WebhookSettings): Agent {
  const key = `${s.webhooksAllowPrivate}:${s.webhookTimeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connections: IN_FLIGHT,
      keepAliveTimeout: 10_000,
      headersTimeout: s.webhookTimeoutMs,
      bodyTimeout: s.webhookTimeoutMs,
      connect: { timeout: s.webhookTimeoutMs, lookup: guardedLookup(s.webhooksAllowPrivate) } as Agent.Options['connect'],
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the kept-alive connections (a worker stopping, a test ending). */
export async function closeWebhookAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => {})));
}

/** The body an endpoint receives: the event's type, when it happened (UTC) and its data. */
export function eventBody(e: { type: string; created_iso: string; data: Record<string, unknown> }): string {
  return JSON.stringify({ type: e.type, timestamp: e.created_iso, data: e.data });
}

export const webhookId = (eventId: string | number) => `evt_${eventId}`;

async function send(url: string, secrets: string[], m: Due, s: WebhookSettings): Promise<Result> {
  const body = eventBody(m);
  const id = webhookId(m.event_id);
  const headers = { 'content-type': 'application/json', 'user-agent': 'billrun-webhooks/1', ...signedHeaders(secrets, id, Math.floor(Date.now() / 1000), body) };
  const started = performance.now();
  try {
    const res = await request(url, { method: 'POST', body, headers, dispatcher: agentFor(s), signal: AbortSignal.timeout(s.webhookTimeoutMs) });
    let excerpt = '';
    for await (const chunk of res.body) {
      excerpt += (chunk as Buffer).toString('utf8');
      if (excerpt.length >= EXCERPT) break;
    }
    const latencyMs = Math.round(performance.now() - started);
    return { ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode, latencyMs, excerpt: excerpt.slice(0, EXCERPT) };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    const cause = (err as { cause?: unknown }).cause;
    const reason = cause instanceof ForbiddenAddress ? cause.message : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { ok: false, status: null, latencyMs, excerpt: reason.slice(0, EXCERPT) };
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The head of each order key among the endpoint's pending messages that are due, oldest
 * first. In three plain statements rather than one anti-join: a queue table just filled
 * by a posting has no statistics yet, and the planner then nests a scan of every pending
 * message inside another (seconds per batch at a few thousand); each of these is one
 * index range at most, whatever the statistics say.
 */
async function dueMessages(db: pg.Pool, endpointId: string): Promise<Due[]> {
  let after = '0';
  for (;;) {
    const c = await db.query<{ message_id: string; replays: number; event_id: string; order_key: string }>(
      `SELECT message_id, replays, event_id, order_key FROM webhook_message
        WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= now() AND event_id > $2
        ORDER BY event_id LIMIT $3`,
      [endpointId, after, BATCH],
    );
    if (c.rows.length === 0) return [];
    const firsts = await db.query<{ order_key: string; first: string }>(
      `SELECT m.order_key, min(m.event_id) AS first
         FROM unnest($2::text[]) k(key) JOIN webhook_message m ON m.endpoint_id = $1 AND m.status = 'pending' AND m.order_key = k.key
        GROUP BY m.order_key`,
      [endpointId, [...new Set(c.rows.map((r) => r.order_key))]],
    );
    const first = new Map(firsts.rows.map((r) => [r.order_key, r.first]));
    const heads = c.rows.filter((r) => first.get(r.order_key) === r.event_id);
    if (heads.length > 0) {
      const e = await db.query<{ event_id: string; type: string; data: Record<string, unknown>; created_iso: string }>(
        `SELECT e.event_id, e.type, ${eventBodySql('e')} AS data, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_iso
           FROM event e WHERE e.event_id = ANY ($1::bigint[])`,
        [heads.map((h) => h.event_id)],
      );
      const byId = new Map(e.rows.map((r) => [r.event_id, r]));
      return heads.map((h) => ({ message_id: h.message_id, replays: h.replays, ...byId.get(h.event_id)! }));
    }
    // Every due message here waits behind an earlier one of its key: look further.
    if (c.rows.length < BATCH) return [];
    after = c.rows[c.rows.length - 1]!.event_id;
  }
}

/** The attempts of a batch, the messages' new state and the endpoint's, in one transaction. */
/** Records a batch's attempts: its messages, the attempts, the endpoint's failing state. Exported for the lock-order test. */
export async function recordBatch(db: pg.Pool, endpoint: EndpointRow, batch: Due[], results: Result[], s: WebhookSettings): Promise<void> {
  await inTransaction(db, async (tx) => {
    // The endpoint first, then its messages, as every route does (lockEndpoint): messages
    // first, a replay-event at the same moment deadlocked with it and was answered
    // CONFLICT after a second (an outside check).
    await tx.query('SELECT 1 FROM webhook_endpoint WHERE endpoint_id = $1 FOR UPDATE', [endpoint.endpoint_id]);
    const ids = batch.map((m) => m.message_id);
    const ok = results.map((r) => r.ok);
    // A message replayed since it was read is owed again: its attempt is logged below, but
    // it settles nothing (migration 112).
    await tx.query(
      `WITH r AS (SELECT * FROM unnest($1::bigint[], $2::boolean[], $6::int[]) AS u(message_id, ok, replays)),
       m AS (
         UPDATE webhook_message m
            SET attempts = m.attempts + 1, first_attempt_at = coalesce(m.first_attempt_at, now()),
                delivered_at = CASE WHEN r.ok THEN now() END,
                status = CASE WHEN r.ok THEN 'delivered'
                              WHEN now() >= coalesce(m.first_attempt_at, now()) + make_interval(secs => $3) THEN 'failed'
                              ELSE 'pending' END,
                next_attempt_at = CASE WHEN r.ok THEN m.next_attempt_at
                              ELSE least(now() + make_interval(secs => least($4::float8 * power(2, m.attempts), $5::float8) / 1000),
                                         coalesce(m.first_attempt_at, now()) + make_interval(secs => $3)) END
           FROM r WHERE m.message_id = r.message_id AND m.replays = r.replays
         RETURNING m.message_id)
       SELECT count(*) FROM m`,
      [ids, ok, s.webhookGiveUpSeconds, s.webhookRetryBaseMs, MAX_DELAY_MS, batch.map((m) => m.replays)],
    );
    await tx.query(
      `INSERT INTO webhook_attempt (message_id, endpoint_id, event_id, app_code, outcome, status_code, latency_ms, excerpt)
       SELECT u.m, $1, u.e, $2, CASE WHEN u.ok THEN 'delivered' ELSE 'failed' END, u.s, u.l, u.x
         FROM unnest($3::bigint[], $4::bigint[], $5::boolean[], $6::int[], $7::int[], $8::text[]) AS u(m, e, ok, s, l, x)`,
      [
        endpoint.endpoint_id,
        endpoint.app_code,
        ids,
        batch.map((m) => m.event_id),
        ok,
        results.map((r) => r.status),
        results.map((r) => r.latencyMs),
        results.map((r) => r.excerpt.replace(/\0/g, '')),
      ],
    );
    const anyOk = ok.some(Boolean);
    const e = await tx.query<{ failing_for: number; enabled: boolean }>(
      `UPDATE webhook_endpoint SET failing_since = CASE WHEN $2 THEN NULL ELSE coalesce(failing_since, now()) END
        WHERE endpoint_id = $1
        RETURNING enabled, extract(epoch FROM now() - coalesce(failing_since, now()))::float8 AS failing_for`,
      [endpoint.endpoint_id, anyOk],
    );
    const state = e.rows[0];
    if (state && state.enabled && !anyOk && state.failing_for >= s.webhookGiveUpSeconds) {
      const reason = `every attempt failed for ${Math.round(state.failing_for)} s (the last: ${results[results.length - 1]?.status ?? results[results.length - 1]?.excerpt ?? 'no answer'})`;
      await tx.query(`UPDATE webhook_endpoint SET enabled = false, disabled_reason = $2, modified_at = now(), modified_by = 'billrun' WHERE endpoint_id = $1`, [
        endpoint.endpoint_id,
        reason,
      ]);
      await recordEvent(tx, endpoint.app_code, 'webhook.endpoint_disabled', `endpoint:${endpoint.endpoint_id}`, {
        endpointID: Number(endpoint.endpoint_id),
        url: endpoint.url,
        reason,
      });
    }
  });
}

/** Sends what the endpoint is owed now; answers how many attempts were made. */
export async function dispatchEndpoint(db: pg.Pool, s: WebhookSettings, endpointId: string): Promise<number> {
  const started = Date.now();
  let attempts = 0;
  for (;;) {
    const r = await db.query<EndpointRow>('SELECT * FROM webhook_endpoint WHERE endpoint_id = $1', [endpointId]);
    const endpoint = r.rows[0];
    // Disabled: its messages wait, pending, until it is enabled again (update-endpoint queues this job).
    if (!endpoint || !endpoint.enabled) return attempts;
    if (Date.now() - started > SLICE_MS) {
      await requeue(db, endpointId, 'now');
      return attempts;
    }
    const batch = await dueMessages(db, endpointId);
    if (batch.length === 0) break;
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && endpoint.previous_secret_until && endpoint.previous_secret_until.getTime() > Date.now()) secrets.push(endpoint.previous_secret);
    // Checked before every batch: DNS may have changed since the endpoint was made.
    const refused = await refusedAddress(new URL(endpoint.url), s.webhooksAllowPrivate);
    const results = refused
      ? batch.map(() => ({ ok: false, status: null, latencyMs: 0, excerpt: `refused: ${refused}` }))
      : await mapLimit(batch, IN_FLIGHT, (m) => send(endpoint.url, secrets, m, s));
    attempts += batch.length;
    await recordBatch(db, endpoint, batch, results, s);
  }
  await requeue(db, endpointId, 'next');
  return attempts;
}

/**
 * Queues this job again: now (its slice is over), or for the earliest retry left (none:
 * no job). Only the head of each order key counts: the rest wait for it.
 */
async function requeue(db: pg.Pool, endpointId: string, when: 'now' | 'next'): Promise<void> {
  // preserve_run_at: a job an event queued meanwhile (due now) is not pushed back.
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('endpointId', $2::text), job_key := 'webhook:' || $2, queue_name := 'webhook:' || $2,
                                    run_at := t, max_attempts := 25, priority := 5, job_key_mode := 'preserve_run_at')
       FROM (SELECT CASE WHEN $3 = 'now' THEN now() ELSE min(next_attempt_at) END AS t
               FROM (SELECT DISTINCT ON (order_key) next_attempt_at FROM webhook_message
                      WHERE endpoint_id = $2::bigint AND status = 'pending' ORDER BY order_key, event_id) head) n
      WHERE n.t IS NOT NULL`,
    [DISPATCH_TASK, endpointId, when],
  );
}
