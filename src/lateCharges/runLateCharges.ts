// run-late-charges: queues the app's late-charge run for its today at once, the same
// job the hourly tick queues (an operator's "now", and how a test runs it twice).
import type pg from 'pg';
import type { Caller } from '../auth/roles.ts';
import { appToday, formatDate } from '../calendar/calendar.ts';
import { inTransaction } from '../db/pool.ts';
import { queueDay } from './store.ts';
import { LATE_CHARGE_TASKS } from './tasks.ts';

export async function runLateCharges(db: pg.Pool, caller: Caller): Promise<{ chargeDate: string }> {
  return inTransaction(db, async (tx) => {
    const today = await appToday(tx, caller.appCode);
    await queueDay(tx, LATE_CHARGE_TASKS.run, caller.appCode, today);
    return { chargeDate: formatDate(today) };
  });
}
