// Webhooks' task for the queue's task list (src/jobs/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { DISPATCH_TASK, type DispatchPayload } from '../events/dispatchQueue.ts';
import { dispatchEndpoint } from './dispatch.ts';

export function webhookTasks(db: pg.Pool, config: Config): TaskList {
  return {
    [DISPATCH_TASK]: async (p) => {
      await dispatchEndpoint(db, config, (p as DispatchPayload).endpointId);
    },
  };
}
