// A worker process (`npm run worker`) has no HTTP API; with BILLRUN_METRICS_PORT set it
// answers GET /metrics on that port (same text, same BILLRUN_METRICS_TOKEN rule), so the
// figures only it holds (its chunk times, its deliveries, its pool) can be scraped too.
import http from 'node:http';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { registry } from './registry.ts';
import { metricsAllowed, metricsText } from './routes.ts';

export async function serveWorkerMetrics(db: pg.Pool, config: Pick<Config, 'metricsPort' | 'metricsToken' | 'host'>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
      return;
    }
    if (!metricsAllowed(config.metricsToken, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' }).end('Unauthorized\n');
      return;
    }
    metricsText(db, { warn: (o, m) => process.stderr.write(`${m}: ${String((o as { err?: unknown }).err)}\n`) })
      .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
      .catch((err: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${String(err)}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metricsPort, config.host, () => resolve());
  });
  return server;
}
