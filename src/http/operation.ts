// A business operation of the seed's style: POST, JSON body in the common request
// envelope, answer in the common response envelope. Routes declare one of these and
// stay free of envelope, role and idempotency code.
import crypto from 'node:crypto';
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { roleAllows, type Caller, type Role } from '../auth/roles.ts';
import { AppError } from './errors.ts';
import { FailureSchema, failure, ok, successSchema, toAppError } from './envelope.ts';
import { requireCaller } from './authenticate.ts';

export type Services = { db: pg.Pool; config: Config };

export type OperationContext = Services & {
  caller: Caller;
  log: FastifyBaseLogger;
  reply: FastifyReply;
  request: FastifyRequest;
};

type Envelope = { method: 'Create' | 'Update' | 'Retrieve'; action: string; schedule?: boolean };

/** The request envelope of an operation: its fixed method/action/apiVersion (and operation) plus its own fields. */
export function requestSchema<P extends TProperties>(env: Envelope, props: P) {
  return Type.Object(
    {
      method: Type.Literal(env.method),
      action: Type.Literal(env.action),
      apiVersion: Type.Literal('v2'),
      ...(env.schedule ? { operation: Type.Literal('schedule') } : {}),
      ...props,
    },
    { additionalProperties: false },
  );
}

export type OperationSpec<B extends TObject, D extends TSchema> = {
  path: string;
  envelope: Envelope;
  role: Role;
  tag: string;
  summary: string;
  description?: string;
  body: B;
  data: D;
  /** Create and process operations: an Idempotency-Key header replays the first answer. */
  idempotent?: boolean;
  handler: (body: Static<B>, ctx: OperationContext) => Promise<Static<D>>;
};

export function operation<B extends TObject, D extends TSchema>(
  app: FastifyInstance,
  services: Services,
  spec: OperationSpec<B, D>,
): void {
  app.route({
    method: 'POST',
    url: spec.path,
    schema: {
      tags: [spec.tag],
      summary: spec.summary,
      description: spec.description,
      ...(spec.idempotent ? { headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }) } : {}),
      body: spec.body,
      response: { 200: successSchema(spec.data), '4xx': FailureSchema, '5xx': FailureSchema },
      security: [{ token: [] }],
    },
    // Checked before the schema so that a client on another API version hears about
    // the version, not about whichever field changed shape.
    preValidation: async (request) => {
      const body = request.body as Record<string, unknown> | null;
      if (body && typeof body === 'object' && !Array.isArray(body) && 'apiVersion' in body && body.apiVersion !== 'v2') {
        throw new AppError('UNSUPPORTED_API_VERSION', `apiVersion ${JSON.stringify(body.apiVersion)} is not supported; use "v2".`, [
          { path: 'apiVersion', message: 'must be "v2"' },
        ]);
      }
    },
    preHandler: async (request) => {
      const caller = requireCaller(request);
      if (!roleAllows(caller.role, spec.role)) {
        throw new AppError('FORBIDDEN', `The ${caller.role} role may not ${spec.summary.toLowerCase()}.`);
      }
    },
    handler: async (request, reply) => {
      const ctx: OperationContext = { ...services, caller: requireCaller(request), log: request.log, reply, request };
      const run = async () => ok(await spec.handler(request.body as Static<B>, ctx));
      const key = spec.idempotent ? request.headers['idempotency-key'] : undefined;
      if (typeof key === 'string' && key !== '') {
        return replayOrRun(services.db, ctx, spec.path, key, request.body, run);
      }
      return run();
    },
  });
}

const IN_FLIGHT_WAIT_MS = 15_000;
const STALE_AFTER_SECONDS = 120;

/**
 * Runs a create or process request once per Idempotency-Key. The key row is claimed
 * before the work starts, so a concurrent retry finds it and waits for the first
 * answer instead of doing the work a second time.
 */
async function replayOrRun(
  db: pg.Pool,
  ctx: OperationContext,
  route: string,
  key: string,
  body: unknown,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const appCode = ctx.caller.appCode;
  const requestHash = crypto.createHash('sha256').update(route).update('\0').update(JSON.stringify(body)).digest('hex');
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const claimed = await db.query(
      `INSERT INTO idempotency_key (app_code, key, route, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_code, key) DO NOTHING RETURNING key`,
      [appCode, key, route, requestHash],
    );
    if (claimed.rowCount === 1) break;
    const existing = await db.query<{ route: string; request_hash: string; status_code: number | null; response_body: string | null; stale: boolean }>(
      `SELECT route, request_hash, status_code, response_body, created_at < now() - make_interval(secs => $3) AS stale
         FROM idempotency_key WHERE app_code = $1 AND key = $2`,
      [appCode, key, STALE_AFTER_SECONDS],
    );
    const row = existing.rows[0];
    if (!row) continue; // released meanwhile: claim again
    if (row.route !== route || row.request_hash !== requestHash) {
      throw new AppError('CONFLICT', 'This Idempotency-Key was already used for a different request.', [
        { path: 'Idempotency-Key', message: 'already used with another body or operation' },
      ]);
    }
    if (row.status_code !== null && row.response_body !== null) {
      ctx.reply.header('Idempotent-Replayed', 'true');
      ctx.reply.code(row.status_code);
      return JSON.parse(row.response_body);
    }
    if (row.stale) {
      // The first attempt died without an answer: let this one take over.
      await db.query('DELETE FROM idempotency_key WHERE app_code = $1 AND key = $2 AND status_code IS NULL', [appCode, key]);
      continue;
    }
    if (Date.now() > deadline) {
      throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress; retry later.', [
        { path: 'Idempotency-Key', message: 'in progress' },
      ]);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  let status = 200;
  let answer: unknown;
  try {
    answer = await run();
  } catch (err) {
    const appErr = toAppError(err);
    if (appErr.statusCode >= 500) {
      // Nothing was decided: free the key so that a retry can do the work.
      await db.query('DELETE FROM idempotency_key WHERE app_code = $1 AND key = $2', [appCode, key]).catch(() => {});
      throw err;
    }
    status = appErr.statusCode;
    answer = failure(appErr);
    await store(db, appCode, key, status, answer, ctx.reply.getHeaders());
    throw err;
  }
  await store(db, appCode, key, status, answer, ctx.reply.getHeaders());
  return answer;
}

async function store(db: pg.Pool, appCode: number, key: string, status: number, answer: unknown, headers: Record<string, unknown>) {
  const kept = Object.fromEntries(Object.entries(headers).filter(([h]) => h.startsWith('x-billrun-') || h === 'location'));
  await db.query(
    `UPDATE idempotency_key SET status_code = $3, response_body = $4, response_headers = $5 WHERE app_code = $1 AND key = $2`,
    [appCode, key, status, JSON.stringify(answer), JSON.stringify(kept)],
  );
}
