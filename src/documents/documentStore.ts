// SQL for bill_document: pending rows made by the plan (with the template version the
// term's documents use), the results of a render chunk written in one statement, reads.
import type { Queryable } from '../db/pool.ts';

/**
 * Marks a term's bills for rendering with this template version: bills with no document
 * yet, failed ones, and (again) every bill when `all` (an on-demand render), or only
 * those in billIds. Answers how many are pending.
 */
export async function markPending(db: Queryable, termId: string, templateId: number, version: number, o: { all: boolean; billIds?: number[] }): Promise<number> {
  const r = await db.query(
    `INSERT INTO bill_document (bill_id, app_code, term_id, template_id, template_version)
     SELECT b.bill_id, b.app_code, b.term_id, $2, $3 FROM bill b
      WHERE b.term_id = $1 AND b.status <> 'withdrawn' AND ($5::bigint[] IS NULL OR b.bill_id = ANY($5))
     ON CONFLICT (bill_id) DO UPDATE SET status = 'pending', template_id = $2, template_version = $3, pdf = NULL, sha256 = NULL, bytes = NULL, error = NULL
      WHERE bill_document.status = 'failed' OR $4`,
    [termId, templateId, version, o.all, o.billIds ?? null],
  );
  return r.rowCount ?? 0;
}

/** Pending bill ids of the term in chunks of `size`: [first, last] of each. */
export async function pendingChunks(db: Queryable, termId: string, size: number): Promise<[string, string][]> {
  const r = await db.query<{ first: string; last: string }>(
    `SELECT min(bill_id) AS first, max(bill_id) AS last FROM (
       SELECT bill_id, (row_number() OVER (ORDER BY bill_id) - 1) / $2 AS chunk FROM bill_document WHERE term_id = $1 AND status = 'pending') p
     GROUP BY chunk ORDER BY chunk`,
    [termId, size],
  );
  return r.rows.map((x) => [x.first, x.last]);
}

export type PendingDocument = { bill_id: string; app_code: number; template_id: string; template_version: number };

export async function pendingIn(db: Queryable, termId: string, first: string, last: string): Promise<PendingDocument[]> {
  const r = await db.query<PendingDocument>(
    `SELECT bill_id, app_code, template_id, template_version FROM bill_document
      WHERE term_id = $1 AND bill_id BETWEEN $2 AND $3 AND status = 'pending' ORDER BY bill_id`,
    [termId, first, last],
  );
  return r.rows;
}

export type RenderResult = { billId: string; pdf?: Buffer; sha256?: string; error?: string };

/** A chunk's results in one statement: rendered documents with their checksum, failures with the reason. */
export async function saveResults(db: Queryable, results: RenderResult[]): Promise<void> {
  if (results.length === 0) return;
  await db.query(
    `UPDATE bill_document d SET
        status = CASE WHEN u.sha256 IS NULL THEN 'failed' ELSE 'rendered' END,
        pdf = u.pdf, sha256 = u.sha256, bytes = length(u.pdf), error = u.error,
        attempts = d.attempts + 1, rendered_at = CASE WHEN u.sha256 IS NULL THEN d.rendered_at ELSE now() END
       FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::text[]) AS u(bill_id, pdf, sha256, error)
      WHERE d.bill_id = u.bill_id AND d.status = 'pending'`,
    [results.map((r) => r.billId), results.map((r) => r.pdf ?? null), results.map((r) => r.sha256 ?? null), results.map((r) => r.error ?? null)],
  );
}

export type StoredDocument = { bill_id: string; term_id: string; status: string; pdf: Buffer | null; sha256: string | null; template_id: string; template_version: number };

export async function readDocument(db: Queryable, appCode: number, billId: number): Promise<StoredDocument | undefined> {
  const r = await db.query<StoredDocument>(
    'SELECT bill_id, term_id, status, pdf, sha256, template_id, template_version FROM bill_document WHERE app_code = $1 AND bill_id = $2',
    [appCode, billId],
  );
  return r.rows[0];
}

/** The states of a term whose bills have documents: its document plan is queued when it is processed. */
export const TERM_STATUSES_WITH_DOCUMENTS: readonly string[] = ['Processed', 'Posted'];

/**
 * Will the bill have a document: a bill of the app, not withdrawn, of a term whose bills have
 * documents? One with no bill_document row yet is waiting for its plan job, queued with the
 * term's finish (or the correction that made the bill), which makes the row within moments.
 */
export async function documentToCome(db: Queryable, appCode: number, billId: number): Promise<boolean> {
  const r = await db.query(
    `SELECT 1 FROM bill b JOIN term t ON t.term_id = b.term_id
      WHERE b.app_code = $1 AND b.bill_id = $2 AND b.status <> 'withdrawn' AND t.status = ANY($3::text[])`,
    [appCode, billId, TERM_STATUSES_WITH_DOCUMENTS],
  );
  return (r.rowCount ?? 0) > 0;
}

export type DocumentListRow = { bill_id: string; status: 'pending' | 'rendered' | 'failed'; sha256: string | null; bytes: number | null; template_id: string; template_version: number; attempts: number; error: string | null; rendered_at: string | null };

export async function listDocuments(db: Queryable, appCode: number, termId: number, status: string | undefined, after: number, limit: number): Promise<DocumentListRow[]> {
  const r = await db.query<DocumentListRow>(
    `SELECT d.bill_id, d.status, d.sha256, d.bytes, d.template_id, d.template_version, d.attempts, d.error,
            to_char(d.rendered_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS rendered_at
       FROM bill_document d JOIN app a ON a.app_code = d.app_code
      WHERE d.app_code = $1 AND d.term_id = $2 AND ($3::text IS NULL OR d.status = $3) AND d.bill_id > $4
      ORDER BY d.bill_id LIMIT $5`,
    [appCode, termId, status ?? null, after, limit],
  );
  return r.rows;
}
