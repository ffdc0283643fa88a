// The verification's task for the queue's task list (src/jobs/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { runVerifyChunk, VERIFY_TASK, type VerifyChunkPayload } from './termVerification.ts';

export function verificationTasks(db: pg.Pool): TaskList {
  return {
    [VERIFY_TASK]: async (p) => {
      const { termId, round, chunk } = p as VerifyChunkPayload;
      await runVerifyChunk(db, termId, round, chunk);
    },
  };
}
