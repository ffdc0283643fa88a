// The bill run's jobs on the graphile-worker queue, added with its SQL API inside the
// caller's transaction: a term is never Scheduled without its job, nor a job left
// behind by a move that rolled back.
import type { Queryable } from '../db/pool.ts';
import { recordJobError } from './termStore.ts';

export const TERM_TASKS = Object.freeze({ plan: 'term-plan', chunk: 'term-chunk', finish: 'term-finish' } as const);

/**
 * `by` is the user who scheduled the run: the term's moves and the posting the jobs make
 * are theirs (api.md: modifiedBy is the acting user). Jobs queued before it was carried
 * have none and act as 'billrun'.
 */
export type PlanPayload = { termId: string; round: number; by?: string };
export type ChunkPayload = { termId: string; round: number; chunk: number; by?: string };
export const RUN_USER = 'billrun';

const planKey = (termId: string) => `term:${termId}:plan`;

/** The plan job of a round, to run at runAt (null: at once), on behalf of `by`. */
export async function addPlanJob(db: Queryable, termId: string, round: number, runAt: string | null, by: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int, 'by', $6::text), run_at := coalesce($4::timestamptz, now()), job_key := $5, max_attempts := 25)`,
    [TERM_TASKS.plan, termId, round, runAt, planKey(termId), by],
  );
}

export async function removePlanJob(db: Queryable, termId: string): Promise<void> {
  await db.query('SELECT graphile_worker.remove_job($1)', [planKey(termId)]);
}

/** One job per planned chunk of the round. */
export async function addChunkJobs(db: Queryable, termId: string, round: number, by: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int, 'chunk', c.chunk_no, 'by', $4::text),
                                    job_key := 'term:' || $2 || ':' || $3 || ':' || c.chunk_no, max_attempts := 50)
       FROM term_chunk c WHERE c.term_id = $2::bigint AND c.round = $3 ORDER BY c.chunk_no`,
    [TERM_TASKS.chunk, termId, round, by],
  );
}

export async function addFinishJob(db: Queryable, termId: string, round: number, by: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int, 'by', $5::text), job_key := $4, max_attempts := 25)`,
    [TERM_TASKS.finish, termId, round, `term:${termId}:finish`, by],
  );
}

/**
 * Runs a job step; when it throws, the error is kept on the term (get-terms
 * job.lastError) before the queue retries the job.
 */
export async function recordingErrors(db: Queryable, termId: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await recordJobError(db, termId, message).catch(() => {});
    throw err;
  }
}
