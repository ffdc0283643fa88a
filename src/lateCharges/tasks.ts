// The late-charge tasks for the queue's task list (src/jobs/tasks.ts), and the crontab
// line that starts each day. A task is one line calling the operation.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { chargeLateCharges } from './chargeLateCharges.ts';
import { queueNewDays } from './store.ts';

export const LATE_CHARGE_TASKS = { tick: 'late_charges_tick', run: 'late_charges' } as const;

export type LateChargePayload = { appCode: number; chargeDate: string };

/**
 * Every hour, on the hour: each app whose day (in its own time zone) has begun since the
 * last tick gets that day's run queued, once (late_charge_day). Hourly, not daily, because
 * apps' midnights fall at different hours; a missed tick (no worker up) is made good by
 * the next one, since the day row is what says the day is queued.
 */
export const LATE_CHARGE_CRONTAB = `0 * * * * ${LATE_CHARGE_TASKS.tick}`;

export function lateChargeTasks(db: pg.Pool): TaskList {
  return {
    [LATE_CHARGE_TASKS.tick]: async () => void (await queueNewDays(db, LATE_CHARGE_TASKS.run)),
    [LATE_CHARGE_TASKS.run]: async (p) => {
      const { appCode, chargeDate } = p as LateChargePayload;
      await chargeLateCharges(db, appCode, chargeDate);
    },
  };
}
