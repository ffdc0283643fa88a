import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { moveTerm, TERM_STATUS } from './states.ts';
import { lockTerm, setStatus } from './store.ts';
import { postLocked } from './postTerm.ts';

/**
 * The run's last job: Processing to Processed once every chunk is done, then posted
 * when the template's postBilling is 1. Run again, it does what is left and no more.
 */
export async function finishRun(db: pg.Pool, termId: string, round: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!t || t.job_round !== round) return;
    if (t.status === TERM_STATUS.Processing && t.chunks_done >= t.chunks_total) {
      await setStatus(tx, t.term_id, moveTerm(t.status, 'finish'), 'billrun', 'job_finished_at = now()');
      t.status = TERM_STATUS.Processed;
    }
    if (t.status === TERM_STATUS.Processed && t.post_billing === 1) await postLocked(tx, t, 'billrun');
  });
}
