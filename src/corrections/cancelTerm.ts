import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appToday } from '../calendar/calendar.ts';
import { lockTerm } from '../billRun/termStore.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';
import { correctTermBills, correctionSummary } from './correctBills.ts';
import { lockBills, postedBillIds } from './store.ts';

/**
 * cancel-and-rebill: every posted bill of a posted term cancelled by its credit note and
 * (unless rebill is false) billed again with the readings as they are now, in one
 * transaction. The term stays Posted; its run totals stay the run's.
 */
export async function cancelAndRebillTerm(db: pg.Pool, caller: Caller, d: { termID: number; reason: string; rebill?: boolean }) {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, d.termID);
    if (!term) throw notFound('term', 'data.termID');
    if (term.status !== TERM_STATUS.Posted) {
      throw invalidState(`Term ${term.term_id} is ${term.status}; only a posted term's bills are cancelled by credit notes (reverse-term withdraws a processed run's bills).`);
    }
    const ids = await postedBillIds(tx, term.term_id);
    if (ids.length === 0) throw invalidState(`Term ${term.term_id} has no posted bill left to cancel.`);
    const bills = await lockBills(tx, caller.appCode, ids, await appToday(tx, caller.appCode));
    const corrected = await correctTermBills(tx, term, bills, { reason: d.reason, rebill: d.rebill ?? true, origin: 'cancel-and-rebill', by: caller.email, at: 'data.termID' });
    return correctionSummary(corrected, term.minor_units);
  });
}
