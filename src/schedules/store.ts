// SQL of bill-cycle schedules (migration 056): the schedule rows, the periods they made
// terms for, the run log and the per-app day rows of the daily job.
import type { Queryable } from '../db/pool.ts';
import { todaySql } from '../calendar/calendar.ts';

export type ScheduleRow = {
  schedule_id: string;
  app_code: number;
  service_code: string;
  batch_code: string;
  billing_cycle: number;
  cycle_months: number;
  anchor_date: string;
  auto_process: boolean;
  estimate_missing: boolean;
  status: 'active' | 'paused';
  next_period: number;
  /** The end of the period before next_period, when the schedule made its term (periodAfter). */
  previous_end: string | null;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
};

const SELECT = `SELECT bs.schedule_id, bs.app_code, s.service_code, b.batch_code, bs.billing_cycle, bs.cycle_months,
                       bs.anchor_date::text AS anchor_date, bs.auto_process, bs.estimate_missing, bs.status, bs.next_period,
                       (SELECT p.end_date::text FROM bill_schedule_period p WHERE p.schedule_id = bs.schedule_id AND p.period_index = bs.next_period - 1) AS previous_end,
                       to_char(bs.created_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS created_at, bs.created_by,
                       to_char(bs.modified_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS modified_at, bs.modified_by
                  FROM bill_schedule bs
                  JOIN service s ON s.service_id = bs.service_id
                  JOIN batch b ON b.batch_id = bs.batch_id
                  JOIN app a ON a.app_code = bs.app_code`;

export type ScheduleFilter = { scheduleID?: number | undefined; serviceCode?: string | undefined; batchCode?: string | undefined; status?: string | undefined };

export async function listSchedules(db: Queryable, appCode: number, f: ScheduleFilter): Promise<ScheduleRow[]> {
  const r = await db.query<ScheduleRow>(
    `${SELECT}
      WHERE bs.app_code = $1 AND ($2::bigint IS NULL OR bs.schedule_id = $2) AND ($3::text IS NULL OR s.service_code = $3)
        AND ($4::text IS NULL OR b.batch_code = $4) AND ($5::text IS NULL OR bs.status = $5)
      ORDER BY bs.schedule_id`,
    [appCode, f.scheduleID ?? null, f.serviceCode ?? null, f.batchCode ?? null, f.status ?? null],
  );
  return r.rows;
}

/** One schedule of the app, locked for the caller's transaction. */
export async function lockSchedule(db: Queryable, appCode: number, scheduleId: number | string): Promise<ScheduleRow | undefined> {
  const r = await db.query<ScheduleRow>(`${SELECT} WHERE bs.app_code = $1 AND bs.schedule_id = $2 FOR UPDATE OF bs`, [appCode, scheduleId]);
  return r.rows[0];
}

export async function insertSchedule(
  db: Queryable,
  by: string,
  s: { appCode: number; serviceId: string; batchId: string; billingCycle: number; cycleMonths: number; anchor: string; autoProcess: boolean; estimateMissing: boolean; nextPeriod: number },
): Promise<string> {
  const r = await db.query<{ schedule_id: string }>(
    `INSERT INTO bill_schedule (app_code, service_id, batch_id, billing_cycle, cycle_months, anchor_date, auto_process, estimate_missing, next_period, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING schedule_id`,
    [s.appCode, s.serviceId, s.batchId, s.billingCycle, s.cycleMonths, s.anchor, s.autoProcess, s.estimateMissing, s.nextPeriod, by],
  );
  return r.rows[0]!.schedule_id;
}

export async function setStatus(db: Queryable, scheduleId: string, by: string, status: 'active' | 'paused', nextPeriod: number | null): Promise<void> {
  await db.query(
    `UPDATE bill_schedule SET status = $2, next_period = coalesce($3, next_period), modified_at = now(), modified_by = $4 WHERE schedule_id = $1`,
    [scheduleId, status, nextPeriod, by],
  );
}

/** The active schedules of an app, in the order they were made. */
export async function activeSchedules(db: Queryable, appCode: number): Promise<ScheduleRow[]> {
  return listSchedules(db, appCode, { status: 'active' });
}

export type PeriodRow = { period_index: number; billing_period_id: number; start_date: string; end_date: string; term_id: string; status: string };

/** The periods of a schedule not closed yet that ended before `date`, oldest first, with their term's status. */
export async function periodsToClose(db: Queryable, scheduleId: string, date: string): Promise<PeriodRow[]> {
  const r = await db.query<PeriodRow>(
    `SELECT p.period_index, p.billing_period_id, p.start_date::text AS start_date, p.end_date::text AS end_date, p.term_id, t.status
       FROM bill_schedule_period p JOIN term t ON t.term_id = p.term_id
      WHERE p.schedule_id = $1 AND p.closed_at IS NULL AND p.end_date < $2::date
      ORDER BY p.period_index`,
    [scheduleId, date],
  );
  return r.rows;
}

/** Records the period's term and moves the schedule past it: one transaction with the term when the schedule made it. */
export async function recordPeriod(
  db: Queryable,
  scheduleId: string,
  p: { index: number; billingPeriodId: number; start: string; end: string },
  termId: string,
): Promise<void> {
  await db.query(
    `INSERT INTO bill_schedule_period (schedule_id, period_index, billing_period_id, start_date, end_date, term_id)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (schedule_id, period_index) DO NOTHING`,
    [scheduleId, p.index, p.billingPeriodId, p.start, p.end, termId],
  );
  await db.query(`UPDATE bill_schedule SET next_period = greatest(next_period, $2::int + 1) WHERE schedule_id = $1`, [scheduleId, p.index]);
}

export async function closePeriod(db: Queryable, scheduleId: string, index: number): Promise<void> {
  await db.query(`UPDATE bill_schedule_period SET closed_at = now() WHERE schedule_id = $1 AND period_index = $2 AND closed_at IS NULL`, [scheduleId, index]);
}

/** The term of a template and batch for a billing period, made by hand or by an earlier run. */
export async function termOfPeriod(
  db: Queryable,
  appCode: number,
  scheduleId: string,
  billingPeriodId: number,
): Promise<{ term_id: string; start_date: string; end_date: string } | undefined> {
  const r = await db.query<{ term_id: string; start_date: string; end_date: string }>(
    `SELECT t.term_id, t.start_date::text AS start_date, t.end_date::text AS end_date
       FROM term t JOIN bill_schedule bs ON bs.service_id = t.service_id AND bs.batch_id = t.batch_id
      WHERE bs.schedule_id = $1 AND t.app_code = $2 AND t.billing_period_id = $3`,
    [scheduleId, appCode, billingPeriodId],
  );
  return r.rows[0];
}

export type RunStep = 'make-term' | 'load-subscriptions' | 'validate-term' | 'approve-term' | 'process-term' | 'close';

export async function recordRun(
  db: Queryable,
  r: { scheduleId: string; runDate: string; step: RunStep; outcome: 'done' | 'error'; billingPeriodId: number; termId: string | null; message: string; errorCode?: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO bill_schedule_run (schedule_id, run_date, step, outcome, billing_period_id, term_id, message, error_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [r.scheduleId, r.runDate, r.step, r.outcome, r.billingPeriodId, r.termId, r.message, r.errorCode ?? null],
  );
}

export type RunRow = {
  run_id: string;
  schedule_id: string;
  run_date: string;
  step: RunStep;
  outcome: 'done' | 'error';
  billing_period_id: number;
  term_id: string | null;
  message: string;
  error_code: string | null;
  at: string;
};

export async function listRuns(
  db: Queryable,
  appCode: number,
  q: { scheduleID?: number | undefined; outcome?: string | undefined; limit: number; offset: number },
): Promise<{ rows: RunRow[]; total: number }> {
  const where = `bs.app_code = $1 AND ($2::bigint IS NULL OR r.schedule_id = $2) AND ($3::text IS NULL OR r.outcome = $3)`;
  const params = [appCode, q.scheduleID ?? null, q.outcome ?? null];
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM bill_schedule_run r JOIN bill_schedule bs ON bs.schedule_id = r.schedule_id WHERE ${where}`, params))
    .rows[0]!.n;
  const r = await db.query<RunRow>(
    `SELECT r.run_id, r.schedule_id, r.run_date::text AS run_date, r.step, r.outcome, r.billing_period_id, r.term_id, r.message, r.error_code,
            to_char(r.at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS at
       FROM bill_schedule_run r JOIN bill_schedule bs ON bs.schedule_id = r.schedule_id JOIN app a ON a.app_code = bs.app_code
      WHERE ${where}
      ORDER BY r.run_id DESC
      LIMIT $4 OFFSET $5`,
    [...params, q.limit, q.offset],
  );
  return { rows: r.rows, total };
}

/** Serialises the runs of one app's schedules (a session lock, held on `client` while the run lasts). */
export async function lockAppRuns(client: Queryable, appCode: number): Promise<void> {
  await client.query(`SELECT pg_advisory_lock(hashtext('bill_schedules'), $1)`, [appCode]);
}

export async function unlockAppRuns(client: Queryable, appCode: number): Promise<void> {
  await client.query(`SELECT pg_advisory_unlock(hashtext('bill_schedules'), $1)`, [appCode]);
}

export async function finishDay(db: Queryable, appCode: number, runDate: string): Promise<void> {
  await db.query(
    `INSERT INTO bill_schedule_day (app_code, run_date, finished_at) VALUES ($1, $2, now())
     ON CONFLICT (app_code, run_date) DO UPDATE SET finished_at = now()`,
    [appCode, runDate],
  );
}

/**
 * For every app with an active schedule whose today (its time zone, its clock) has no day
 * row yet: the row, and the day's job on the queue, in one statement (job_key per app and
 * day). Answers how many apps were queued.
 */
export async function queueNewDays(db: Queryable, task: string): Promise<number> {
  const r = await db.query(
    `WITH due AS (
       INSERT INTO bill_schedule_day (app_code, run_date)
       SELECT a.app_code, ${todaySql('a.time_zone')} FROM app a
        WHERE EXISTS (SELECT 1 FROM bill_schedule bs WHERE bs.app_code = a.app_code AND bs.status = 'active')
       ON CONFLICT (app_code, run_date) DO NOTHING
       RETURNING app_code, run_date)
     SELECT graphile_worker.add_job($1, json_build_object('appCode', app_code, 'runDate', run_date::text),
                                    job_key := 'schedules:' || app_code || ':' || run_date, max_attempts := 25)
       FROM due`,
    [task],
  );
  return r.rowCount ?? 0;
}

/** Queues one app's run for a day now (run-schedules); a run of that day already waiting is kept. */
export async function queueDay(db: Queryable, task: string, appCode: number, runDate: string): Promise<void> {
  await db.query(`INSERT INTO bill_schedule_day (app_code, run_date) VALUES ($1, $2) ON CONFLICT (app_code, run_date) DO NOTHING`, [appCode, runDate]);
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('appCode', $2::int, 'runDate', $3::text),
                                    job_key := 'schedules:' || $2 || ':' || $3, job_key_mode := 'preserve_run_at', max_attempts := 25)`,
    [task, appCode, runDate],
  );
}
