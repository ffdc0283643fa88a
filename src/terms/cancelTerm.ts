import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm, TERM_STATUS } from './states.ts';
import { lockTerm, setStatus } from './store.ts';
import { removePlanJob } from './jobs.ts';

/** Cancels a term before it is processed; a scheduled job goes with it. The period and dates are free again. */
export async function cancelTerm(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'cancel');
    // A plan job already taken by a worker waits on this row, then finds the term Cancelled.
    if (term.status === TERM_STATUS.Scheduled) await removePlanJob(tx, term.term_id);
    await setStatus(tx, term.term_id, status, caller.email);
  });
}
