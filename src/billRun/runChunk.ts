import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { sumBills, totalsText } from '../rating/index.ts';
import { billRowParts, copyBills, takeBillNumbers } from '../bills/store.ts';
import { StoredPacker } from '../billLines/storedLines.ts';
import { TERM_STATUS } from './termStates.ts';
import { addChunkProgress, readTerm, type TermRow } from './termStore.ts';
import { loadRosterInputs, rateEach, runContext, yieldToEventLoop, type FailedEntry, type RunContext } from './rateRoster.ts';
import { accountBillSource, isPostAccount, loadAccountInputs, rateAccounts, sumAccountBills } from './accountRun.ts';
import { datedDetails } from './checkReadings.ts';
import { accountBillRowParts, copyAccountBills } from '../bills/accountBills.ts';
import { addFinishJob } from './jobs.ts';
import { billSource } from './billSource.ts';
import { appToday, dueDateOn } from '../calendar/calendar.ts';

/** What a chunk that committed wrote (undefined: it had been done already, or the run moved on). */
export type ChunkDone = { bills: number; failures: number };

/**
 * One chunk of a run: rates its roster subscriptions that have no bill yet, then in one
 * transaction takes its block of bill numbers, writes the bills (COPY), records the
 * failures, marks the chunk done and adds to the term's progress. The last chunk queues
 * the finish. Killed at any instant, the chunk either committed (a re-run finds it done)
 * or left nothing (its numbers go back with it): one bill per subscription, no gaps.
 */
export async function runChunk(db: pg.Pool, termId: string, round: number, chunkNo: number, worker: string | null, by: string): Promise<ChunkDone | undefined> {
  const found = await db.query<{ from_id: string; to_id: string; done: boolean }>(
    `SELECT c.from_id, c.to_id, c.done_at IS NOT NULL AS done FROM term_chunk c WHERE c.term_id = $1 AND c.round = $2 AND c.chunk_no = $3`,
    [termId, round, chunkNo],
  );
  const chunk = found.rows[0];
  if (!chunk || chunk.done) return undefined;
  const term = await readTerm(db, termId);
  if (!term || term.status !== TERM_STATUS.Processing || term.job_round !== round) return undefined;

  // The rating, the slow part, holds no lock: workers rate side by side.
  const ctx = await runContext(db, term);
  // The bill date is the day the run rates, in the app's time zone.
  const billDate = await appToday(db, term.app_code);
  const { rows, copy, billed, failed, totals } = isPostAccount(term)
    ? await accountChunk(db, ctx, term, billDate, chunk.from_id, chunk.to_id)
    : await subscriptionChunk(db, ctx, term, billDate, chunk.from_id, chunk.to_id);

  return inTransaction(db, async (tx): Promise<ChunkDone | undefined> => {
    // Lock order everywhere: term, then the app's bill-number counter.
    const t = await tx.query<{ status: string; job_round: number }>('SELECT status, job_round FROM term WHERE term_id = $1 FOR UPDATE', [termId]);
    const now = t.rows[0];
    if (!now || now.status !== TERM_STATUS.Processing || now.job_round !== round) return undefined;
    const c = await tx.query('SELECT 1 FROM term_chunk WHERE term_id = $1 AND round = $2 AND chunk_no = $3 AND done_at IS NULL', [termId, round, chunkNo]);
    if (c.rowCount === 0) return undefined;

    if (rows.length > 0) {
      let number = await takeBillNumbers(tx, term.app_code, rows.length);
      await copy(
        tx,
        (function* () {
          for (const [head, tail] of rows) yield head + String(number++) + tail;
        })(),
      );
    }
    let newFailures = 0;
    if (failed.length > 0) {
      const r = await tx.query<{ inserted: boolean }>(
        `INSERT INTO term_failure (term_id, subscription_id, code, reason, details)
         SELECT $1, u.sub, u.code, u.reason, u.details FROM unnest($2::bigint[], $3::text[], $4::text[], $5::jsonb[]) AS u(sub, code, reason, details)
         ON CONFLICT (term_id, subscription_id) DO UPDATE SET code = EXCLUDED.code, reason = EXCLUDED.reason, details = EXCLUDED.details, failed_at = now()
         RETURNING (xmax = 0) AS inserted`,
        // Each detail naming a meter with the day its fix is dated, as validate-term says it (get-failures).
        [termId, failed.map((f) => f.input.subscriptionId), failed.map((f) => f.code), failed.map((f) => f.reason), failed.map((f) => JSON.stringify(datedDetails(f, ctx.start, ctx.end)))],
      );
      newFailures = r.rows.filter((x) => x.inserted).length;
    }
    let fixed = 0;
    if (round > 1 && billed.length > 0) {
      // A retry: subscriptions that failed before and are billed now are failures no more.
      const r = await tx.query('DELETE FROM term_failure WHERE term_id = $1 AND subscription_id = ANY($2::bigint[])', [termId, billed]);
      fixed = r.rowCount ?? 0;
    }
    await tx.query(
      'UPDATE term_chunk SET done_at = now(), done_by = $6, bills = $4, failures = $5 WHERE term_id = $1 AND round = $2 AND chunk_no = $3',
      [termId, round, chunkNo, rows.length, failed.length, worker],
    );
    const p = await addChunkProgress(tx, termId, { bills: rows.length, failures: newFailures - fixed, totals });
    if (p.chunksDone >= p.chunksTotal) await addFinishJob(tx, termId, round, by);
    return { bills: rows.length, failures: failed.length };
  });
}

/** A chunk's rated work, ready for its write transaction: bill rows around their numbers, the subscriptions billed, the failures. */
type RatedChunk = {
  rows: [string, string][];
  copy: (tx: pg.PoolClient, rows: Iterable<string>) => Promise<void>;
  billed: string[];
  failed: FailedEntry[];
  totals: ReturnType<typeof totalsText>;
};

/** Post Subscription: the chunk is a range of subscription ids, one bill each; each bill becomes its row as it is rated. */
async function subscriptionChunk(db: pg.Pool, ctx: RunContext, term: TermRow, billDate: string, fromId: string, toId: string): Promise<RatedChunk> {
  const rows: [string, string][] = [];
  const billed: string[] = [];
  const failed: FailedEntry[] = [];
  const sums = sumBills([]);
  const packer = new StoredPacker();
  await rateEach(
    ctx,
    await loadRosterInputs(db, ctx, fromId, toId),
    (r) => {
      rows.push(billRowParts(packer, term.app_code, term.term_id, billDate, dueOf(term, billDate), { subscriptionId: r.input.subscriptionId, accountId: r.input.accountId, bill: r.bill, source: billSource(ctx, r.input, r.bill) }));
      billed.push(r.input.subscriptionId);
      sumBills([r.bill], sums);
    },
    (f) => failed.push(f),
  );
  return { rows, copy: (tx, rows) => copyBills(tx, rows, packer), billed, failed, totals: totalsText(sums) };
}

/** Post Account: the chunk is a range of account ids (accountRun.ts), one bill per account. */
async function accountChunk(db: pg.Pool, ctx: RunContext, term: TermRow, billDate: string, fromId: string, toId: string): Promise<RatedChunk> {
  const { bills, failed } = await rateAccounts(ctx, await loadAccountInputs(db, ctx, fromId, toId));
  const rows: [string, string][] = [];
  const packer = new StoredPacker();
  const billed: string[] = [];
  for (let i = 0; i < bills.length; i++) {
    if (i % 256 === 255) await yieldToEventLoop();
    const e = bills[i]!;
    rows.push(accountBillRowParts(packer, term.app_code, term.term_id, billDate, dueOf(term, billDate), { accountId: e.accountId, bill: e.bill, source: accountBillSource(ctx, e) }));
    for (const s of e.subscriptions) billed.push(s.input.subscriptionId);
  }
  return { rows, copy: (tx, rows) => copyAccountBills(tx, rows, packer), billed, failed, totals: totalsText(sumAccountBills(bills)) };
}

/** A run's bills are due on the term's due date; a retry round of a posted term's failures keeps the term's gap after the bill date instead (calendar.ts, dueDateOn). */
const dueOf = (term: TermRow, billDate: string) => (term.posted_at === null ? term.due_date : dueDateOn(billDate, term));
