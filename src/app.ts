// Builds the HTTP server: infrastructure first (logging, errors, OpenAPI), then the
// feature routes. It listens nowhere: main.ts and the tests decide that.
import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type pg from 'pg';
import type { Config } from './config.ts';
import { AppError } from './http/errors.ts';
import { failure, toAppError } from './http/envelope.ts';
import { authenticate } from './http/authenticate.ts';
import type { Services } from './http/operation.ts';
import { authRoutes } from './auth/routes.ts';
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
import { sandboxRoutes } from './sandbox/routes.ts';

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
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    ajv: {
      // Unknown fields are refused, not silently dropped, and nothing is coerced: a
      // client that sends "12" for a number hears about it.
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: true },
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const services: Services = { db: opts.db, config: opts.config };

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Every failure answers in the product's envelope (the sandbox in its own { code, message }).
  app.setErrorHandler(async (err, request, reply) => {
    const appErr = toAppError(err);
    if (appErr.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: appErr.code }, 'request refused');
    if (appErr.headers) reply.headers(appErr.headers);
    reply.code(appErr.statusCode);
    // The sandbox's { code, message } has no details: the bad fields go into the message.
    if (request.url.startsWith('/sandbox')) {
      const fields = (appErr.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
      return { code: appErr.code, message: fields ? `${appErr.message} ${fields}` : appErr.message };
    }
    return failure(appErr);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const err = new AppError('ROUTE_NOT_FOUND', `No operation at ${request.method} ${request.url.split('?')[0]}.`);
    reply.code(404);
    if (request.url.startsWith('/sandbox')) return { code: err.code, message: err.message };
    return failure(err);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'billrun',
        version: '0.1.0',
        description:
          'Billing service: pricing templates, accounts, bill runs over terms, bills. Business operations are POST with a JSON envelope; see the README for the rules.',
      },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The access token from /auth/login, as is (a "Bearer " prefix is tolerated).' },
          bearer: { type: 'http', scheme: 'bearer', description: 'Sandbox: Authorization: Bearer <token>.' },
        },
      },
    },
  });
  await app.register(scalar, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

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
    await authRoutes(scope, services);
  });
  // Business operations: authenticated before anything else is read.
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      await authenticate(opts.db, request, false);
    });
    await templateRoutes(scope, services);
    await batchRoutes(scope, services);
    await accountRoutes(scope, services);
    await subscriptionRoutes(scope, services);
    await readingRoutes(scope, services);
    await importRoutes(scope, services);
    await paymentRoutes(scope, services);
    await ledgerRoutes(scope, services);
    await termRoutes(scope, services);
    await billRoutes(scope, services);
  });
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request) => {
        await authenticate(opts.db, request, true);
      });
      await sandboxRoutes(scope, services);
    },
    { prefix: '/sandbox' },
  );
  return app;
}
