// Delivery's task for the queue's task list (src/jobs/tasks.ts). nodemailer and the
// renderer are loaded at the first e-mail, not when a worker starts (see documents/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { DELIVERY_TASK } from './store.ts';

export function deliveryTasks(db: pg.Pool, config: Config): TaskList {
  return {
    [DELIVERY_TASK]: async (p) => {
      const { sendDelivery } = await import('./sendDelivery.ts');
      await sendDelivery(db, config, (p as { deliveryId: string }).deliveryId);
    },
  };
}
