// One way to declare an operation. A business operation is POST with a JSON body in the
// common request envelope, answered in the common response envelope; its variants are
// options, not copies: no authentication (login), a body streamed as it arrives (the CSV
// upload) and the sandbox's REST shape ({ code, message } errors, Bearer tokens). Routes
// state their envelope once (requestSchema) and stay free of authentication, role,
// version, envelope and idempotency code.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { roleAllows, type Caller, type Role } from '../auth/roles.ts';
import type { SessionCache } from '../auth/sessionCache.ts';
import { AppError } from '../errors.ts';
import { emptyBody, failure, statusOf, toAppError } from './errors.ts';
import { FailureSchema, ok, successSchema } from './envelope.ts';
import { authenticate, requireCaller } from './authenticate.ts';
import { FAILURE_HEADERS_KEY, HEADERS_KEY, IDEMPOTENT_KEY, STREAM_KEY, claimOperationId, operationIdOf } from './openapi.ts';

/** sessions: the callers of tokens, checked without a database round trip while it can be trusted. */
export type Services = { db: pg.Pool; config: Config; sessions: SessionCache };

export type OperationContext<Q = unknown, P = unknown> = Services & {
  /** The authenticated caller (an operation with auth: 'none' has none). */
  readonly caller: Caller;
  log: FastifyBaseLogger;
  reply: FastifyReply;
  request: FastifyRequest;
  query: Q;
  params: P;
  /** A streamed operation's body, unread. */
  stream: Readable | undefined;
};

/**
 * schedule: the body carries `operation: "schedule"` (interface.md's term routes); 'optional':
 * accepted, not required (a route under /billing/terms/ added after clients were written
 * without it, where the rule for term routes says to send it).
 */
type Envelope = { method: 'Create' | 'Update' | 'Retrieve'; action: string; schedule?: boolean | 'optional' };

/** The request envelope of an operation: its fixed method/action/apiVersion (and operation) plus its own fields. */
export function requestSchema<P extends TProperties>(env: Envelope, props: P) {
  return Type.Object(
    {
      method: Type.Literal(env.method),
      action: Type.Literal(env.action),
      apiVersion: Type.Literal('v2'),
      ...(env.schedule === 'optional' ? { operation: Type.Optional(Type.Literal('schedule')) } : env.schedule ? { operation: Type.Literal('schedule') } : {}),
      ...props,
    },
    { additionalProperties: false },
  );
}

export type RawAnswer = { type: string; payload: Buffer | string | NodeJS.ReadableStream };
/** The data schema of a raw operation (documented as binary by its raw.types). */
export const RawFile = Type.Unsafe<RawAnswer>({});

export type OperationSpec<B extends TObject, D extends TSchema, Q extends TObject = TObject, P extends TObject = TObject> = {
  path: string;
  /** POST unless the sandbox says otherwise. */
  method?: 'GET' | 'POST' | 'DELETE';
  /** The least role that may call it. */
  role: Role;
  /** 'none': anyone may call it (login). Otherwise the token in Authorization, with "Bearer " on the sandbox. */
  auth?: 'token' | 'none';
  /** 'sandbox': plain REST, the answer as is with `status`, errors as { code, message }. */
  shape?: 'envelope' | 'sandbox';
  tag: string;
  summary: string;
  /** The OpenAPI operationId when the one made from the path (make-account → makeAccount) is taken by another route. */
  operationId?: string;
  /** Response headers this operation sets on success, by name (`X-Billrun-Account-Id`), each with what it holds. */
  headers?: Record<string, string>;
  /** Of those, the ones it also sets when it refuses the request (declared on 4XX too). */
  failureHeaders?: Record<string, string>;
  description?: string;
  /** The JSON body (for a business operation, its requestSchema); none: a body, if any, is ignored. */
  body?: B;
  query?: Q;
  params?: P;
  /** The body is handed to the handler unread (ctx.stream) when it comes as one of these types. */
  stream?: readonly string[];
  /** Largest body of this operation, when it differs from BODY_LIMIT_BYTES. */
  bodyLimit?: number;
  /** The answer: `data` of the envelope, or the sandbox's whole answer. */
  data: D;
  /** The sandbox's success status (201 made, 204 no content). */
  status?: 200 | 201 | 204;
  /** Create and process operations: an Idempotency-Key header replays the first answer. */
  idempotent?: boolean;
  /** A file, not an envelope: the handler answers { type, payload } (a PDF, a stream), sent as is on success. */
  raw?: { types: string[] };
  handler: (body: Static<B>, ctx: OperationContext<Static<Q>, Static<P>>) => Promise<Static<D>>;
};

const SandboxError = Type.Object({ code: Type.String(), message: Type.String() }, { title: 'SandboxError', description: 'Every failure of a sandbox route.' });

export function operation<B extends TObject, D extends TSchema, Q extends TObject = TObject, P extends TObject = TObject>(
  app: FastifyInstance,
  services: Services,
  spec: OperationSpec<B, D, Q, P>,
): void {
  const sandbox = spec.shape === 'sandbox';
  const auth = spec.auth ?? 'token';
  const status = spec.status ?? 200;
  const errors = sandbox ? SandboxError : FailureSchema;
  const answer = sandbox ? (status === 204 ? Type.Null() : spec.data) : successSchema(spec.data);
  const streamTypes = spec.stream;
  const method = spec.method ?? 'POST';
  const fullPath = `${app.prefix ?? ''}${spec.path}`;
  const operationId = spec.operationId ?? operationIdOf(method, fullPath, sandbox);
  claimOperationId(app, operationId, `${method} ${fullPath}`);

  const route: RouteOptions = {
    method,
    url: spec.path,
    ...(spec.bodyLimit !== undefined ? { bodyLimit: spec.bodyLimit } : {}),
    schema: {
      operationId,
      tags: [spec.tag],
      summary: spec.summary,
      description: spec.description,
      ...(spec.idempotent ? { headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }) } : {}),
      ...(spec.body ? { body: spec.body } : {}),
      ...(spec.query ? { querystring: spec.query } : {}),
      ...(spec.params ? { params: spec.params } : {}),
      response: {
        [status]: spec.raw
          ? { description: 'the file', content: Object.fromEntries(spec.raw.types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) }
          : answer,
        '4xx': errors,
        '5xx': errors,
      },
      // An operation anyone may call says so (security: []), so a client sends no token to it.
      security: auth === 'none' ? [] : [sandbox ? { bearer: [] } : { token: [] }],
      ...(spec.headers ? { [HEADERS_KEY]: spec.headers } : {}),
      ...(spec.failureHeaders ? { [FAILURE_HEADERS_KEY]: spec.failureHeaders } : {}),
      ...(spec.idempotent ? { [IDEMPOTENT_KEY]: true } : {}),
      ...(streamTypes ? { [STREAM_KEY]: [...streamTypes] } : {}),
    },
    // Who is calling, before anything of the request is read.
    ...(auth === 'none' ? {} : { onRequest: async (request: FastifyRequest) => void (await authenticate(services.sessions, request, sandbox)) }),
    // Checked before the schema so that a client on another API version hears about
    // the version, not about whichever field changed shape.
    preValidation: async (request) => {
      if (spec.body && request.body === undefined) throw emptyBody();
      const body = request.body as Record<string, unknown> | null | undefined;
      const query = request.query as Record<string, unknown> | undefined;
      const version = body && typeof body === 'object' && !Array.isArray(body) && 'apiVersion' in body ? body.apiVersion : query?.apiVersion;
      if (version !== undefined && version !== 'v2' && !sandbox) {
        throw new AppError('UNSUPPORTED_API_VERSION', `apiVersion ${JSON.stringify(version)} is not supported; use "v2".`, [
          { path: 'apiVersion', message: 'must be "v2"' },
        ]);
      }
    },
    preHandler: async (request, reply) => {
      // The log lines of a request about a term carry its id beside the request's (docs/operations.md, "Logs").
      const termId = termIdOf(request.body);
      if (termId !== undefined) request.log = reply.log = request.log.child({ termId });
      if (auth === 'none') return;
      const caller = requireCaller(request);
      if (!roleAllows(caller.role, spec.role)) {
        throw new AppError('FORBIDDEN', `The ${caller.role} role may not ${spec.summary.toLowerCase()}.`);
      }
    },
    handler: async (request, reply) => {
      let stream: Readable | undefined;
      if (streamTypes) {
        stream = request.body as Readable | undefined;
        if (!stream || typeof stream.pipe !== 'function') {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${streamTypes[0]}.`, [{ path: 'Content-Type', message: `must be ${streamTypes.join(' or ')}` }]);
        }
      }
      const ctx: OperationContext<Static<Q>, Static<P>> = {
        ...services,
        get caller() {
          return requireCaller(request);
        },
        log: request.log,
        reply,
        request,
        query: request.query as Static<Q>,
        params: request.params as Static<P>,
        stream,
      };
      const body = (streamTypes ? undefined : request.body) as Static<B>;
      if (spec.raw) {
        const file = (await spec.handler(body, ctx)) as RawAnswer;
        reply.type(file.type);
        return file.payload;
      }
      if (sandbox) {
        const out = await spec.handler(body, ctx);
        reply.code(status);
        return status === 204 ? reply.send() : out;
      }
      const run = async () => ok(await spec.handler(body, ctx));
      const key = spec.idempotent ? request.headers['idempotency-key'] : undefined;
      if (typeof key === 'string' && key !== '') {
        return replayOrRun(services.db, ctx, spec.path, key, request.body, run);
      }
      return run();
    },
  };
  if (!streamTypes) {
    app.route(route);
    return;
  }
  // The streamed types are read by this route only: everywhere else they stay 415.
  void app.register(async (scope) => {
    scope.addContentTypeParser([...streamTypes], (_request, payload, done) => done(null, payload));
    // A JSON body here is the wrong type, not bad JSON: a CSV sent as application/json was
    // "not valid JSON" (400) to a fuzzer, where every other wrong type is 415.
    if (!streamTypes.includes('application/json')) {
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', (_request, _payload, done) =>
        done(new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${streamTypes[0]}.`, [{ path: 'Content-Type', message: `must be ${streamTypes.join(' or ')}` }]), undefined),
      );
    }
    scope.route(route);
  });
}

/** The termID a business body names (data.termID), if any. */
function termIdOf(body: unknown): number | undefined {
  const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  const id = data && typeof data === 'object' ? (data as { termID?: unknown }).termID : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}

const hashOf = (route: string, json: string) => crypto.createHash('sha256').update(route).update('\0').update(json).digest('hex');

/** JSON text of a parsed body with every object's members sorted by name: one text for one request, however it was written. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
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
  ctx: OperationContext<unknown, unknown>,
  route: string,
  key: string,
  body: unknown,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const appCode = ctx.caller.appCode;
  // Of the body's JSON with every object's members in name order: a retry written by another
  // JSON library (members in another order, the same request by RFC 8259) was refused as a
  // different request (an outside review). A key first used before that (hashed as sent) still replays.
  const requestHash = hashOf(route, canonicalJson(body));
  const sentHash = hashOf(route, JSON.stringify(body));
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const claimed = await db.query(
      `INSERT INTO idempotency_key (app_code, key, route, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_code, key) DO NOTHING RETURNING key`,
      [appCode, key, route, requestHash],
    );
    if (claimed.rowCount === 1) break;
    const existing = await db.query<{
      route: string;
      request_hash: string;
      status_code: number | null;
      response_body: string | null;
      response_headers: Record<string, string> | null;
      stale: boolean;
    }>(
      `SELECT route, request_hash, status_code, response_body, response_headers, created_at < now() - make_interval(secs => $3) AS stale
         FROM idempotency_key WHERE app_code = $1 AND key = $2`,
      [appCode, key, STALE_AFTER_SECONDS],
    );
    const row = existing.rows[0];
    if (!row) continue; // released meanwhile: claim again
    if (row.route !== route || (row.request_hash !== requestHash && row.request_hash !== sentHash)) {
      throw new AppError('CONFLICT', 'This Idempotency-Key was already used for a different request.', [
        { path: 'Idempotency-Key', message: 'already used with another body or operation' },
      ]);
    }
    if (row.status_code !== null && row.response_body !== null) {
      // The new record's id travels in a header: a client that lost the first answer
      // learns it only from the replay.
      if (row.response_headers) ctx.reply.headers(row.response_headers);
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
    if (statusOf(appErr) >= 500) {
      // Nothing was decided: free the key so that a retry can do the work.
      await db.query('DELETE FROM idempotency_key WHERE app_code = $1 AND key = $2', [appCode, key]).catch(() => {});
      throw err;
    }
    status = statusOf(appErr);
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
