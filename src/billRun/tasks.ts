// The bill run's tasks for the queue's task list (src/jobs/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { recordingErrors, RUN_USER, TERM_TASKS, type ChunkPayload, type PlanPayload } from './jobs.ts';
import { planRun } from './planRun.ts';
import { runChunk } from './runChunk.ts';
import { finishRun } from './finishRun.ts';
import { chunkBills, chunkErrors, chunkFailures, chunkSeconds } from './metrics.ts';
import { secondsSince } from '../metrics/registry.ts';
import { jobLog } from '../jobLog.ts';
import type { Logger } from 'pino';

export function termTasks(db: pg.Pool, chunkSize: number, log?: Logger): TaskList {
  return {
    [TERM_TASKS.plan]: async (p) => {
      const { termId, round, by } = p as PlanPayload;
      await recordingErrors(db, termId, () => planRun(db, termId, round, chunkSize, by ?? RUN_USER));
    },
    [TERM_TASKS.chunk]: async (p, helpers) => {
      const { termId, round, chunk, by } = p as ChunkPayload;
      const started = performance.now();
      const jl = log && jobLog(log, helpers.job, { termId, round, chunk });
      try {
        await recordingErrors(db, termId, async () => {
          const done = await runChunk(db, termId, round, chunk, helpers.job.locked_by, by ?? RUN_USER);
          if (!done) return;
          const seconds = secondsSince(started);
          chunkSeconds.observe(seconds);
          chunkBills.inc(done.bills);
          chunkFailures.inc(done.failures);
          jl?.info({ bills: done.bills, failures: done.failures, seconds }, 'bill-run chunk done');
        });
      } catch (err) {
        chunkErrors.inc();
        jl?.warn({ err }, 'bill-run chunk failed; the queue retries it');
        throw err;
      }
    },
    [TERM_TASKS.finish]: async (p) => {
      const { termId, round, by } = p as PlanPayload;
      await recordingErrors(db, termId, () => finishRun(db, termId, round, by ?? RUN_USER));
    },
  };
}
