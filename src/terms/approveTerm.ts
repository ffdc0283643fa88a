import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { moveTerm } from '../billRun/termStates.ts';
import { lockTerm, markApproved } from '../billRun/termStore.ts';
import { readingWatermark } from '../billRun/roster.ts';
import { holdAppSettings } from '../admin/apps.ts';

/**
 * Step 5: freezes the roster and the readings (the watermark). Exceptions that remain
 * are accepted: those subscriptions fail in the run, recorded with their reason.
 */
export async function approveTerm(db: pg.Pool, caller: Caller, termId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'approve');
    await holdAppSettings(tx, caller.appCode);
    const mark = await readingWatermark(tx);
    await markApproved(tx, term.term_id, status, caller.email, mark);
  });
}
