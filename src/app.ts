// Builds the HTTP server: infrastructure first (logging, errors, OpenAPI), then the
// feature routes. It listens nowhere: main.ts and the tests decide that.
import crypto from 'node:crypto';
import http from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type pg from 'pg';
import type { Config } from './config.ts';
import type { Socket } from 'node:net';
import { AppError } from './errors.ts';
import { errorBody, headersOf, statusOf, toAppError } from './http/errors.ts';
import { jsonBodies } from './http/body.ts';
import type { Services } from './http/operation.ts';
import { authRoutes, sessionRoutes } from './login/routes.ts';
import { templateRoutes } from './templates/routes.ts';
import { batchRoutes } from './batches/routes.ts';
import { accountRoutes } from './accounts/routes.ts';
import { subscriptionRoutes } from './subscriptions/routes.ts';
import { readingRoutes } from './readings/routes.ts';
import { importRoutes } from './imports/routes.ts';
import { paymentRoutes } from './payments/routes.ts';
import { ledgerRoutes } from './ledger/routes.ts';
import { termRoutes } from './terms/routes.ts';
import { billRoutes } from './bills/routes.ts';
import { verificationRoutes } from './verification/routes.ts';
import { sandboxRoutes } from './sandbox/routes.ts';
import { consoleRoutes } from './http/console.ts';
import { documentRoutes } from './documents/routes.ts';
import { deliveryRoutes } from './delivery/routes.ts';
import { journalRoutes } from './journal/routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { lateChargeRoutes } from './lateCharges/routes.ts';
import { scheduleRoutes } from './schedules/routes.ts';
import { correctionRoutes } from './corrections/routes.ts';
import { simulationRoutes } from './simulation/routes.ts';
import { depositRoutes } from './deposits/routes.ts';
import { finishDocument } from './http/openapi.ts';
import { referenceOptions } from './http/reference.ts';
import { metricsHooks, metricsRoutes } from './metrics/routes.ts';
import { SessionCache } from './auth/sessionCache.ts';

export type AppOptions = {
  config: Config;
  db: pg.Pool;
  logger?: boolean | object;
  /** Where the production logger writes instead of stdout (tests read it to prove no secret is logged). */
  logStream?: { write(line: string): void };
};

const REDACT = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];
// A client that puts its token in the query string (?access_token=...) would have it
// written into every request log line: such values are masked in the logged url.
const SECRET_QUERY = /([?&][^=&#]*(?:token|pass|secret|key|auth|session|sig)[^=&#]*=)[^&#]*/gi;
const requestLog = (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
  method: req.method,
  url: req.url.replace(SECRET_QUERY, '$1[redacted]'),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? {
      level: opts.config.logLevel,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { req: requestLog },
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    },
    bodyLimit: opts.config.bodyLimitBytes,
    // Fastify turns Node's limit off (0); a client sending a byte every 20 s then held a
    // connection for as long as it liked, 3,000 of them in an attack (docs/hardening.md).
    requestTimeout: opts.config.requestTimeoutSeconds * 1000,
    // The client's address (the login throttle's key, the logs) from X-Forwarded-For only
    // when the socket's peer is a proxy named in BILLRUN_TRUST_PROXY.
    ...(opts.config.trustProxy.length > 0 ? { trustProxy: opts.config.trustProxy } : {}),
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    ajv: {
      // Unknown fields are refused, not silently dropped, and nothing is coerced: a
      // client that sends "12" for a number hears about it.
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true, discriminator: true },
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Errors Fastify makes before routing (a path that is not valid percent-encoding) answer
    // like any other; Node's HTTP parser's refusals (a control byte in a header, a broken
    // Content-Length) come to clientErrorHandler with no request at all.
    frameworkErrors: (err, request, reply) => {
      const appErr = toAppError(err);
      request.log.info({ code: appErr.code }, 'request refused before routing');
      // Answered before the onRequest hooks: the request id and the common headers here too.
      void (reply as FastifyReply)
        .code(statusOf(appErr))
        .headers({ ...headersOf(appErr), 'x-request-id': request.id, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' })
        .send(errorBody(appErr, request.raw.url));
    },
    clientErrorHandler: (err, socket) => answerClientError(err, socket),
    // Node answers an HTTP/1.1 request without Host itself, a bare 400 with no body (an
    // outside check): refused in the onRequest hook below instead, in the envelope.
    http: { requireHostHeader: false },
  });
  // Tokens checked once, then held until a change of the session is announced (auth/sessionCache.ts).
  const sessions = new SessionCache(opts.db);
  await sessions.start();
  app.addHook('onClose', async () => sessions.stop());
  const services: Services = { db: opts.db, config: opts.config, sessions };

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Every answer: its type is the one it says, no other site frames it (the console, the
    // API reference), and no address leaks to a link's target (docs/hardening.md).
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new AppError('MALFORMED_REQUEST', 'An HTTP/1.1 request must carry a Host header.', [{ path: 'Host', message: 'is missing' }]);
    }
  });
  // An answer sent before the request's body was read to its end (an upload refused half-way:
  // a CSV record past its limit) closes the connection. Left open, the rest of the body sat
  // unread, the client's next request on that connection waited 73 s for nothing, and a stop
  // waited for it (an outside check). Node drains a body nobody began to read by itself.
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete === false) reply.header('connection', 'close');
  });
  metricsHooks(app);

  jsonBodies(app);
  // Every failure answers in the product's envelope (the sandbox in its own { code, message }).
  app.setErrorHandler(async (err, request, reply) => {
    const appErr = toAppError(err);
    const status = statusOf(appErr);
    if (status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: appErr.code }, 'request refused');
    reply.code(status).headers(headersOf(appErr));
    return errorBody(appErr, request.url);
  });
  app.setNotFoundHandler(async (request) => {
    throw new AppError('ROUTE_NOT_FOUND', `No operation at ${request.method} ${request.url.split('?')[0]}.`);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'billrun',
        version: '0.1.0',
        description:
          'Billing service: pricing templates, accounts, bill runs over terms, bills. Business operations are POST with a JSON envelope; see the README for the rules.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the document describes the server that serves it, wherever it runs.
      servers: [{ url: '/', description: 'this billrun server' }],
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The access token from /auth/login, as is (a "Bearer " prefix is tolerated).' },
          bearer: { type: 'http', scheme: 'bearer', description: 'Sandbox: Authorization: Bearer <token>.' },
        },
      },
    },
    transformObject: (documents) => finishDocument('openapiObject' in documents ? (documents.openapiObject as Record<string, unknown>) : (documents.swaggerObject as Record<string, unknown>)),
  });
  await app.register(scalar, referenceOptions());
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await metricsRoutes(app, opts.db, opts.config.metricsToken);
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await opts.db.query('SELECT 1');
      return { status: 'ready' };
    } catch {
      reply.code(503);
      return { status: 'not ready', reason: 'database not reachable' };
    }
  });

  await app.register(async (scope) => {
    await consoleRoutes(scope);
  });
  // Each operation authenticates its caller itself (http/operation.ts), before anything else is read.
  await authRoutes(app, services);
  await sessionRoutes(app, services);
  await templateRoutes(app, services);
  await batchRoutes(app, services);
  await accountRoutes(app, services);
  await subscriptionRoutes(app, services);
  await readingRoutes(app, services);
  await importRoutes(app, services);
  await paymentRoutes(app, services);
  await ledgerRoutes(app, services);
  await termRoutes(app, services);
  await billRoutes(app, services);
  await verificationRoutes(app, services);
  await documentRoutes(app, services);
  await deliveryRoutes(app, services);
  await journalRoutes(app, services);
  await adminRoutes(app, services);
  await webhookRoutes(app, services);
  await lateChargeRoutes(app, services);
  await correctionRoutes(app, services);
  await simulationRoutes(app, services);
  await scheduleRoutes(app, services);
  await depositRoutes(app, services);
  await app.register(async (scope) => sandboxRoutes(scope, services), { prefix: '/sandbox' });
  return app;
}

/**
 * A request Node's HTTP parser could not read (a control byte in Authorization, a space in
 * a header name, headers past the limit): no route ran, so the answer is written on the
 * socket here, in the shape of the path the request line names, and the connection closed.
 */
function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const appErr = toAppError(err);
  if (socket.writable) {
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.toString('latin1') : '';
    const url = /^[A-Z]+ (\S+) HTTP\//.exec(raw)?.[1];
    const status = statusOf(appErr);
    const body = JSON.stringify(errorBody(appErr, url));
    const headers = Object.entries({ ...headersOf(appErr), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n${headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
