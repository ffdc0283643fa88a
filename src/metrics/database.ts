// Figures read from the database when /metrics is scraped, so that every process reports
// the same truth whichever process did the work: the bill runs (from the term rows the
// chunks add their progress to, one transaction with the bills), the queue
// (graphile_worker.jobs) and this process's connection pool.
import type pg from 'pg';
import { gauge } from './registry.ts';

const terms = gauge('billrun_terms', 'Terms, by status.', ['status']);
const runBills = gauge('billrun_bill_run_bills', 'Bills written by the bill runs of the terms now in each status (term bill counts, summed).', ['term_status']);
const runFailures = gauge('billrun_bill_run_failures', 'Subscriptions the runs could not bill, still failed, of the terms in each status.', ['term_status']);
const chunksPending = gauge('billrun_bill_run_chunks_pending', 'Chunks of the runs in progress not done yet.');
const queueJobs = gauge('billrun_queue_jobs', 'Jobs on the queue by task and state: ready (due, waiting for a worker), scheduled (due later), running (locked by a worker), failed (attempts used up).', ['task', 'state']);
const queueLateness = gauge('billrun_queue_lateness_seconds', 'How long the oldest ready job of each task has waited past its run_at (0: none waiting).', ['task']);
const poolInUse = gauge('billrun_db_pool_in_use', 'Connections of this process checked out of its pool.');
const poolIdle = gauge('billrun_db_pool_idle', 'Open connections of this process idle in its pool.');
const poolWaiting = gauge('billrun_db_pool_waiting', 'Queries of this process waiting for a connection of its pool.');

const STATES = ['ready', 'scheduled', 'running', 'failed'] as const;

/** Sets the database figures from `db` (its pool figures included); a query that fails leaves its figures as they were and is thrown. */
export async function readDatabaseFigures(db: pg.Pool): Promise<void> {
  poolInUse.set(db.totalCount - db.idleCount);
  poolIdle.set(db.idleCount);
  poolWaiting.set(db.waitingCount);

  const t = await db.query<{ status: string; terms: string; bills: string; failures: string; pending: string }>(
    `SELECT status, count(*) AS terms, coalesce(sum(bill_count), 0) AS bills, coalesce(sum(failure_count), 0) AS failures,
            coalesce(sum(greatest(chunks_total - chunks_done, 0)) FILTER (WHERE status = 'Processing'), 0) AS pending
       FROM term GROUP BY status`,
  );
  terms.reset();
  runBills.reset();
  runFailures.reset();
  let pending = 0;
  for (const r of t.rows) {
    terms.set({ status: r.status }, Number(r.terms));
    runBills.set({ term_status: r.status }, Number(r.bills));
    runFailures.set({ term_status: r.status }, Number(r.failures));
    pending += Number(r.pending);
  }
  chunksPending.set(pending);

  const q = await db.query<{ task: string; ready: string; scheduled: string; running: string; failed: string; lateness: number | null }>(
    `SELECT task_identifier AS task,
            count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now()) AS ready,
            count(*) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at > now()) AS scheduled,
            count(*) FILTER (WHERE locked_at IS NOT NULL) AS running,
            count(*) FILTER (WHERE locked_at IS NULL AND attempts >= max_attempts) AS failed,
            extract(epoch FROM now() - min(run_at) FILTER (WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now()))::float8 AS lateness
       FROM graphile_worker.jobs GROUP BY task_identifier`,
  );
  queueJobs.reset();
  queueLateness.reset();
  for (const r of q.rows) {
    for (const state of STATES) queueJobs.set({ task: r.task, state }, Number(r[state]));
    queueLateness.set({ task: r.task }, Math.max(0, r.lateness ?? 0));
  }
}
