// The schedule tasks for the queue's task list (src/jobs/tasks.ts), and the crontab line
// that starts each day. A task is one line calling the operation.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { runSchedules } from './runSchedules.ts';
import { queueNewDays } from './store.ts';

export const SCHEDULE_TASKS = { tick: 'schedules_tick', run: 'schedules_run' } as const;

export type SchedulePayload = { appCode: number; runDate: string };

/**
 * Every hour, at 5 past: each app with an active schedule whose day (its time zone, its
 * clock) has begun since the last tick gets that day's run queued, once
 * (bill_schedule_day). Hourly because apps' midnights fall at different hours; a missed
 * tick is made good by the next one, and a day missed altogether by the run of the next
 * day, which opens and closes every period it finds due.
 */
export const SCHEDULE_CRONTAB = `5 * * * * ${SCHEDULE_TASKS.tick}`;

export function scheduleTasks(db: pg.Pool, chunkSize: number): TaskList {
  return {
    [SCHEDULE_TASKS.tick]: async () => void (await queueNewDays(db, SCHEDULE_TASKS.run)),
    [SCHEDULE_TASKS.run]: async (p) => {
      const { appCode, runDate } = p as SchedulePayload;
      await runSchedules(db, appCode, runDate, { chunkSize });
    },
  };
}
