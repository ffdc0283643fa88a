// Bulk import over HTTP. JSON rows come in the usual envelope (make-import); a CSV is
// streamed as the raw body of upload-import, so a file of a million rows is never held
// in memory. Both wait for the import to finish and call the same runImport as the
// command line; its progress can be read meanwhile with get-imports (status running).
import { Transform, type Readable } from 'node:stream';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { AppError, notFound } from '../http/errors.ts';
import { FailureSchema, ok, successSchema } from '../http/envelope.ts';
import { requireCaller } from '../http/authenticate.ts';
import { roleAllows } from '../auth/roles.ts';
import { PagingInput } from '../accounts/schemas.ts';
import { NO_NUL } from '../accounts/rules.ts';
import { ImportKind, ImportRecord } from './schemas.ts';
import { csvRows, jsonRows } from './rows.ts';
import { runImport } from './runImport.ts';
import { IMPORT_STATUSES, listJobs, type ImportKind as Kind, type JobRow } from './store.ts';

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
  // In a scope of their own: the body limit and the CSV parser apply to these routes only.
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      if (route.url === MAKE_PATH) route.bodyLimit = Math.max(services.config.bodyLimitBytes, JSON_IMPORT_BODY_LIMIT);
    });
    // The CSV body is handed over unread, as a stream.
    scope.addContentTypeParser(['text/csv', 'application/csv'], (_request, payload, done) => done(null, payload));

    operation(scope, services, {
      path: MAKE_PATH,
      envelope: { method: 'Create', action: 'Create Import' },
      role: 'biller',
      tag: TAG,
      summary: 'Import rows from JSON',
      description: `Imports up to ${MAX_JSON_ROWS} rows of one kind, all or nothing; a bad row is reported by its path (data.rows[i].field) and nothing is written. dryRun checks without writing. The importID is in X-Billrun-Import-Id, also on failure. Larger files: upload-import with a CSV.`,
      idempotent: true,
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

    scope.route({
      method: 'POST',
      url: UPLOAD_PATH,
      schema: {
        tags: [TAG],
        summary: 'Import a CSV file',
        description:
          'The body is the CSV itself (Content-Type: text/csv), streamed. Query: kind (accounts, subscriptions, readings), apiVersion=v2, dryRun=true to check without writing, fileName. All or nothing; bad rows are reported as rows[<row>].<column> (the header is row 1). Answers in the common envelope; the importID is in X-Billrun-Import-Id, also on failure.',
        querystring: Type.Object(
          {
            kind: ImportKind,
            apiVersion: Type.Optional(Type.Literal('v2')),
            dryRun: Type.Optional(Type.Enum(['true', 'false'])),
            fileName: Type.Optional(Type.String({ maxLength: 255, pattern: NO_NUL })),
          },
          { additionalProperties: false },
        ),
        response: { 200: successSchema(Type.Object({})), '4xx': FailureSchema, '5xx': FailureSchema },
        security: [{ token: [] }],
      },
      preValidation: async (request) => {
        const v = (request.query as Record<string, unknown> | undefined)?.apiVersion;
        if (v !== undefined && v !== 'v2') {
          throw new AppError('UNSUPPORTED_API_VERSION', `apiVersion ${JSON.stringify(v)} is not supported; use "v2".`, [{ path: 'apiVersion', message: 'must be "v2"' }]);
        }
      },
      preHandler: async (request) => {
        const caller = requireCaller(request);
        if (!roleAllows(caller.role, 'biller')) throw new AppError('FORBIDDEN', `The ${caller.role} role may not import.`);
      },
      handler: async (request, reply) => {
        const caller = requireCaller(request);
        const body = request.body as Readable | undefined;
        if (!body || typeof (body as Readable).pipe !== 'function') {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the CSV as the body with Content-Type: text/csv (JSON rows go to make-import).', [
            { path: 'Content-Type', message: 'must be text/csv' },
          ]);
        }
        const q = request.query as { kind: Kind; dryRun?: string; fileName?: string };
        const counter = byteCounter();
        body.on('error', (err) => counter.destroy(err));
        body.pipe(counter);
        const length = Number(request.headers['content-length']);
        const out = await runImport(services.db, caller, {
          kind: q.kind,
          format: 'csv',
          rows: csvRows(counter, q.kind),
          fileName: q.fileName ?? null,
          dryRun: q.dryRun === 'true',
          bytesTotal: Number.isFinite(length) && length > 0 ? length : null,
          bytesRead: () => counter.bytes,
          onStart: (id) => reply.header('x-billrun-import-id', id),
        });
        reply.header('x-billrun-import-id', out.importId);
        return ok({});
      },
    });

    operation(scope, services, {
      path: '/billing/imports/get-imports',
      envelope: { method: 'Retrieve', action: 'Retrieve Imports' },
      role: 'viewer',
      tag: TAG,
      summary: 'List imports and their progress',
      description: 'Newest first; filtered by importID (NOT_FOUND when there is none), status or kind. A running import shows how far it has got.',
      body: requestSchema({ method: 'Retrieve', action: 'Retrieve Imports' }, {
        data: Type.Optional(
          Type.Object(
            {
              importID: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991 })),
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
  });
}
