// GET /metrics in the Prometheus text format, and the HTTP figures of every request.
// /metrics is open unless BILLRUN_METRICS_TOKEN is set; then it asks for
// `Authorization: Bearer <token>` (docs/operations.md, "Metrics").
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { counter, histogram, registry, secondsSince } from './registry.ts';
import { readDatabaseFigures } from './database.ts';

const requests = counter('billrun_http_requests_total', 'HTTP requests answered, by method, route pattern and status.', ['method', 'route', 'status']);
const latency = histogram(
  'billrun_http_request_duration_seconds',
  'Time from a request arriving to its answer being sent, by method, route pattern and status.',
  ['method', 'route', 'status'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);

/** The route a request matched, as declared (`/sandbox/plants/:id`, never the raw URL, so ids make no new series). */
function routeOf(request: { routeOptions?: { url?: string } }): string {
  return request.routeOptions?.url ?? '(no route)';
}

export function metricsHooks(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    (request as { metricsStart?: number }).metricsStart = performance.now();
  });
  app.addHook('onResponse', async (request, reply) => {
    const start = (request as { metricsStart?: number }).metricsStart;
    const labels = { method: request.method, route: routeOf(request), status: String(reply.statusCode) };
    requests.inc(labels);
    if (start !== undefined) latency.observe(labels, secondsSince(start));
  });
}

/** True when the request may read the metrics: no token set, or the right one given. */
export function metricsAllowed(token: string | undefined, authorization: string | undefined): boolean {
  if (token === undefined) return true;
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

/** The metrics text: the database figures read now, then everything of this process. */
export async function metricsText(db: pg.Pool, log: { warn(o: object, m: string): void }): Promise<string> {
  try {
    await readDatabaseFigures(db);
  } catch (err) {
    // The process's own figures still answer; the database ones stay as last read.
    log.warn({ err }, 'metrics: the database figures could not be read');
  }
  return registry.metrics();
}

export async function metricsRoutes(app: FastifyInstance, db: pg.Pool, token: string | undefined): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!metricsAllowed(token, request.headers.authorization)) {
      reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('text/plain; charset=utf-8');
      return 'Unauthorized: send Authorization: Bearer <BILLRUN_METRICS_TOKEN>\n';
    }
    const text = await metricsText(db, request.log);
    reply.type(registry.contentType);
    return text;
  });
}
