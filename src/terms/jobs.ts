// The bill run's jobs on the graphile-worker queue, added with its SQL API inside the
// caller's transaction: a term is never Scheduled without its job, nor a job left
// behind by a move that rolled back.
import type { Queryable } from '../db/pool.ts';

export const TERM_TASKS = Object.freeze({ plan: 'term-plan', chunk: 'term-chunk', finish: 'term-finish' } as const);

export type PlanPayload = { termId: string; round: number };
export type ChunkPayload = { termId: string; round: number; chunk: number };

const planKey = (termId: string) => `term:${termId}:plan`;

/** The plan job of a round, to run at runAt (null: at once). */
export async function addPlanJob(db: Queryable, termId: string, round: number, runAt: string | null): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int), run_at := coalesce($4::timestamptz, now()), job_key := $5, max_attempts := 25)`,
    [TERM_TASKS.plan, termId, round, runAt, planKey(termId)],
  );
}

export async function removePlanJob(db: Queryable, termId: string): Promise<void> {
  await db.query('SELECT graphile_worker.remove_job($1)', [planKey(termId)]);
}

/** One job per planned chunk of the round. */
export async function addChunkJobs(db: Queryable, termId: string, round: number): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int, 'chunk', c.chunk_no),
                                    job_key := 'term:' || $2 || ':' || $3 || ':' || c.chunk_no, max_attempts := 50)
       FROM term_chunk c WHERE c.term_id = $2::bigint AND c.round = $3 ORDER BY c.chunk_no`,
    [TERM_TASKS.chunk, termId, round],
  );
}

export async function addFinishJob(db: Queryable, termId: string, round: number): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int), job_key := $4, max_attempts := 25)`,
    [TERM_TASKS.finish, termId, round, `term:${termId}:finish`],
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
    await db.query('UPDATE term SET job_last_error = $2 WHERE term_id = $1', [termId, message.slice(0, 1000)]).catch(() => {});
    throw err;
  }
}
