import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { moveTerm, TERM_STATUS } from './termStates.ts';
import { lockTerm, markRunFinished } from './termStore.ts';
import { postLocked } from './postLocked.ts';
import { addDocumentPlanJob } from '../documents/jobs.ts';
import { recordTermEvent } from './termEvents.ts';

/**
 * The run's last job: Processing to Processed once every chunk is done, then posted
 * when the template's postBilling is 1, or when the term was posted before (a retry of its
 * failures: the new bills join the posted ones, and the term is never seen Processed with
 * posted bills, which reverse-term would withdraw). Run again, it does what is left and no more.
 */
export async function finishRun(db: pg.Pool, termId: string, round: number, by: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!t || t.job_round !== round) return;
    if (t.status === TERM_STATUS.Processing && t.chunks_done >= t.chunks_total) {
      await markRunFinished(tx, t.term_id, moveTerm(t.status, 'finish'), by);
      t.status = TERM_STATUS.Processed;
      await recordTermEvent(tx, t, 'term.processed', t.status);
      await addDocumentPlanJob(tx, t.term_id);
    }
    if (t.status === TERM_STATUS.Processed && (t.post_billing === 1 || t.posted_at !== null)) await postLocked(tx, t, by);
  });
}
