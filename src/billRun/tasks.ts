// The bill run's tasks for the queue's task list (src/jobs/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { recordingErrors, RUN_USER, TERM_TASKS, type ChunkPayload, type PlanPayload } from './jobs.ts';
import { planRun } from './planRun.ts';
import { runChunk } from './runChunk.ts';
import { finishRun } from './finishRun.ts';

export function termTasks(db: pg.Pool, chunkSize: number): TaskList {
  return {
    [TERM_TASKS.plan]: async (p) => {
      const { termId, round, by } = p as PlanPayload;
      await recordingErrors(db, termId, () => planRun(db, termId, round, chunkSize, by ?? RUN_USER));
    },
    [TERM_TASKS.chunk]: async (p, helpers) => {
      const { termId, round, chunk, by } = p as ChunkPayload;
      await recordingErrors(db, termId, () => runChunk(db, termId, round, chunk, helpers.job.locked_by, by ?? RUN_USER));
    },
    [TERM_TASKS.finish]: async (p) => {
      const { termId, round, by } = p as PlanPayload;
      await recordingErrors(db, termId, () => finishRun(db, termId, round, by ?? RUN_USER));
    },
  };
}
