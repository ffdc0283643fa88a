// The simulation's jobs on the graphile-worker queue, added with its SQL API inside the
// caller's transaction (as the bill run's, src/billRun/jobs.ts): a simulation is never
// Queued without its plan job, and a chunk's results never committed without the count
// that queues the finish.
import type { Queryable } from '../db/pool.ts';
import { recordSimulationError } from './store.ts';

export const SIMULATION_TASKS = Object.freeze({ plan: 'simulation-plan', chunk: 'simulation-chunk', finish: 'simulation-finish' } as const);

export type SimulationPayload = { simulationId: string; chunk?: number };

export async function addPlanJob(db: Queryable, simulationId: string): Promise<void> {
  await db.query(`SELECT graphile_worker.add_job($1, json_build_object('simulationId', $2::text), job_key := $3, max_attempts := 10)`, [
    SIMULATION_TASKS.plan,
    simulationId,
    `simulation:${simulationId}:plan`,
  ]);
}

/** One job per planned chunk. */
export async function addChunkJobs(db: Queryable, simulationId: string): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('simulationId', $2::text, 'chunk', c.chunk_no),
                                    job_key := 'simulation:' || $2 || ':' || c.chunk_no, max_attempts := 25)
       FROM simulation_chunk c WHERE c.simulation_id = $2::bigint ORDER BY c.chunk_no`,
    [SIMULATION_TASKS.chunk, simulationId],
  );
}

export async function addFinishJob(db: Queryable, simulationId: string): Promise<void> {
  await db.query(`SELECT graphile_worker.add_job($1, json_build_object('simulationId', $2::text), job_key := $3, max_attempts := 10)`, [
    SIMULATION_TASKS.finish,
    simulationId,
    `simulation:${simulationId}:finish`,
  ]);
}

/**
 * Runs a step; when it throws, the error is kept on the simulation (lastError) before the
 * queue retries the job, and the simulation is Failed once the job has no attempt left.
 */
export async function recordingErrors(db: Queryable, simulationId: string, lastAttempt: boolean, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await recordSimulationError(db, simulationId, message, lastAttempt).catch(() => {});
    throw err;
  }
}
