import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { moveTerm, TERM_STATUS } from './termStates.ts';
import { recordTermEvent } from './termEvents.ts';
import { lockTerm, markCheckFailed, markRunStarted, readTerm, recordChunksPlanned, recordRoster, recordRunApproval, withAccountNumbers, type TermRow } from './termStore.ts';
import { clearRoster, loadRosterSideBySide, readingWatermark, rosterSlices } from './roster.ts';
import { runContext } from './rateRoster.ts';
import { runCheckExceptions } from './checkReadings.ts';
import { addChunkJobs, addFinishJob } from './jobs.ts';
import { accountSlices, isPostAccount } from './accountRun.ts';

const STORED_EXCEPTIONS = 100;

/** Is this the round's plan, and has it still to split the roster? */
const toPlan = (t: TermRow | undefined, round: number): t is TermRow =>
  t !== undefined && t.job_round === round && t.status === TERM_STATUS.Processing && t.chunks_total === 0;

/**
 * The run's first job: moves the term to Processing, runs the steps that were skipped
 * (roster, then the blocking checks and the readings' freeze), splits the roster into
 * chunks and queues one job per chunk. Safe to run again after a crash at any point:
 * each transaction either happened or did not, and a planned round is not planned twice.
 */
export async function planRun(db: pg.Pool, termId: string, round: number, chunkSize: number, by: string): Promise<void> {
  const started = await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (t === undefined || t.job_round !== round) return false;
    if (t.status === TERM_STATUS.Scheduled) {
      await markRunStarted(tx, t.term_id, moveTerm(t.status, 'start'), by);
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

  // The roster, committed before the check: a Processing term's roster changes only here,
  // and a plan run again after a crash finds it recorded, or not recorded and clears it.
  // Cleared, then loaded in halves side by side (loadRosterSideBySide), then recorded.
  const cleared = await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!toPlan(t, round)) return undefined;
    if (!t.roster_loaded_at) await clearRoster(tx, t.term_id);
    return t;
  });
  if (cleared === undefined) return;
  const count = cleared.roster_loaded_at ? undefined : await loadRosterSideBySide(db, cleared);
  const loaded = await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!toPlan(t, round)) return undefined;
    if (!t.roster_loaded_at && count !== undefined) await recordRoster(tx, t.term_id, count);
    return readTerm(tx, termId);
  });
  if (!toPlan(loaded, round)) return;
  // The run's own check when validate-term was skipped, on slices of the roster side by
  // side (checkReadings.ts): one statement over a million subscriptions used one core for
  // three quarters of the plan while the other waited (issue 15, docs/bill-run.md).
  // The chunks' bounds are worked out beside it, from the same committed roster (Post
  // Account: slices of accounts, so no account is split across chunks, accountRun.ts).
  const ctx = loaded.approved_at ? undefined : await runContext(db, loaded, mark);
  const [exceptions, slices] = await Promise.all([
    ctx === undefined || loaded.validated_at ? [] : runCheckExceptions(db, ctx),
    isPostAccount(loaded) ? accountSlices(db, loaded.term_id, chunkSize) : rosterSlices(db, loaded.term_id, chunkSize),
  ]);

  await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, null, termId);
    if (!toPlan(t, round)) return;
    if (ctx !== undefined && !t.approved_at) {
      if (exceptions.length > 0 && !t.validated_at) {
        const failed = moveTerm(t.status, 'fail');
        const unusual = exceptions.some((e) => e.code === 'UNUSUAL_CONSUMPTION');
        const lastError =
          `validation found ${exceptions.length} exception(s) that would make bills wrong; no bill was made` +
          (unusual ? '; consumption far from a subscription\'s history stops a run nobody validated: correct the reading, or validate-term and approve-term to bill it as read' : '');
        await markCheckFailed(tx, t.term_id, failed, by, {
          lastError,
          exceptions: await withAccountNumbers(tx, exceptions.slice(0, STORED_EXCEPTIONS)),
          exceptionCount: exceptions.length,
        });
        await recordTermEvent(tx, t, 'term.failed', failed, { lastError, exceptionCount: exceptions.length });
        return;
      }
      await recordRunApproval(tx, t.term_id, mark, ctx.meteredCodes.length > 0);
    }
    await tx.query(
      `INSERT INTO term_chunk (term_id, round, chunk_no, from_id, to_id)
       SELECT $1, $2, n - 1, f, l FROM unnest($3::bigint[], $4::bigint[]) WITH ORDINALITY AS u(f, l, n)`,
      [t.term_id, round, slices.map((s) => s[0]), slices.map((s) => s[1])],
    );
    await recordChunksPlanned(tx, t.term_id, slices.length);
    if (slices.length > 0) await addChunkJobs(tx, t.term_id, round, by);
    else await addFinishJob(tx, t.term_id, round, by);
  });
}
