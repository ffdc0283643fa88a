import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm, TERM_STATUS } from '../billRun/termStates.ts';
import { lockTerm, markCancelled } from '../billRun/termStore.ts';
import { removePlanJob } from '../billRun/jobs.ts';
import { recordTermEvent } from '../billRun/termEvents.ts';

/** Cancels a term before it is processed; a scheduled job goes with it. The period and dates are free again. */
export async function cancelTerm(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'cancel');
    // A plan job already taken by a worker waits on this row, then finds the term Cancelled.
    if (term.status === TERM_STATUS.Scheduled) await removePlanJob(tx, term.term_id);
    await markCancelled(tx, term.term_id, status, caller.email);
    await recordTermEvent(tx, term, 'term.cancelled', status);
  });
}
