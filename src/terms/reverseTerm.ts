import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { withdrawTermBills } from '../bills/store.ts';
import { moveTerm } from '../billRun/termStates.ts';
import { lockTerm, markReversed } from '../billRun/termStore.ts';
import { recordTermEvent } from '../billRun/termEvents.ts';
import { moneyText } from '../rating/money.ts';

/**
 * Withdraws the bills of a processed, unposted term (they keep their numbers) and takes
 * the term back to Loaded: the roster stays, readings may be fixed, and process-term
 * runs validation and approval again.
 */
export async function reverseTerm(db: pg.Pool, caller: Caller, termId: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'reverse');
    const withdrawn = await withdrawTermBills(tx, term.term_id);
    await tx.query('DELETE FROM term_failure WHERE term_id = $1', [term.term_id]);
    await markReversed(tx, term.term_id, status, caller.email);
    // The term as the reversal leaves it: its run's counters are reset.
    await recordTermEvent(tx, term, 'term.reversed', status, { billsWithdrawn: withdrawn, billCount: 0, failureCount: 0, totalDue: moneyText('0', term.minor_units) });
    return withdrawn;
  });
}
