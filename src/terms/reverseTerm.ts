import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import { withdrawTermBills } from '../bills/store.ts';
import { moveTerm } from './states.ts';
import { lockTerm, setStatus } from './store.ts';

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
    await setStatus(
      tx,
      term.term_id,
      status,
      caller.email,
      `validated_at = NULL, approved_at = NULL, reading_watermark = NULL, exceptions = '[]', exception_count = 0,
       chunks_total = 0, chunks_done = 0, bill_count = 0, failure_count = 0, total_charges = 0, total_tax = 0,
       total_amount = 0, total_brought_forward = 0, total_due = 0`,
    );
    return withdrawn;
  });
}
