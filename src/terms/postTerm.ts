import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { lockTerm } from '../billRun/termStore.ts';
import { postLocked } from '../billRun/postLocked.ts';

/** Posts a processed term's bills to the accounts' ledger. */
export async function postTerm(db: pg.Pool, caller: Caller, termId: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    return postLocked(tx, term, caller.email);
  });
}
