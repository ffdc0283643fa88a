import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { Queryable } from '../db/pool.ts';
import { postTermBills } from '../bills/store.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import { moveTerm } from './states.ts';
import { lockTerm, setStatus, type TermRow } from './store.ts';

/** Posts a processed term's bills to the accounts' ledger. */
export async function postTerm(db: pg.Pool, caller: Caller, termId: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    return postLocked(tx, term, caller.email);
  });
}

/** The move and the ledger entries, in the caller's transaction on a locked term (also the run's automatic post). */
export async function postLocked(tx: Queryable, term: TermRow, by: string): Promise<number> {
  const status = moveTerm(term.status, 'post');
  const posted = await postTermBills(tx, term.term_id, by);
  // Credit already on an account (a payment before the bill, a credit note) settles the
  // bill it has just been given, in the same transaction as the posting.
  const accounts = await tx.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM bill WHERE term_id = $1 AND status = 'posted'`, [term.term_id]);
  await settleAccounts(tx, term.app_code, accounts.rows.map((r) => r.account_id), by);
  await setStatus(tx, term.term_id, status, by, 'posted_at = now()');
  return posted;
}
