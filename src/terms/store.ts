// SQL for terms: the term row, its roster and failures. Every query is scoped by app.
import type { Queryable } from '../db/pool.ts';
import type { TermStatus } from './states.ts';
import { suspensionPeriodsSql } from './suspensions.ts';

export type TermRow = {
  term_id: string;
  app_code: number;
  service_id: string;
  service_version_id: string;
  service_code: string;
  service_version: number;
  batch_id: string;
  batch_code: string;
  billing_period_id: number;
  label: string;
  start_date: string;
  end_date: string;
  due_date: string;
  post_type: string;
  status: TermStatus;
  roster_loaded_at: string | null;
  validated_at: string | null;
  approved_at: string | null;
  reading_watermark: string | null;
  exceptions: unknown[];
  exception_count: number;
  shedule_time: string | null;
  job_round: number;
  job_started_at: string | null;
  job_finished_at: string | null;
  job_last_error: string | null;
  chunks_total: number;
  chunks_done: number;
  subscription_count: number;
  reading_count: number;
  bill_count: number;
  failure_count: number;
  total_charges: string;
  total_tax: string;
  total_amount: string;
  total_brought_forward: string;
  total_due: string;
  posted_at: string | null;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
  time_zone: string;
  minor_units: number;
  rounding_mode: string;
  post_billing: number;
};

const local = (col: string, alias: string) => `to_char(${col} AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS ${alias}`;

const SELECT = `
  SELECT t.term_id, t.app_code, t.service_id, t.service_version_id, s.service_code, v.version AS service_version,
         t.batch_id, b.batch_code, t.billing_period_id, t.label, t.start_date, t.end_date, t.due_date, t.post_type,
         t.status, t.roster_loaded_at, t.validated_at, t.approved_at, t.reading_watermark, t.exceptions, t.exception_count,
         to_char(t.shedule_time, 'YYYY-MM-DD"T"HH24:MI:SS') AS shedule_time, t.job_round,
         ${local('t.job_started_at', 'job_started_at')}, ${local('t.job_finished_at', 'job_finished_at')}, t.job_last_error,
         t.chunks_total, t.chunks_done, t.subscription_count, t.reading_count, t.bill_count, t.failure_count,
         t.total_charges, t.total_tax, t.total_amount, t.total_brought_forward, t.total_due,
         ${local('t.posted_at', 'posted_at')},
         ${local('t.created_at', 'created_at')}, t.created_by, ${local('t.modified_at', 'modified_at')}, t.modified_by,
         a.time_zone, a.minor_units, a.rounding_mode,
         coalesce((v.definition->>'postBilling')::int, 0) AS post_billing
    FROM term t
    JOIN app a ON a.app_code = t.app_code
    JOIN service s ON s.service_id = t.service_id
    JOIN service_version v ON v.service_version_id = t.service_version_id
    JOIN batch b ON b.batch_id = t.batch_id`;

export type TermFilter = { termID?: number; serviceCode?: string; batchCode?: string; billingPeriodID?: number; status?: string };

export async function listTerms(db: Queryable, appCode: number, f: TermFilter): Promise<TermRow[]> {
  const r = await db.query<TermRow>(
    `${SELECT}
     WHERE t.app_code = $1
       AND ($2::bigint IS NULL OR t.term_id = $2) AND ($3::text IS NULL OR s.service_code = $3)
       AND ($4::text IS NULL OR b.batch_code = $4) AND ($5::int IS NULL OR t.billing_period_id = $5)
       AND ($6::text IS NULL OR t.status = $6)
     ORDER BY t.term_id`,
    [appCode, f.termID ?? null, f.serviceCode ?? null, f.batchCode ?? null, f.billingPeriodID ?? null, f.status ?? null],
  );
  return r.rows;
}

/** The term, locked for a move in the caller's transaction; undefined when the app has none with this id. */
export async function lockTerm(db: Queryable, appCode: number | null, termId: number | string): Promise<TermRow | undefined> {
  const r = await db.query<TermRow>(`${SELECT} WHERE t.term_id = $1 AND ($2::int IS NULL OR t.app_code = $2) FOR UPDATE OF t`, [termId, appCode]);
  return r.rows[0];
}

/** The term as it is now, without a lock (the run's jobs read it before their transaction). */
export async function readTerm(db: Queryable, termId: number | string): Promise<TermRow | undefined> {
  const r = await db.query<TermRow>(`${SELECT} WHERE t.term_id = $1`, [termId]);
  return r.rows[0];
}

export async function setStatus(db: Queryable, termId: string, status: TermStatus, by: string, extra = '', params: unknown[] = []): Promise<void> {
  await db.query(
    `UPDATE term SET status = $2, modified_at = now(), modified_by = $3${extra ? ', ' + extra : ''} WHERE term_id = $1`,
    [termId, status, by, ...params],
  );
}

/**
 * The roster: the batch's subscriptions to the term's template active on at least one
 * day of the term, less those suspended on every day of it they are connected (they
 * get no bill and are no failure). Replaces an earlier roster of the same term.
 * Suspensions are read only for the batch's subscriptions that have suspension events
 * (a join from the event table), merged per subscription (range_agg), and left-joined
 * by hash: a batch without suspensions costs one empty scan.
 */
export async function loadRoster(db: Queryable, term: TermRow): Promise<number> {
  await db.query('DELETE FROM term_subscription WHERE term_id = $1', [term.term_id]);
  const r = await db.query(
    `WITH suspended AS (
       SELECT x.subscription_id, range_agg(x.period) AS days
         FROM (${suspensionPeriodsSql(
           `e.subscription_id IN (SELECT c.subscription_id FROM subscription c
                                   WHERE c.app_code = $2 AND c.service_id = $3 AND c.batch_id = $4
                                     AND c.start_date <= $6 AND (c.end_date IS NULL OR c.end_date >= $5))`,
         )}) x
        GROUP BY x.subscription_id)
     INSERT INTO term_subscription (term_id, subscription_id)
     SELECT $1, s.subscription_id FROM subscription s
       LEFT JOIN suspended u ON u.subscription_id = s.subscription_id
      WHERE s.app_code = $2 AND s.service_id = $3 AND s.batch_id = $4
        AND s.start_date <= $6 AND (s.end_date IS NULL OR s.end_date >= $5)
        AND (u.days IS NULL OR NOT u.days @> daterange(greatest(s.start_date, $5::date), least(s.end_date, $6::date), '[]'))`,
    [term.term_id, term.app_code, term.service_id, term.batch_id, term.start_date, term.end_date],
  );
  return r.rowCount ?? 0;
}

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

export async function tariffOf(db: Queryable, serviceVersionId: string): Promise<Record<string, any>> {
  const r = await db.query<{ definition: Record<string, any> }>('SELECT definition FROM service_version WHERE service_version_id = $1', [serviceVersionId]);
  return r.rows[0]!.definition;
}
