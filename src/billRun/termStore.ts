// SQL for terms: the term row, its roster and failures. Every query is scoped by app.
import type { Queryable } from '../db/pool.ts';
import { filters, statementName } from '../db/filters.ts';
import type { TermStatus } from './termStates.ts';
import { localTimeSql } from '../calendar/calendar.ts';

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
  /** Corrections after posting (migration 102): bills cancelled, rebills, and the totals of the bills in force. */
  bills_cancelled: number;
  bills_rebilled: number;
  in_force_charges: string;
  in_force_tax: string;
  in_force_amount: string;
  in_force_brought_forward: string;
  in_force_due: string;
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

const local = (col: string, alias: string) => `${localTimeSql(col)} AS ${alias}`;

const COLUMNS = `t.term_id, t.app_code, t.service_id, t.service_version_id, s.service_code, v.version AS service_version,
         t.batch_id, b.batch_code, t.billing_period_id, t.label, t.start_date, t.end_date, t.due_date, t.post_type,
         t.status, t.roster_loaded_at, t.validated_at, t.approved_at, t.reading_watermark, t.exceptions, t.exception_count,
         to_char(t.shedule_time, 'YYYY-MM-DD"T"HH24:MI:SS') AS shedule_time, t.job_round,
         ${local('t.job_started_at', 'job_started_at')}, ${local('t.job_finished_at', 'job_finished_at')}, t.job_last_error,
         t.chunks_total, t.chunks_done, t.subscription_count, t.reading_count, t.bill_count, t.failure_count,
         t.total_charges, t.total_tax, t.total_amount, t.total_brought_forward, t.total_due,
         t.bills_cancelled, t.bills_rebilled, t.total_charges + t.corrected_charges AS in_force_charges,
         t.total_tax + t.corrected_tax AS in_force_tax, t.total_amount + t.corrected_amount AS in_force_amount,
         t.total_brought_forward + t.corrected_brought_forward AS in_force_brought_forward, t.total_due + t.corrected_due AS in_force_due,
         ${local('t.posted_at', 'posted_at')},
         ${local('t.created_at', 'created_at')}, t.created_by, ${local('t.modified_at', 'modified_at')}, t.modified_by,
         a.time_zone, a.minor_units, a.rounding_mode,
         coalesce((v.definition->>'postBilling')::int, 0) AS post_billing`;

const FROM = `
    FROM term t
    JOIN app a ON a.app_code = t.app_code
    JOIN service s ON s.service_id = t.service_id
    JOIN service_version v ON v.service_version_id = t.service_version_id
    JOIN batch b ON b.batch_id = t.batch_id`;

const SELECT = `SELECT ${COLUMNS}${FROM}`;

export type TermFilter = { termID?: number; serviceCode?: string; batchCode?: string; billingPeriodID?: number; status?: string };

/**
 * Columns another feature adds to a listing of terms (alias t, the app a), each named and
 * built in its own module, so that get-terms stays one query: `name` names the prepared statement.
 */
export type TermListExtra = { name: string; columns: string };

export async function listTerms<X extends object = object>(db: Queryable, appCode: number, f: TermFilter, extra?: TermListExtra): Promise<(TermRow & X)[]> {
  const w = filters('t.app_code = $1', appCode);
  if (f.termID !== undefined) w.add((p) => `t.term_id = ${p}`, f.termID);
  if (f.serviceCode !== undefined) w.add((p) => `s.service_code = ${p}`, f.serviceCode);
  if (f.batchCode !== undefined) w.add((p) => `b.batch_code = ${p}`, f.batchCode);
  if (f.billingPeriodID !== undefined) w.add((p) => `t.billing_period_id = ${p}`, f.billingPeriodID);
  if (f.status !== undefined) w.add((p) => `t.status = ${p}`, f.status);
  const text = `SELECT ${COLUMNS}${extra ? `, ${extra.columns}` : ''}${FROM}
     WHERE ${w.sql()}
     ORDER BY t.term_id`;
  const r = await db.query<TermRow & X>({ name: statementName(extra ? `list-terms+${extra.name}` : 'list-terms', text), text, values: w.params });
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

// Named writes of the term row: each says which move or step it records, so a column
// is written in the places that name it, and the run's counters are reset in one.

/** make-term: a Draft term; without a due date, its end date plus the template's offset. Answers its id. */
export async function insertTerm(
  db: Queryable,
  by: string,
  t: { appCode: number; serviceId: string; serviceVersionId: string; batchId: string; billingPeriodId: number; label: string; start: string; end: string; due: string | null; dueDateOffset: number; postType: string },
): Promise<string> {
  const r = await db.query<{ term_id: string }>(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label,
                       start_date, end_date, due_date, post_type, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9::date, $8::date + $10::int), $11, $12, $12)
     RETURNING term_id`,
    [t.appCode, t.serviceId, t.serviceVersionId, t.batchId, t.billingPeriodId, t.label, t.start, t.end, t.due, t.dueDateOffset, t.postType, by],
  );
  return r.rows[0]!.term_id;
}

/** Every write of a term row stamps who made it and when; a move also sets the status. */
async function write(db: Queryable, termId: string, by: string | null, status: TermStatus | null, set: string, params: unknown[] = []): Promise<void> {
  await db.query(
    `UPDATE term SET status = coalesce($3::text, status), modified_by = coalesce($2::text, modified_by),
            modified_at = CASE WHEN $2::text IS NULL THEN modified_at ELSE now() END${set ? ', ' + set : ''}
      WHERE term_id = $1`,
    [termId, by, status, ...params],
  );
}

/** What the run adds up as chunks commit, reset together whenever a run starts again or is withdrawn. */
const RUN_COUNTERS = `chunks_total = 0, chunks_done = 0, bill_count = 0, failure_count = 0, total_charges = 0, total_tax = 0,
  total_amount = 0, total_brought_forward = 0, total_due = 0`;

/** load-subscriptions: the roster is new, so any validation of the old one is gone. */
export function markLoaded(db: Queryable, termId: string, status: TermStatus, by: string, subscriptions: number, readings: number): Promise<void> {
  return write(db, termId, by, status, `roster_loaded_at = now(), subscription_count = $4, reading_count = $5, validated_at = NULL, exceptions = '[]', exception_count = 0`, [subscriptions, readings]);
}

/** The run loaded the roster itself (load-subscriptions was skipped). */
export function recordRoster(db: Queryable, termId: string, subscriptions: number): Promise<void> {
  return write(db, termId, null, null, 'roster_loaded_at = now(), subscription_count = $4', [subscriptions]);
}

/** capture-readings: new readings make a validation stale. */
export function markReadingsCaptured(db: Queryable, termId: string, status: TermStatus, by: string, readings: number): Promise<void> {
  return write(db, termId, by, status, 'reading_count = $4, validated_at = NULL', [readings]);
}

/** update-service dated a version inside the term: the validation, and the preview it showed, no longer stand. */
export function markTariffDated(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  return write(db, termId, by, status, 'validated_at = NULL');
}

export function markValidated(db: Queryable, termId: string, status: TermStatus, by: string, v: { exceptions: unknown[]; exceptionCount: number; readings: number }): Promise<void> {
  return write(db, termId, by, status, 'validated_at = now(), exceptions = $4, exception_count = $5, reading_count = $6', [JSON.stringify(v.exceptions), v.exceptionCount, v.readings]);
}

export function markApproved(db: Queryable, termId: string, status: TermStatus, by: string, watermark: string): Promise<void> {
  return write(db, termId, by, status, 'approved_at = now(), reading_watermark = $4, lowest_reading_watermark = least(lowest_reading_watermark, $4::bigint)', [watermark]);
}

/**
 * The run approved the term itself (approve-term was skipped). Validated here or by
 * validate-term, the reading count stands: here, every roster subscription has its
 * readings (or the check failed the term). Checked here, the exceptions an earlier run's
 * check stored when it failed the term are gone: this check found none (an outside
 * client saw a term Processed with every bill made still listing the MISSING_READING
 * that had failed its first run). validate-term's findings stay, as approved.
 */
export function recordRunApproval(db: Queryable, termId: string, watermark: string | null, metered: boolean): Promise<void> {
  return write(
    db,
    termId,
    null,
    null,
    `approved_at = now(), reading_watermark = $4, lowest_reading_watermark = least(lowest_reading_watermark, $4::bigint), reading_count = CASE WHEN validated_at IS NULL AND $5 THEN subscription_count ELSE reading_count END,
     exceptions = CASE WHEN validated_at IS NULL THEN '[]' ELSE exceptions END, exception_count = CASE WHEN validated_at IS NULL THEN 0 ELSE exception_count END`,
    [watermark, metered],
  );
}

/** process-term and retry-failures: a new round of the run, its job at runAt. */
export function markScheduled(
  db: Queryable,
  termId: string,
  status: TermStatus,
  by: string,
  s: { sheduleTime: string; runAt: string; round: number; watermark: string | null },
): Promise<void> {
  return write(
    db,
    termId,
    by,
    status,
    `shedule_time = $4::timestamp, run_at = $5, job_round = $6, job_started_at = NULL, job_finished_at = NULL,
     job_last_error = NULL, chunks_total = 0, chunks_done = 0, reading_watermark = $7, lowest_reading_watermark = least(lowest_reading_watermark, $7::bigint)`,
    [s.sheduleTime, s.runAt, s.round, s.watermark],
  );
}

/** A test app's clock moved forward (admin/clock.ts): the scheduled round runs earlier, at runAt; nothing else changes. */
export function moveRunAt(db: Queryable, termId: string, runAt: string): Promise<void> {
  return write(db, termId, null, null, 'run_at = $4', [runAt]);
}

export function markCancelled(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  return write(db, termId, by, status, '');
}

/** reverse-term: the bills are withdrawn, so the validation, approval and everything the run added up go with them. */
export function markReversed(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  return write(db, termId, by, status, `validated_at = NULL, approved_at = NULL, reading_watermark = NULL, exceptions = '[]', exception_count = 0, ${RUN_COUNTERS}`);
}

export function markRunStarted(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  return write(db, termId, by, status, 'job_started_at = now()');
}

/** The run's own check found what would make bills wrong: no bill is made. */
export function markCheckFailed(db: Queryable, termId: string, status: TermStatus, by: string, f: { lastError: string; exceptions: unknown[]; exceptionCount: number }): Promise<void> {
  return write(db, termId, by, status, 'job_finished_at = now(), job_last_error = $4, exceptions = $5, exception_count = $6', [f.lastError, JSON.stringify(f.exceptions), f.exceptionCount]);
}

export function recordChunksPlanned(db: Queryable, termId: string, chunks: number): Promise<void> {
  return write(db, termId, null, null, 'chunks_total = $4', [chunks]);
}

/** A chunk committed: its bills, failures (new less fixed) and totals add to the term's. Answers the progress. */
export async function addChunkProgress(
  db: Queryable,
  termId: string,
  c: { bills: number; failures: number; totals: { charges: string; tax: string; total: string; balanceBroughtForward: string; totalDue: string } },
): Promise<{ chunksDone: number; chunksTotal: number }> {
  const r = await db.query<{ chunks_done: number; chunks_total: number }>(
    `UPDATE term SET chunks_done = chunks_done + 1, bill_count = bill_count + $2, failure_count = failure_count + $3,
            total_charges = total_charges + $4, total_tax = total_tax + $5, total_amount = total_amount + $6,
            total_brought_forward = total_brought_forward + $7, total_due = total_due + $8
      WHERE term_id = $1 RETURNING chunks_done, chunks_total`,
    [termId, c.bills, c.failures, c.totals.charges, c.totals.tax, c.totals.total, c.totals.balanceBroughtForward, c.totals.totalDue],
  );
  const p = r.rows[0]!;
  return { chunksDone: p.chunks_done, chunksTotal: p.chunks_total };
}

export function markRunFinished(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  return write(db, termId, by, status, 'job_finished_at = now()');
}

export function markPosted(db: Queryable, termId: string, status: TermStatus, by: string): Promise<void> {
  // A retry round's posting keeps the first: postedAt says when the term was posted.
  return write(db, termId, by, status, 'posted_at = coalesce(posted_at, now())');
}

/** A job step threw: kept for get-terms (job.lastError) while the queue retries it. */
export function recordJobError(db: Queryable, termId: string, message: string): Promise<void> {
  return write(db, termId, null, null, 'job_last_error = $4', [message.slice(0, 1000)]);
}

export type FailureRow = { subscription_id: string; account_id: string; account_number: string; code: string; reason: string; details: { path: string; message: string }[]; failed_at: string };

/** The run's failures of a term of the app, by subscription, a page at a time; undefined when the app has no such term. */
export async function listFailures(db: Queryable, appCode: number, termId: number, limit: number, offset: number): Promise<{ rows: FailureRow[]; total: number } | undefined> {
  const term = await db.query<{ failure_count: number }>('SELECT failure_count FROM term WHERE term_id = $1 AND app_code = $2', [termId, appCode]);
  if (!term.rows[0]) return undefined;
  const r = await db.query<FailureRow>(
    `SELECT f.subscription_id, s.account_id, ac.account_number, f.code, f.reason, f.details,
            ${localTimeSql('f.failed_at')} AS failed_at
       FROM term_failure f
       JOIN subscription s ON s.subscription_id = f.subscription_id
       JOIN account ac ON ac.account_id = s.account_id
       JOIN app a ON a.app_code = ac.app_code
      WHERE f.term_id = $1
      ORDER BY f.subscription_id LIMIT $2 OFFSET $3`,
    [termId, limit, offset],
  );
  const total = await db.query<{ n: string }>('SELECT count(*) AS n FROM term_failure WHERE term_id = $1', [termId]);
  return { rows: r.rows, total: Number(total.rows[0]?.n ?? 0) };
}

/**
 * The exceptions with their accounts' numbers, as an officer knows the accounts: a
 * billing officer's walk read "Account 21" in the exceptions table. One lookup for the
 * list, at the moment it is stored.
 */
export async function withAccountNumbers<E extends { accountID: number; accountNumber?: string }>(db: Queryable, exceptions: E[]): Promise<E[]> {
  if (exceptions.length === 0) return exceptions;
  const r = await db.query<{ account_id: string; account_number: string }>('SELECT account_id, account_number FROM account WHERE account_id = ANY($1::bigint[])', [
    [...new Set(exceptions.map((e) => e.accountID))],
  ]);
  const numbers = new Map(r.rows.map((x) => [Number(x.account_id), x.account_number]));
  return exceptions.map((e) => {
    const { accountID, ...rest } = e;
    return { accountID, accountNumber: numbers.get(accountID) ?? '', ...rest } as E;
  });
}
