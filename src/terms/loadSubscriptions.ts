import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm } from './states.ts';
import { countReadings } from './checkReadings.ts';
import { loadRoster, lockTerm, setStatus } from './store.ts';
import { runContext } from './rateRoster.ts';

/** Step 2: the term takes its roster (again, when it had one). */
export async function loadSubscriptions(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'load');
    const count = await loadRoster(tx, term);
    const readings = await countReadings(tx, await runContext(tx, term, null));
    await setStatus(
      tx,
      term.term_id,
      status,
      caller.email,
      'roster_loaded_at = now(), subscription_count = $4, reading_count = $5, validated_at = NULL, exceptions = \'[]\', exception_count = 0',
      [count, readings],
    );
  });
}
