// The schedule operations a client calls: make, list, pause, resume, the run log, and
// "run today's schedules now". The job itself is runSchedules.ts.
import type pg from 'pg';
import type { Caller } from '../auth/roles.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { appToday, formatDate, parseDate } from '../calendar/calendar.ts';
import { conflict, invalidState, notFound, validationFailed } from '../errors.ts';
import { BILLING_CYCLES } from '../templates/schemas.ts';
import { periodAfter, periodAt, periodIndexOn } from './periods.ts';
import { cycleMonths } from '../calendar/cycles.ts';
import { insertSchedule, listRuns, listSchedules, lockSchedule, queueDay, setStatus, type ScheduleFilter, type ScheduleRow } from './store.ts';
import { SCHEDULE_TASKS } from './tasks.ts';
import { billableTemplate } from '../terms/makeTerm.ts';
import type { MakeScheduleData, ScheduleRecord, ScheduleRunRecord } from './schemas.ts';

const periodRecord = (s: ScheduleRow, k: number) => {
  const p = periodAfter(periodAt(s.anchor_date, s.cycle_months, k), s.previous_end);
  return { billingPeriodID: p.billingPeriodId, startDate: formatDate(p.start), endDate: formatDate(p.end) };
};

export function scheduleRecord(s: ScheduleRow): ScheduleRecord {
  return {
    scheduleID: Number(s.schedule_id),
    serviceCode: s.service_code,
    batchCode: s.batch_code,
    billingCycle: s.billing_cycle,
    cycle: BILLING_CYCLES[s.billing_cycle as keyof typeof BILLING_CYCLES],
    cycleMonths: s.cycle_months,
    startDate: formatDate(s.anchor_date),
    autoProcess: s.auto_process,
    estimateMissing: s.estimate_missing,
    status: s.status,
    nextPeriod: periodRecord(s, s.next_period),
    createdAt: s.created_at,
    createdBy: s.created_by,
    modifiedAt: s.modified_at,
    modifiedBy: s.modified_by,
  };
}

const LAST_ANCHOR = '9998-12-31';

/**
 * A schedule for a template and batch, on the template's billingCycle as it is now. Its
 * first term is the one of the period holding the app's today (or of the first period,
 * when startDate is ahead): periods over before the schedule was made are not billed by it.
 */
export async function makeSchedule(db: pg.Pool, caller: Caller, data: MakeScheduleData): Promise<ScheduleRecord> {
  const anchor = parseDate(data.startDate);
  if (anchor === null) throw validationFailed([{ path: 'data.startDate', message: 'is not a calendar date (dd/mm/yyyy)' }]);
  // Its periods run on for a year or more past the date: from 31/12/9999 the first one ended
  // in the year 10000, which no date here holds (a fuzzer's 400 named "body" and an internal message).
  if (anchor > LAST_ANCHOR) throw validationFailed([{ path: 'data.startDate', message: 'must be no later than 31/12/9998: the schedule\'s periods run on from it' }]);
  return inTransaction(db, async (tx) => {
    const svc = await billableTemplate(tx, caller.appCode, data.serviceCode, data.batchCode);
    const months = cycleMonths(svc.billing_cycle);
    const today = await appToday(tx, caller.appCode);
    const next = Math.max(0, periodIndexOn(anchor, months, today));
    let id: string;
    try {
      id = await insertSchedule(tx, caller.email, {
        appCode: caller.appCode,
        serviceId: svc.service_id,
        batchId: svc.batch_id,
        billingCycle: svc.billing_cycle,
        cycleMonths: months,
        anchor,
        autoProcess: data.autoProcess ?? false,
        estimateMissing: data.estimateMissing ?? false,
        nextPeriod: next,
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw conflict('This template and batch have a schedule already.', 'data.batchCode');
      throw err;
    }
    return scheduleRecord((await lockSchedule(tx, caller.appCode, id))!);
  });
}

export async function getSchedules(db: Queryable, caller: Caller, f: ScheduleFilter): Promise<ScheduleRecord[]> {
  return (await listSchedules(db, caller.appCode, f)).map(scheduleRecord);
}

/** Pause: the daily run leaves the schedule alone (no term made, none closed) until it is resumed. */
export async function pauseSchedule(db: pg.Pool, caller: Caller, scheduleId: number): Promise<ScheduleRecord> {
  return inTransaction(db, async (tx) => {
    const s = await lockSchedule(tx, caller.appCode, scheduleId);
    if (!s) throw notFound('schedule', 'data.scheduleID');
    if (s.status !== 'active') throw invalidState('The schedule is paused already.', 'data.scheduleID');
    await setStatus(tx, s.schedule_id, caller.email, 'paused', null);
    return scheduleRecord((await lockSchedule(tx, caller.appCode, scheduleId))!);
  });
}

/**
 * Resume: the schedule runs again from the period holding the app's today; periods that
 * began and ended while it was paused get no term from it. Terms it made before the pause
 * and not closed yet are closed by the next run.
 */
export async function resumeSchedule(db: pg.Pool, caller: Caller, scheduleId: number): Promise<ScheduleRecord> {
  return inTransaction(db, async (tx) => {
    const s = await lockSchedule(tx, caller.appCode, scheduleId);
    if (!s) throw notFound('schedule', 'data.scheduleID');
    if (s.status !== 'paused') throw invalidState('The schedule is not paused.', 'data.scheduleID');
    const today = await appToday(tx, caller.appCode);
    const next = Math.max(s.next_period, periodIndexOn(s.anchor_date, s.cycle_months, today));
    await setStatus(tx, s.schedule_id, caller.email, 'active', next);
    return scheduleRecord((await lockSchedule(tx, caller.appCode, scheduleId))!);
  });
}

export async function getScheduleRuns(
  db: Queryable,
  caller: Caller,
  q: { scheduleID?: number | undefined; outcome?: 'done' | 'error' | undefined; limit?: number | undefined; offset?: number | undefined },
): Promise<{ runs: ScheduleRunRecord[]; paging: { limit: number; offset: number; total: number } }> {
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  if (q.scheduleID !== undefined && (await listSchedules(db, caller.appCode, { scheduleID: q.scheduleID })).length === 0) {
    throw notFound('schedule', 'data.scheduleID');
  }
  const { rows, total } = await listRuns(db, caller.appCode, { scheduleID: q.scheduleID, outcome: q.outcome, limit, offset });
  return {
    runs: rows.map((r) => ({
      runID: Number(r.run_id),
      scheduleID: Number(r.schedule_id),
      runDate: formatDate(r.run_date),
      step: r.step,
      outcome: r.outcome,
      billingPeriodID: r.billing_period_id,
      termID: r.term_id === null ? null : Number(r.term_id),
      message: r.message,
      errorCode: r.error_code,
      at: r.at,
    })),
    paging: { limit, offset, total },
  };
}

/** Queues the app's schedule run for its today at once: the job the hourly tick queues. */
export async function runSchedulesNow(db: pg.Pool, caller: Caller): Promise<{ runDate: string }> {
  return inTransaction(db, async (tx) => {
    const today = await appToday(tx, caller.appCode);
    await queueDay(tx, SCHEDULE_TASKS.run, caller.appCode, today);
    return { runDate: formatDate(today) };
  });
}
