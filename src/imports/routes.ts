// Bulk import over HTTP. JSON rows come in the usual envelope (make-import); a CSV is
// streamed as the raw body of upload-import, so a file of a million rows is never held
// in memory. Both wait for the import to finish and call the same runImport as the
// command line; its progress can be read meanwhile with get-imports (status running).
import { Transform } from 'node:stream';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { Id, NO_NUL, PagingInput } from '../primitives.ts';
import { ImportKind, ImportRecord } from './schemas.ts';
import { csvRows, jsonRows } from './rows.ts';
import { runImport } from './runImport.ts';
import { IMPORT_STATUSES, listJobs, type JobRow } from './store.ts';

const TAG = 'imports';
const MAKE_PATH = '/billing/imports/make-import';
const UPLOAD_PATH = '/billing/imports/upload-import';
/** JSON imports are parsed whole; past this size, upload a CSV instead. */
export const JSON_IMPORT_BODY_LIMIT = 64 * 1024 * 1024;
const MAX_JSON_ROWS = 200_000;

const record = (j: JobRow): ImportRecord => {
  const total = j.bytes_total === null ? null : Number(j.bytes_total);
  return {
    importID: Number(j.import_id),
    appCode: j.app_code,
    kind: j.kind,
    format: j.format,
    fileName: j.file_name,
    dryRun: j.dry_run,
    status: j.status as ImportRecord['status'],
    rowsRead: j.rows_read,
    bytesRead: Number(j.bytes_read),
    bytesTotal: total,
    percent: total ? Math.min(100, Math.floor((Number(j.bytes_read) * 100) / total)) : null,
    accountsWritten: j.accounts_written,
    subscriptionsWritten: j.subscriptions_written,
    readingsWritten: j.readings_written,
    errorCount: j.error_count,
    errors: j.errors,
    message: j.message,
    startedAt: j.started_at,
    updatedAt: j.updated_at,
    finishedAt: j.finished_at,
    createdBy: j.created_by,
  };
};

/** Counts the bytes that pass, for the progress of a streamed upload. */
export function byteCounter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      t.bytes += chunk.length;
      cb(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

export async function importRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: MAKE_PATH,
    headers: { 'X-Billrun-Import-Id': 'the importID (also on a refusal of the rows)' },
    failureHeaders: { 'X-Billrun-Import-Id': 'the importID of the refused import (get-imports shows its row errors)' },
    role: 'biller',
    tag: TAG,
    summary: 'Import rows from JSON',
    description: `Imports up to ${MAX_JSON_ROWS} rows of one kind, all or nothing; a bad row is reported by its path (data.rows[i].field) and nothing is written. dryRun checks without writing. The importID is in X-Billrun-Import-Id, also on failure. Larger files: upload-import with a CSV.`,
    idempotent: true,
    bodyLimit: Math.max(services.config.bodyLimitBytes, JSON_IMPORT_BODY_LIMIT),
    body: requestSchema({ method: 'Create', action: 'Create Import' }, {
      data: Type.Object(
        {
          kind: ImportKind,
          rows: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1, maxItems: MAX_JSON_ROWS }),
          dryRun: Type.Optional(Type.Boolean()),
          fileName: Type.Optional(Type.String({ maxLength: 255, pattern: NO_NUL })),
        },
        { additionalProperties: false },
      ),
    }),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      const d = body.data;
      const out = await runImport(ctx.db, ctx.caller, {
        kind: d.kind,
        format: 'json',
        rows: jsonRows(d.rows, d.kind),
        fileName: d.fileName ?? null,
        dryRun: d.dryRun ?? false,
        onStart: (id) => ctx.reply.header('x-billrun-import-id', id),
      });
      ctx.reply.header('x-billrun-import-id', out.importId);
      return {};
    },
  });

  operation(app, services, {
    path: UPLOAD_PATH,
    headers: { 'X-Billrun-Import-Id': 'the importID (also on a refusal of the rows)' },
    failureHeaders: { 'X-Billrun-Import-Id': 'the importID of the refused import (get-imports shows its row errors)' },
    role: 'biller',
    tag: TAG,
    summary: 'Import a CSV file',
    description:
      'The body is the CSV itself (Content-Type: text/csv), streamed. Query: kind (accounts, subscriptions, readings), apiVersion=v2, dryRun=true to check without writing, fileName. All or nothing; bad rows are reported as rows[<row>].<column> (the header is row 1). Answers in the common envelope; the importID is in X-Billrun-Import-Id, also on failure.',
    stream: ['text/csv', 'application/csv'],
    query: Type.Object(
      {
        kind: ImportKind,
        apiVersion: Type.Optional(Type.Literal('v2')),
        dryRun: Type.Optional(Type.Enum(['true', 'false'])),
        fileName: Type.Optional(Type.String({ maxLength: 255, pattern: NO_NUL })),
      },
      { additionalProperties: false },
    ),
    data: Type.Object({}),
    handler: async (_body, ctx) => {
      const body = ctx.stream!;
      const q = ctx.query;
      const counter = byteCounter();
      body.on('error', (err) => counter.destroy(err));
      body.pipe(counter);
      const length = Number(ctx.request.headers['content-length']);
      const out = await runImport(ctx.db, ctx.caller, {
        kind: q.kind,
        format: 'csv',
        rows: csvRows(counter, q.kind),
        fileName: q.fileName ?? null,
        dryRun: q.dryRun === 'true',
        bytesTotal: Number.isFinite(length) && length > 0 ? length : null,
        bytesRead: () => counter.bytes,
        onStart: (id) => ctx.reply.header('x-billrun-import-id', id),
      });
      ctx.reply.header('x-billrun-import-id', out.importId);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/imports/get-imports',
    role: 'viewer',
    tag: TAG,
    summary: 'List imports and their progress',
    description: 'Newest first; filtered by importID (NOT_FOUND when there is none), status or kind. A running import shows how far it has got.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Imports' }, {
      data: Type.Optional(
        Type.Object(
          {
            importID: Type.Optional(Id),
            status: Type.Optional(Type.Enum(IMPORT_STATUSES)),
            kind: Type.Optional(ImportKind),
            ...PagingInput,
          },
          { additionalProperties: false },
        ),
      ),
    }),
    data: Type.Object({ imports: Type.Array(ImportRecord) }),
    handler: async (body, ctx) => {
      const { limit = 100, offset = 0, ...f } = body.data ?? {};
      const rows = await listJobs(ctx.db, ctx.caller.appCode, f, limit, offset);
      if (f.importID !== undefined && rows.length === 0) throw notFound('import', 'data.importID');
      return { imports: rows.map(record) };
    },
  });
}
