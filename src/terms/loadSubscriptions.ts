import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm } from '../billRun/termStates.ts';
import { countReadings } from '../billRun/checkReadings.ts';
import { loadRoster } from '../billRun/roster.ts';
import { runContext } from '../billRun/rateRoster.ts';
import { lockTerm, markLoaded } from '../billRun/termStore.ts';

/** Step 2: the term takes its roster (again, when it had one). */
export async function loadSubscriptions(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'load');
    const count = await loadRoster(tx, term);
    const readings = await countReadings(tx, await runContext(tx, term, null));
    await markLoaded(tx, term.term_id, status, caller.email, count, readings);
  });
}
