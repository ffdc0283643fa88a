import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm, type TermMove } from '../billRun/termStates.ts';
import { lockTerm, markScheduled } from '../billRun/termStore.ts';
import { readingWatermark } from '../billRun/roster.ts';
import { addPlanJob } from '../billRun/jobs.ts';
import { LOCAL_TIME_MESSAGE, nowSql, parseLocalTime, runAtSql } from '../calendar/calendar.ts';
import { recordTermEvent } from '../billRun/termEvents.ts';

/**
 * Step 6: registers the run as a job at sheduleTime, read in the app's time zone on the
 * app's clock (now, a past time or none: at once). The move and the job are one transaction; a second
 * call finds the term Scheduled (or further) and is refused.
 */
export async function processTerm(db: pg.Pool, caller: Caller, termId: number, sheduleTime: string | undefined): Promise<void> {
  if (sheduleTime !== undefined && parseLocalTime(sheduleTime) === null) {
    throw validationFailed([{ path: 'data.sheduleTime', message: LOCAL_TIME_MESSAGE }]);
  }
  await schedule(db, caller, termId, 'process', sheduleTime);
}

/** Rates again, alone, the roster subscriptions of a processed term that failed, with the readings as they are now. */
export async function retryFailures(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await schedule(db, caller, termId, 'retryFailures', undefined);
}

async function schedule(db: pg.Pool, caller: Caller, termId: number, move: TermMove, sheduleTime: string | undefined): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, move);
    if (move === 'retryFailures' && term.failure_count === 0) throw invalidState('The term has no failed subscriptions to process again.');
    const when = await tx.query<{ shedule_time: string; run_at: string }>(
      `SELECT to_char(coalesce($1::timestamp, ${nowSql()} AT TIME ZONE a.time_zone), 'YYYY-MM-DD"T"HH24:MI:SS') AS shedule_time,
              ${runAtSql('$1::timestamp')} AS run_at
         FROM app a WHERE a.app_code = $2`,
      [sheduleTime ?? null, caller.appCode],
    );
    const { shedule_time, run_at } = when.rows[0]!;
    const round = term.job_round + 1;
    // A retry reads the readings fixed since approval: a new watermark (billed
    // subscriptions are not rated again, so theirs do not matter).
    const mark = move === 'retryFailures' ? await readingWatermark(tx) : term.reading_watermark;
    await markScheduled(tx, term.term_id, status, caller.email, { sheduleTime: shedule_time, runAt: run_at, round, watermark: mark });
    await addPlanJob(tx, term.term_id, round, run_at, caller.email);
    await recordTermEvent(tx, term, 'term.scheduled', status, { sheduleTime: shedule_time, round, retryFailures: move === 'retryFailures' });
  });
}
