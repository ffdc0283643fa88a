// A whole term's bills verified as jobs on the queue: verify-term splits the term's live
// bills into chunks by bill id (one job each, so any number of workers share them), each
// chunk verifies its bills and, in one transaction, records its mismatches, marks itself
// done and adds to the term's verification; the last chunk gives the verdict.
import type pg from 'pg';
import type { Caller } from '../auth/roles.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
import { lockTerm, type TermListExtra } from '../billRun/termStore.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import { STORED_BILL_COLUMNS, verifyBills, type StoredBill } from './verifyBills.ts';
import type { VerificationRecord } from './schemas.ts';

export const VERIFY_TASK = 'term-verify-chunk';
export type VerifyChunkPayload = { termId: string; round: number; chunk: number };

/** Statuses whose bills are final enough to verify: the run is over. */
const VERIFIABLE = ['Processed', 'Posted'];

/** verify-term: starts (or restarts) the verification of a processed term's bills. */
export async function verifyTerm(db: pg.Pool, caller: Caller, termId: number, chunkSize: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const t = await lockTerm(tx, caller.appCode, termId);
    if (t === undefined) throw notFound('term', 'data.termID');
    if (!VERIFIABLE.includes(t.status)) {
      throw invalidState(`The term is ${t.status}: only a Processed or Posted term's bills can be verified.`);
    }
    const v = await tx.query<{ round: number }>(
      `INSERT INTO term_verification AS v (term_id, app_code, round, term_round, status, requested_by)
       VALUES ($1, $2, 1, $3, 'running', $4)
       ON CONFLICT (term_id) DO UPDATE SET round = v.round + 1, term_round = EXCLUDED.term_round, status = 'running',
         chunks_total = 0, chunks_done = 0, bills = 0, mismatches = 0, requested_at = now(), requested_by = EXCLUDED.requested_by, verified_at = NULL
       RETURNING round`,
      [t.term_id, t.app_code, t.job_round, caller.email],
    );
    const round = v.rows[0]!.round;
    // The previous verification's record goes: get-verification lists the latest only.
    await tx.query('DELETE FROM bill_mismatch WHERE term_id = $1', [t.term_id]);
    await tx.query('DELETE FROM term_verification_chunk WHERE term_id = $1', [t.term_id]);
    const chunks = await tx.query<{ n: number }>(
      `INSERT INTO term_verification_chunk (term_id, round, chunk_no, from_id, to_id)
       SELECT $1, $2, g::int, min(bill_id), max(bill_id)
         FROM (SELECT bill_id, (row_number() OVER (ORDER BY bill_id) - 1) / $3 AS g
                 FROM bill WHERE term_id = $1 AND status <> 'withdrawn') x
        GROUP BY g
       RETURNING chunk_no AS n`,
      [t.term_id, round, chunkSize],
    );
    const total = chunks.rowCount ?? 0;
    if (total === 0) {
      await tx.query(`UPDATE term_verification SET status = 'verified', verified_at = now() WHERE term_id = $1`, [t.term_id]);
      return;
    }
    await tx.query('UPDATE term_verification SET chunks_total = $2 WHERE term_id = $1', [t.term_id, total]);
    // The jobs in the same transaction: a verification is never running without them.
    await tx.query(
      `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'round', $3::int, 'chunk', c.chunk_no),
                                      job_key := 'verify:' || $2 || ':' || $3 || ':' || c.chunk_no, max_attempts := 25)
         FROM term_verification_chunk c WHERE c.term_id = $2::bigint AND c.round = $3 ORDER BY c.chunk_no`,
      [VERIFY_TASK, t.term_id, round],
    );
  });
}

/** One chunk's job: verifies its bills, then records what it found in one transaction. */
export async function runVerifyChunk(db: pg.Pool, termId: string, round: number, chunkNo: number): Promise<void> {
  const c = await db.query<{ from_id: string; to_id: string }>(
    `SELECT c.from_id, c.to_id FROM term_verification_chunk c JOIN term_verification v ON v.term_id = c.term_id AND v.round = c.round
      WHERE c.term_id = $1 AND c.round = $2 AND c.chunk_no = $3 AND c.done_at IS NULL`,
    [termId, round, chunkNo],
  );
  const chunk = c.rows[0];
  if (chunk === undefined) return;
  const bills = await db.query<StoredBill>(
    `SELECT ${STORED_BILL_COLUMNS} FROM bill b JOIN app a ON a.app_code = b.app_code
      WHERE b.term_id = $1 AND b.bill_id BETWEEN $2 AND $3 AND b.status <> 'withdrawn' ORDER BY b.bill_id`,
    [termId, chunk.from_id, chunk.to_id],
  );
  const results = await verifyBills(db, bills.rows);
  const bad = results.filter((r) => !r.matches);

  await inTransaction(db, async (tx) => {
    const v = await tx.query<{ round: number }>('SELECT round FROM term_verification WHERE term_id = $1 FOR UPDATE', [termId]);
    if (v.rows[0]?.round !== round) return;
    const done = await tx.query(
      'UPDATE term_verification_chunk SET done_at = now(), bills = $4 WHERE term_id = $1 AND round = $2 AND chunk_no = $3 AND done_at IS NULL',
      [termId, round, chunkNo, results.length],
    );
    if (done.rowCount === 0) return;
    if (bad.length > 0) {
      await tx.query(
        `INSERT INTO bill_mismatch (term_id, round, bill_id, bill_number, subscription_id, account_id, basis, differences, problems)
         SELECT $1, $2, u.b, u.n, u.s, u.a, u.basis, u.d, u.p
           FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::jsonb[], $9::jsonb[]) AS u(b, n, s, a, basis, d, p)`,
        [
          termId,
          round,
          bad.map((r) => r.billID),
          bad.map((r) => r.billNumber),
          bad.map((r) => r.subscriptionID),
          bad.map((r) => r.accountID),
          bad.map((r) => r.basis),
          bad.map((r) => JSON.stringify(r.differences)),
          bad.map((r) => JSON.stringify(r.problems)),
        ],
      );
    }
    await tx.query(
      `UPDATE term_verification SET chunks_done = chunks_done + 1, bills = bills + $2, mismatches = mismatches + $3,
              status = CASE WHEN chunks_done + 1 < chunks_total THEN 'running'
                            WHEN mismatches + $3 > 0 THEN 'mismatched' ELSE 'verified' END,
              verified_at = CASE WHEN chunks_done + 1 < chunks_total THEN NULL ELSE now() END
        WHERE term_id = $1`,
      [termId, results.length, bad.length],
    );
  });
}

type VerificationRow = {
  term_id: string;
  status: string;
  stale: boolean;
  verified_at: string | null;
  requested_at: string;
  requested_by: string;
  bills: number;
  mismatches: number;
  chunks_total: number;
  chunks_done: number;
};

export const NO_VERIFICATION: VerificationRecord = Object.freeze({
  status: 'none',
  verifiedAt: null,
  requestedAt: null,
  requestedBy: null,
  bills: 0,
  mismatches: 0,
  progress: Object.freeze({ chunksTotal: 0, chunksDone: 0, percent: 0 }),
}) as VerificationRecord;

function record(v: VerificationRow): VerificationRecord {
  const percent = v.chunks_total === 0 ? (v.status === 'running' ? 0 : 100) : Math.floor((v.chunks_done * 100) / v.chunks_total);
  return {
    status: (v.stale ? 'outdated' : v.status) as VerificationRecord['status'],
    verifiedAt: v.verified_at,
    requestedAt: v.requested_at,
    requestedBy: v.requested_by,
    bills: v.bills,
    mismatches: v.mismatches,
    progress: { chunksTotal: v.chunks_total, chunksDone: v.chunks_done, percent },
  };
}

/**
 * A term's verification as a column of a listing of terms (billRun/termStore.ts listTerms:
 * alias t, the app a), so get-terms reads terms and their verifications in one query.
 */
export const TERM_VERIFICATION_COLUMN: TermListExtra = {
  name: 'verification',
  columns: `(SELECT row_to_json(x) FROM (
      SELECT v.term_id::text AS term_id, v.status, (t.job_round <> v.term_round) AS stale, ${localTimeSql('v.verified_at')} AS verified_at,
             ${localTimeSql('v.requested_at')} AS requested_at, v.requested_by, v.bills, v.mismatches, v.chunks_total, v.chunks_done
        FROM term_verification v WHERE v.term_id = t.term_id AND v.app_code = t.app_code) x) AS verification`,
};

/** The record of a listing's TERM_VERIFICATION_COLUMN. */
export function verificationOfColumn(column: unknown): VerificationRecord {
  return column === null || column === undefined ? NO_VERIFICATION : record(column as VerificationRow);
}

/** The verification of each of these terms (get-terms' `verification`); a term never verified has none. */
export async function verificationsOf(db: Queryable, appCode: number, termIds: string[]): Promise<Map<string, VerificationRecord>> {
  const out = new Map<string, VerificationRecord>();
  if (termIds.length === 0) return out;
  const r = await db.query<VerificationRow>(
    `SELECT v.term_id, v.status, (t.job_round <> v.term_round) AS stale, ${localTimeSql('v.verified_at')} AS verified_at,
            ${localTimeSql('v.requested_at')} AS requested_at, v.requested_by, v.bills, v.mismatches, v.chunks_total, v.chunks_done
       FROM term_verification v JOIN term t ON t.term_id = v.term_id JOIN app a ON a.app_code = v.app_code
      WHERE v.app_code = $1 AND v.term_id = ANY($2::bigint[])`,
    [appCode, termIds],
  );
  for (const row of r.rows) out.set(row.term_id, record(row));
  return out;
}

/** get-verification: the term's verification and its mismatched bills, a page at a time by billID. */
export async function getVerification(db: Queryable, caller: Caller, termId: number, limit: number, offset: number) {
  const t = await db.query('SELECT 1 FROM term WHERE term_id = $1 AND app_code = $2', [termId, caller.appCode]);
  if (t.rowCount === 0) throw notFound('term', 'data.termID');
  const verification = (await verificationsOf(db, caller.appCode, [String(termId)])).get(String(termId)) ?? NO_VERIFICATION;
  const r = await db.query<{ bill_id: string; bill_number: string; subscription_id: string | null; account_id: string; basis: string; differences: any[]; problems: any[]; total: string }>(
    `SELECT m.bill_id, m.bill_number, m.subscription_id, m.account_id, m.basis, m.differences, m.problems, count(*) OVER () AS total
       FROM bill_mismatch m WHERE m.term_id = $1 ORDER BY m.bill_id LIMIT $2 OFFSET $3`,
    [termId, limit, offset],
  );
  let total = r.rows.length > 0 ? Number(r.rows[0]!.total) : 0;
  if (r.rows.length === 0 && offset > 0) {
    const c = await db.query<{ n: string }>('SELECT count(*) AS n FROM bill_mismatch WHERE term_id = $1', [termId]);
    total = Number(c.rows[0]!.n);
  }
  return {
    verification,
    mismatches: r.rows.map((m) => ({
      billID: Number(m.bill_id),
      billNumber: Number(m.bill_number),
      subscriptionID: m.subscription_id === null ? null : Number(m.subscription_id),
      accountID: Number(m.account_id),
      basis: m.basis,
      differences: m.differences,
      problems: m.problems,
    })),
    paging: { limit, offset, total },
  };
}
