import { isPostAccount } from '../billRun/accountRun.ts';
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { holdAppSettings } from '../admin/apps.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm } from '../billRun/termStates.ts';
import { lockTerm, markValidated, withAccountNumbers } from '../billRun/termStore.ts';
import { runContext } from '../billRun/rateRoster.ts';
import { countReadings, estimateMissing, meterKey, unusualConsumption, withoutMemoize } from '../billRun/checkReadings.ts';
import { dryRun } from '../billRun/dryRun.ts';
import type { TermWarning } from './schemas.ts';
import type { TermException } from '../billRun/schemas.ts';
import type { PreviewBill, Totals } from '../bills/schemas.ts';
import { appToday, formatDate } from '../calendar/calendar.ts';

const STORED_EXCEPTIONS = 100;

export type Validation = {
  exceptions: TermException[];
  exceptionCount: number;
  estimated: number;
  preview: { bills: number; failures: number; totals: Totals };
  previewBills: PreviewBill[];
  warnings: TermWarning[];
};

/**
 * Issue 9, defect 11: the term's dates against the app's today. A term processed before
 * its end bills consumption up to readings that may not be its last, and bills dated
 * today would fall due before they are issued when the due date has passed. Both are
 * warnings: billing a leaving customer early, or an old period late, is sometimes meant.
 */
export function calendarWarnings(term: { end_date: string; due_date: string }, today: string): TermWarning[] {
  const warnings: TermWarning[] = [];
  if (today < term.end_date) {
    warnings.push({ code: 'TERM_NOT_ENDED', path: 'data.termID', message: `The term ends on ${formatDate(term.end_date)}, after today (${formatDate(today)}): its bills would not cover the days left.` });
  }
  if (term.due_date < today) {
    warnings.push({ code: 'DUE_DATE_PASSED', path: 'data.termID', message: `The term's bills would be due on ${formatDate(term.due_date)}, before today (${formatDate(today)}), the day a run now dates them: to give customers time to pay, cancel this term and make it again with a later due date.` });
  }
  return warnings;
}

/**
 * Step 4: a dry run of the whole roster through the code that bills (dryRun), so every
 * subscription that could not be billed shows as an exception and the preview's amounts
 * are the bills' amounts; plus warnings for consumption far from history.
 * With estimateMissing, missing readings are first estimated from history and recorded.
 */
export async function validateTerm(
  db: pg.Pool,
  caller: Caller,
  termId: number,
  opts: { estimateMissing?: boolean; previewLimit?: number; chunkSize: number },
): Promise<Validation> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'validate');
    // The preview is made with the app's rounding and minor units: held until it is stored.
    await holdAppSettings(tx, caller.appCode);
    const ctx = await runContext(tx, term, null);
    // Every statement below reads the whole roster meter by meter.
    await withoutMemoize(tx);
    const estimates = opts.estimateMissing ? await estimateMissing(tx, ctx, caller.email) : { estimated: 0, notEstimated: new Map<string, string>() };
    const estimated = estimates.estimated;
    const run = await dryRun(tx, ctx, { chunkSize: opts.chunkSize, previewLimit: opts.previewLimit ?? 100, postAccount: isPostAccount(term) });
    const found = [...run.exceptions.map((e) => withEstimateReason(e, estimates.notEstimated)), ...(await unusualConsumption(tx, ctx))];
    // Those stored and answered (the first 1000): the rest are counted only.
    const exceptions = [...(await withAccountNumbers(tx, found.slice(0, 1000))), ...found.slice(1000)];
    await markValidated(tx, term.term_id, status, caller.email, {
      exceptions: exceptions.slice(0, STORED_EXCEPTIONS),
      exceptionCount: exceptions.length,
      readings: await countReadings(tx, ctx),
    });
    const warnings = calendarWarnings(term, await appToday(tx, caller.appCode));
    return {
      exceptions: exceptions.slice(0, 1000),
      exceptionCount: exceptions.length,
      estimated,
      preview: { bills: run.bills, failures: run.failures, totals: run.totals },
      // The officer knows accounts by number: the preview showed internal ids beside exceptions that named numbers.
      previewBills: await withAccountNumbers(tx, run.previewBills),
      warnings,
    };
  });
}

/** A missing reading that estimateMissing left alone says why (checkReadings.ts). */
function withEstimateReason(e: TermException, notEstimated: Map<string, string>): TermException {
  if (e.code !== 'MISSING_READING' || e.path === undefined || !e.path.startsWith('readings.')) return e;
  const why = notEstimated.get(meterKey(e.subscriptionID, e.path.slice('readings.'.length)));
  return why === undefined ? e : { ...e, message: `${e.message}; ${why}` };
}
