// The simulation's tasks for the queue's task list (src/jobs/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { recordingErrors, SIMULATION_TASKS, type SimulationPayload } from './jobs.ts';
import { finishSimulation, planSimulation, runSimulationChunk } from './runSimulation.ts';

export function simulationTasks(db: pg.Pool, chunkSize: number): TaskList {
  const last = (h: { job: { attempts: number; max_attempts: number } }) => h.job.attempts >= h.job.max_attempts;
  return {
    [SIMULATION_TASKS.plan]: async (p, helpers) => {
      const { simulationId } = p as SimulationPayload;
      await recordingErrors(db, simulationId, last(helpers), async () => void (await planSimulation(db, simulationId, chunkSize, true)));
    },
    [SIMULATION_TASKS.chunk]: async (p, helpers) => {
      const { simulationId, chunk } = p as SimulationPayload;
      await recordingErrors(db, simulationId, last(helpers), () => runSimulationChunk(db, simulationId, chunk as number, helpers.job.locked_by, true));
    },
    [SIMULATION_TASKS.finish]: async (p, helpers) => {
      const { simulationId } = p as SimulationPayload;
      await recordingErrors(db, simulationId, last(helpers), () => finishSimulation(db, simulationId));
    },
  };
}
