import { POST_TYPES } from '../templates/schemas.ts';
import { formatDate } from '../calendar/calendar.ts';
import { moneyText as money } from '../rating/money.ts';
import type { TermRecord } from './schemas.ts';
import type { TermException } from '../billRun/schemas.ts';
import type { TermRow } from '../billRun/termStore.ts';
import type { VerificationRecord } from '../verification/schemas.ts';
import { NO_VERIFICATION } from '../verification/termVerification.ts';

const JOB_STATE = {
  Draft: 'none',
  Loaded: 'none',
  Validated: 'none',
  Approved: 'none',
  Scheduled: 'scheduled',
  Processing: 'running',
  Processed: 'done',
  Posted: 'done',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const;

/** The get-terms record of a stored term. */
export function termRecord(t: TermRow, verification: VerificationRecord = NO_VERIFICATION): TermRecord {
  const state = t.status === 'Cancelled' && t.shedule_time === null ? 'none' : JOB_STATE[t.status];
  const percent = t.chunks_total === 0 ? (state === 'done' ? 100 : 0) : Math.floor((t.chunks_done * 100) / t.chunks_total);
  return {
    termID: Number(t.term_id),
    appCode: t.app_code,
    serviceCode: t.service_code,
    serviceVersion: t.service_version,
    batchCode: t.batch_code,
    billingPeriodID: t.billing_period_id,
    label: t.label,
    startDate: formatDate(t.start_date),
    endDate: formatDate(t.end_date),
    dueDate: formatDate(t.due_date),
    postType: t.post_type as (typeof POST_TYPES)[number],
    status: t.status,
    counts: {
      subscriptions: t.subscription_count,
      readings: t.reading_count,
      bills: t.bill_count,
      failures: t.failure_count,
      exceptions: t.exception_count,
    },
    totals: {
      charges: money(t.total_charges, t.minor_units),
      tax: money(t.total_tax, t.minor_units),
      total: money(t.total_amount, t.minor_units),
      balanceBroughtForward: money(t.total_brought_forward, t.minor_units),
      totalDue: money(t.total_due, t.minor_units),
    },
    corrections: {
      cancelled: t.bills_cancelled,
      rebills: t.bills_rebilled,
      totals: {
        charges: money(t.in_force_charges, t.minor_units),
        tax: money(t.in_force_tax, t.minor_units),
        total: money(t.in_force_amount, t.minor_units),
        balanceBroughtForward: money(t.in_force_brought_forward, t.minor_units),
        totalDue: money(t.in_force_due, t.minor_units),
      },
    },
    exceptions: t.exceptions as TermException[],
    job: {
      state,
      sheduleTime: t.shedule_time,
      startedAt: t.job_started_at,
      finishedAt: t.job_finished_at,
      lastError: t.job_last_error,
      progress: { chunksTotal: t.chunks_total, chunksDone: t.chunks_done, percent },
    },
    postedAt: t.posted_at,
    createdAt: t.created_at,
    createdBy: t.created_by,
    modifiedAt: t.modified_at,
    modifiedBy: t.modified_by,
    verification,
  };
}
