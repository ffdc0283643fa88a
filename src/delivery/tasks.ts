// Delivery's task for the queue's task list (src/jobs/tasks.ts). nodemailer and the
// renderer are loaded at the first e-mail, not when a worker starts (see documents/tasks.ts).
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Logger } from 'pino';
import { DELIVERY_TASK } from './store.ts';
import { counter } from '../metrics/registry.ts';
import { jobLog } from '../jobLog.ts';

const deliveries = counter(
  'billrun_deliveries_total',
  'Bill e-mails this process tried to send, by outcome: sent, failed (for good), retry (a passing fault: the queue tries again), already_sent, missing.',
  ['outcome'],
);

export function deliveryTasks(db: pg.Pool, config: Config, log?: Logger): TaskList {
  return {
    [DELIVERY_TASK]: async (p, helpers) => {
      const { sendDelivery } = await import('./sendDelivery.ts');
      const deliveryId = (p as { deliveryId: string }).deliveryId;
      const jl = log && jobLog(log, helpers.job, { deliveryId });
      try {
        const outcome = await sendDelivery(db, config, deliveryId);
        deliveries.inc({ outcome: outcome.replace(' ', '_') });
        jl?.info({ outcome }, 'delivery');
      } catch (err) {
        deliveries.inc({ outcome: 'retry' });
        jl?.warn({ err }, 'delivery failed; the queue retries it');
        throw err;
      }
    },
  };
}
