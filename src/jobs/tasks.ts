// Every job the queue knows, by name. A task is one line that calls an operation of its
// feature; the logic lives in the feature, never here.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { TERM_TASKS, type ChunkPayload, type PlanPayload } from '../terms/jobs.ts';
import { planRun } from '../terms/planRun.ts';
import { runChunk } from '../terms/runChunk.ts';
import { finishRun } from '../terms/finishRun.ts';

export function taskList(db: pg.Pool, config: Config): TaskList {
  return {
    [TERM_TASKS.plan]: async (p) => planRun(db, (p as PlanPayload).termId, (p as PlanPayload).round, config.billRunChunkSize),
    [TERM_TASKS.chunk]: async (p, helpers) =>
      runChunk(db, (p as ChunkPayload).termId, (p as ChunkPayload).round, (p as ChunkPayload).chunk, helpers.job.locked_by),
    [TERM_TASKS.finish]: async (p) => finishRun(db, (p as PlanPayload).termId, (p as PlanPayload).round),
  };
}
