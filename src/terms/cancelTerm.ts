import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
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
    // A posted term in a retry round of its failures (Scheduled, or Failed if that round
    // failed) holds posted bills: cancelled, its period was free to be billed again with
    // those bills still in the ledger (a reviewer).
    if (term.posted_at !== null) throw invalidState(`Term ${term.term_id} was posted; a posted term is not cancelled (its bills are corrected by cancel-bill or cancel-and-rebill).`, 'data.termID');
    const status = moveTerm(term.status, 'cancel');
    // A plan job already taken by a worker waits on this row, then finds the term Cancelled.
    if (term.status === TERM_STATUS.Scheduled) await removePlanJob(tx, term.term_id);
    await markCancelled(tx, term.term_id, status, caller.email);
    await recordTermEvent(tx, term, 'term.cancelled', status);
  });
}
