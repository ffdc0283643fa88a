// The daily run of an app's bill-cycle schedules, for one day of the app (the job of
// tasks.ts, queued by the hourly tick or run-schedules). For each active schedule:
//   open:  every period from the schedule's next one that has begun by the day gets its
//          term, through make-term's own function (its checks, its one-term-per-period);
//   close: every period of the schedule that ended before the day and is not closed yet
//          has its term loaded (load-subscriptions) and validated (validate-term), then,
//          when the schedule says autoProcess, approved and processed at once; otherwise
//          it waits there for a person's approval.
// Each step is the term operation's own function in its own transaction, as a client
// calling it would get; each is recorded in bill_schedule_run with what it did or the
// error that stopped it. A step refused leaves its period where it is: the next day's run
// tries again from there. Running a day twice makes nothing twice: make-term refuses a
// second term of a period (the existing one is taken on when its dates are the period's),
// and a closed period is never looked at again.
import type pg from 'pg';
import type { Caller } from '../auth/roles.ts';
import { AppError } from '../errors.ts';
import { formatDate } from '../calendar/calendar.ts';
import { TERM_STATUS, type TermStatus } from '../billRun/termStates.ts';
import { readTerm } from '../billRun/termStore.ts';
import { makeTerm } from '../terms/makeTerm.ts';
import { loadSubscriptions } from '../terms/loadSubscriptions.ts';
import { validateTerm } from '../terms/validateTerm.ts';
import { approveTerm } from '../terms/approveTerm.ts';
import { processTerm } from '../terms/processTerm.ts';
import { periodAfter, periodAt, type Period } from './periods.ts';
import {
  activeSchedules,
  closePeriod,
  finishDay,
  lockAppRuns,
  periodsToClose,
  recordPeriod,
  recordRun,
  termOfPeriod,
  unlockAppRuns,
  type PeriodRow,
  type RunStep,
  type ScheduleRow,
} from './store.ts';

/** At most this many periods opened by one run of one schedule (a clock moved years ahead catches up over days). */
const MAX_OPENED_PER_RUN = 36;

/** Who the term steps are done by: the schedule (terms' createdBy / modifiedBy read `schedule:<id>`). */
export function scheduleCaller(s: Pick<ScheduleRow, 'schedule_id' | 'app_code'>): Caller {
  return { userId: '0', appCode: s.app_code, email: `schedule:${s.schedule_id}`, role: 'biller', tokenHash: Buffer.alloc(0) };
}

export type RunOptions = { chunkSize: number };

/** Runs every active schedule of the app for `runDate` (yyyy-mm-dd, the app's day); one run of an app at a time. */
export async function runSchedules(db: pg.Pool, appCode: number, runDate: string, o: RunOptions): Promise<void> {
  const client = await db.connect();
  try {
    await lockAppRuns(client, appCode);
    try {
      for (const s of await activeSchedules(db, appCode)) await runSchedule(db, s, runDate, o);
      await finishDay(db, appCode, runDate);
    } finally {
      await unlockAppRuns(client, appCode);
    }
  } finally {
    client.release();
  }
}

type Step = { step: RunStep; billingPeriodId: number; termId: string | null };

/** A sentence for the run log from what a step threw; anything but a refusal of the step goes up (the job retries). */
function refusal(err: unknown): { message: string; code: string } {
  if (!(err instanceof AppError)) throw err;
  const details = (err.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
  return { message: details ? `${err.message} (${details})` : err.message, code: err.code };
}

async function runSchedule(db: pg.Pool, s: ScheduleRow, runDate: string, o: RunOptions): Promise<void> {
  const caller = scheduleCaller(s);
  const log = (x: Step, outcome: 'done' | 'error', message: string, errorCode?: string) =>
    recordRun(db, { scheduleId: s.schedule_id, runDate, ...x, outcome, message, errorCode: errorCode ?? null });

  let previousEnd = s.previous_end;
  for (let k = s.next_period, n = 0; n < MAX_OPENED_PER_RUN; k++, n++) {
    const p = periodAfter(periodAt(s.anchor_date, s.cycle_months, k), previousEnd);
    if (p.start > runDate) break;
    if (!(await openPeriod(db, caller, s, p, log))) break;
    previousEnd = p.end;
  }
  for (const p of await periodsToClose(db, s.schedule_id, runDate)) {
    await closeOne(db, caller, s, p, o, log);
  }
}

type Log = (x: Step, outcome: 'done' | 'error', message: string, errorCode?: string) => Promise<void>;

/** Makes the period's term; answers false when it could not (the schedule stays at this period). */
async function openPeriod(db: pg.Pool, caller: Caller, s: ScheduleRow, p: Period, log: Log): Promise<boolean> {
  const step: Step = { step: 'make-term', billingPeriodId: p.billingPeriodId, termId: null };
  const dates = `${formatDate(p.start)} to ${formatDate(p.end)}`;
  try {
    const termId = await makeTerm(db, caller, {
      serviceCode: s.service_code,
      batchCode: s.batch_code,
      billingPeriodID: p.billingPeriodId,
      startDate: formatDate(p.start),
      endDate: formatDate(p.end),
    });
    await recordPeriod(db, s.schedule_id, p, termId);
    await log({ ...step, termId }, 'done', `made the term of ${dates}`);
    return true;
  } catch (err) {
    const why = refusal(err);
    if (why.code === 'CONFLICT') {
      // A term of this billing period exists: made by an earlier run that stopped before
      // recording it, or by hand. Taken on when it covers exactly the period.
      const t = await termOfPeriod(db, s.app_code, s.schedule_id, p.billingPeriodId);
      if (t && t.start_date === p.start && t.end_date === p.end) {
        await recordPeriod(db, s.schedule_id, p, t.term_id);
        await log({ ...step, termId: t.term_id }, 'done', `the term of ${dates} existed already: taken on`);
        return true;
      }
    }
    await log(step, 'error', `the term of ${dates} could not be made: ${why.message}`, why.code);
    return false;
  }
}

/** Takes a period's term through the close: as far as the schedule goes, from wherever it is. */
async function closeOne(db: pg.Pool, caller: Caller, s: ScheduleRow, p: PeriodRow, o: RunOptions, log: Log): Promise<void> {
  const termId = p.term_id;
  const at = (step: RunStep): Step => ({ step, billingPeriodId: p.billing_period_id, termId });
  let status: TermStatus = p.status as TermStatus;
  const close = async (message: string) => {
    await closePeriod(db, s.schedule_id, p.period_index);
    await log(at('close'), 'done', message);
  };
  // At most one pass of each step: Draft, Loaded, Validated, Approved.
  for (let i = 0; i < 4; i++) {
    let step: RunStep = 'close';
    try {
      if (status === TERM_STATUS.Draft) {
        step = 'load-subscriptions';
        await loadSubscriptions(db, caller, Number(termId));
        const t = (await readTerm(db, termId))!;
        await log(at(step), 'done', `loaded ${t.subscription_count} subscription(s), ${t.reading_count} with a reading in the term`);
        status = TERM_STATUS.Loaded;
      } else if (status === TERM_STATUS.Loaded) {
        step = 'validate-term';
        const v = await validateTerm(db, caller, Number(termId), { estimateMissing: s.estimate_missing, previewLimit: 0, chunkSize: o.chunkSize });
        const est = s.estimate_missing ? `, ${v.estimated} reading(s) estimated` : '';
        await log(at(step), 'done', `validated: ${v.preview.bills} bill(s) previewed, ${v.preview.failures} failure(s), ${v.exceptionCount} exception(s)${est}`);
        status = TERM_STATUS.Validated;
      } else if (status === TERM_STATUS.Validated && s.auto_process) {
        step = 'approve-term';
        await approveTerm(db, caller, Number(termId));
        await log(at(step), 'done', 'approved (the schedule processes its terms)');
        status = TERM_STATUS.Approved;
      } else if (status === TERM_STATUS.Approved && s.auto_process) {
        step = 'process-term';
        await processTerm(db, caller, Number(termId), undefined);
        await log(at(step), 'done', 'scheduled to run now');
        await close('processed: the run is on the queue');
        return;
      } else if (status === TERM_STATUS.Validated) {
        await close('validated: the term waits for approval');
        return;
      } else {
        await close(`the term is ${status}: taken on by hand, the schedule leaves it`);
        return;
      }
    } catch (err) {
      const why = refusal(err);
      await log(at(step), 'error', why.message, why.code);
      return;
    }
  }
}
