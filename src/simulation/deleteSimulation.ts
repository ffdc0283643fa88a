import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';

/** Deletes a simulation of the app with its chunks and results (ON DELETE CASCADE). */
export async function deleteSimulation(db: pg.Pool, appCode: number, simulationId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const r = await tx.query('DELETE FROM simulation WHERE simulation_id = $1 AND app_code = $2', [simulationId, appCode]);
    if (r.rowCount === 0) throw notFound('simulation', 'data.simulationID');
    // Its plan and finish jobs, if still waiting; chunk jobs find no chunk and end.
    await tx.query('SELECT graphile_worker.remove_job(k) FROM unnest($1::text[]) k', [[`simulation:${simulationId}:plan`, `simulation:${simulationId}:finish`]]);
  });
}
