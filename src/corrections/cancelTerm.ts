import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appToday } from '../calendar/calendar.ts';
import { readTerm } from '../billRun/termStore.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';
import { correctBills, correctionSummary } from './correctBills.ts';
import { lockCorrection } from './lockCorrection.ts';
import { postedBillIds } from './store.ts';

/**
 * cancel-and-rebill: every posted bill of a posted term cancelled by its credit note and
 * (unless rebill is false) billed again with the readings as they are now, in one
 * transaction; with them, the later Prepaid bills that settled their advances
 * (lockCorrection.ts). The term stays Posted; its run totals stay the run's.
 */
export async function cancelAndRebillTerm(db: pg.Pool, caller: Caller, d: { termID: number; reason: string; rebill?: boolean }) {
  return inTransaction(db, async (tx) => {
    const term = await readTerm(tx, d.termID);
    if (!term || term.app_code !== caller.appCode) throw notFound('term', 'data.termID');
    const rebill = d.rebill ?? true;
    const groups = await lockCorrection(tx, caller.appCode, await appToday(tx, caller.appCode), {
      targets: async (q) => ({ termIds: [term.term_id], billIds: await postedBillIds(q, term.term_id) }),
      check: ({ terms, bills }) => {
        const locked = terms.get(term.term_id)!;
        if (locked.status !== TERM_STATUS.Posted) {
          throw invalidState(`Term ${locked.term_id} is ${locked.status}; only a posted term's bills are cancelled by credit notes (reverse-term withdraws a processed run's bills).`);
        }
        if (bills.length === 0) throw invalidState(`Term ${locked.term_id} has no posted bill left to cancel.`);
      },
      rebill,
      path: 'data.termID',
    });
    const corrected = await correctBills(tx, groups, { reason: d.reason, rebill, origin: 'cancel-and-rebill', by: caller.email, at: 'data.termID' });
    return correctionSummary(corrected, term.minor_units);
  });
}
