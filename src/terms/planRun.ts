import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { moveTerm, TERM_STATUS } from './states.ts';
import { loadRoster, lockTerm, readTerm, readingWatermark, setStatus, type TermRow } from './store.ts';
import { runContext } from './rateRoster.ts';
import { blockingExceptions } from './checkReadings.ts';
import { addChunkJobs, addFinishJob } from './jobs.ts';

const JOB_USER = 'billrun';
const STORED_EXCEPTIONS = 100;

/**
 * Consecutive slices of the roster's subscription ids without a live bill, `size`
 * each: [from, to] inclusive.
 */
export async function rosterSlices(db: Queryable, termId: string, size: number): Promise<[string, string][]> {
  const r = await db.query<{ from_id: string; to_id: string }>(
    `SELECT min(subscription_id) AS from_id, max(subscription_id) AS to_id
       FROM (SELECT ts.subscription_id, (row_number() OVER (ORDER BY ts.subscription_id) - 1) / $2 AS n
               FROM term_subscription ts
              WHERE ts.term_id = $1
                AND NOT EXISTS (SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.subscription_id = ts.subscription_id AND b.status <> 'withdrawn')) x
      GROUP BY n ORDER BY n`,
    [termId, size],
  );
  return r.rows.map((row) => [row.from_id, row.to_id]);
}

/** Is this the round's plan, and has it still to split the roster? */
const toPlan = (t: TermRow | undefined, round: number): t is TermRow =>
  t !== undefined && t.job_round === round && t.status === TERM_STATUS.Processing && t.chunks_total === 0;

/**
 * The run's first job: moves the term to Processing, runs the steps that were skipped
 * (roster, then the blocking checks and the readings' freeze), splits the roster into
 * chunks and queues one job per chunk. Safe to run again after a crash at any point:
 * each transaction either happened or did not, and a planned round is not planned twice.
 */
export async function planRun(db: pg.Pool, termId: string, round: number, chunkSize: number): Promise<void> {
  const started = await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (t === undefined || t.job_round !== round) return false;
    if (t.status === TERM_STATUS.Scheduled) {
      await setStatus(tx, t.term_id, moveTerm(t.status, 'start'), JOB_USER, 'job_started_at = now()');
      t.status = TERM_STATUS.Processing;
    }
    return toPlan(t, round);
  });
  if (!started) return;

  // Taken before the checks, in a short transaction of its own: the checks and the
  // chunks then read the same readings, and new readings are not held up by the plan.
  let mark: string | null = null;
  const before = await readTerm(db, termId);
  if (before && !before.approved_at) mark = await inTransaction(db, (tx) => readingWatermark(tx));

  await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!toPlan(t, round)) return;
    if (!t.roster_loaded_at) {
      const count = await loadRoster(tx, t);
      await tx.query('UPDATE term SET roster_loaded_at = now(), subscription_count = $2 WHERE term_id = $1', [t.term_id, count]);
    }
    if (!t.approved_at) {
      const ctx = await runContext(tx, t, mark);
      if (!t.validated_at) {
        const exceptions = await blockingExceptions(tx, ctx);
        if (exceptions.length > 0) {
          await setStatus(
            tx,
            t.term_id,
            moveTerm(t.status, 'fail'),
            JOB_USER,
            `job_finished_at = now(), job_last_error = $4, exceptions = $5, exception_count = $6`,
            [
              `validation found ${exceptions.length} exception(s) that would make bills wrong; no bill was made`,
              JSON.stringify(exceptions.slice(0, STORED_EXCEPTIONS)),
              exceptions.length,
            ],
          );
          return;
        }
      }
      // Validated here or by validate-term: the count stands (here, every roster
      // subscription has its readings, or the term failed above).
      await tx.query(
        `UPDATE term SET approved_at = now(), reading_watermark = $2,
                reading_count = CASE WHEN validated_at IS NULL AND $3 THEN subscription_count ELSE reading_count END
          WHERE term_id = $1`,
        [t.term_id, mark, ctx.meteredCodes.length > 0],
      );
    }
    const slices = await rosterSlices(tx, t.term_id, chunkSize);
    await tx.query(
      `INSERT INTO term_chunk (term_id, round, chunk_no, from_id, to_id)
       SELECT $1, $2, n - 1, f, l FROM unnest($3::bigint[], $4::bigint[]) WITH ORDINALITY AS u(f, l, n)`,
      [t.term_id, round, slices.map((s) => s[0]), slices.map((s) => s[1])],
    );
    await tx.query('UPDATE term SET chunks_total = $2 WHERE term_id = $1', [t.term_id, slices.length]);
    if (slices.length > 0) await addChunkJobs(tx, t.term_id, round);
    else await addFinishJob(tx, t.term_id, round);
  });
}
