// SQL for import_job: the bookkeeping of an import, written outside the import's own
// transaction so that its progress shows while it runs and its errors stay after a
// rollback.
import type { Queryable } from '../db/pool.ts';
import { localTimeSql } from '../calendar/calendar.ts';

export type ImportKind = 'accounts' | 'subscriptions' | 'readings';
export const IMPORT_KINDS = ['accounts', 'subscriptions', 'readings'] as const;
export const IMPORT_STATUSES = ['running', 'succeeded', 'failed', 'validated'] as const;
export type RowError = { row: number; column: string; path: string; message: string };

export type Progress = {
  rowsRead: number;
  bytesRead: number;
  accounts: number;
  subscriptions: number;
  readings: number;
  errorCount: number;
};

export async function insertJob(
  db: Queryable,
  appCode: number,
  j: { kind: ImportKind; format: 'csv' | 'json'; fileName: string | null; dryRun: boolean; bytesTotal: number | null },
  by: string,
): Promise<string> {
  const r = await db.query<{ import_id: string }>(
    `INSERT INTO import_job (app_code, kind, format, file_name, dry_run, bytes_total, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING import_id`,
    [appCode, j.kind, j.format, j.fileName, j.dryRun, j.bytesTotal, by],
  );
  return r.rows[0]!.import_id;
}

export async function updateProgress(db: Queryable, id: string, p: Progress): Promise<void> {
  await db.query(
    `UPDATE import_job SET rows_read = $2, bytes_read = $3, accounts_written = $4, subscriptions_written = $5, readings_written = $6,
            error_count = $7, updated_at = now() WHERE import_id = $1`,
    [id, p.rowsRead, p.bytesRead, p.accounts, p.subscriptions, p.readings, p.errorCount],
  );
}

export async function finishJob(db: Queryable, id: string, status: string, p: Progress, errors: RowError[], message: string): Promise<void> {
  await db.query(
    `UPDATE import_job SET status = $2, rows_read = $3, bytes_read = $4, accounts_written = $5, subscriptions_written = $6,
            readings_written = $7, error_count = $8, errors = $9, message = $10, updated_at = now(), finished_at = now()
      WHERE import_id = $1`,
    // A NUL from a file cannot be kept in jsonb: each is written as the six characters \u0000,
    // in the strings themselves (rewriting the JSON text also hit a file's own "\u0000" text).
    [id, status, p.rowsRead, p.bytesRead, p.accounts, p.subscriptions, p.readings, p.errorCount, JSON.stringify(errors, (_k, v: unknown) => (typeof v === 'string' ? v.replaceAll('\u0000', '\\u0000') : v)), message],
  );
}

export type JobRow = {
  import_id: string;
  app_code: number;
  kind: (typeof IMPORT_KINDS)[number];
  format: string;
  file_name: string | null;
  dry_run: boolean;
  status: string;
  rows_read: number;
  bytes_read: string;
  bytes_total: string | null;
  accounts_written: number;
  subscriptions_written: number;
  readings_written: number;
  error_count: number;
  errors: RowError[];
  message: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
  created_by: string;
};

export async function listJobs(
  db: Queryable,
  appCode: number,
  f: { importID?: number; status?: string; kind?: string },
  limit: number,
  offset: number,
): Promise<JobRow[]> {
  const r = await db.query<JobRow>(
    `SELECT j.import_id, j.app_code, j.kind, j.format, j.file_name, j.dry_run, j.status, j.rows_read, j.bytes_read, j.bytes_total,
            j.accounts_written, j.subscriptions_written, j.readings_written, j.error_count, j.errors, j.message,
            ${localTimeSql('j.started_at')} AS started_at,
            ${localTimeSql('j.updated_at')} AS updated_at,
            ${localTimeSql('j.finished_at')} AS finished_at, j.created_by
       FROM import_job j JOIN app a ON a.app_code = j.app_code
      WHERE j.app_code = $1 AND ($2::bigint IS NULL OR j.import_id = $2) AND ($3::text IS NULL OR j.status = $3) AND ($4::text IS NULL OR j.kind = $4)
      ORDER BY j.import_id DESC LIMIT $5 OFFSET $6`,
    [appCode, f.importID ?? null, f.status ?? null, f.kind ?? null, limit, offset],
  );
  return r.rows;
}
