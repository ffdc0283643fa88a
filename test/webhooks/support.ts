// A real HTTP receiver for webhook tests and benches (node:http on loopback): it keeps
// every request (path, headers, body) and answers what `answer` says for each.
import http from 'node:http';

export type Received = { path: string; headers: Record<string, string>; body: string; at: number };

export async function startReceiver(answer: (r: Received, nth: number) => number = () => 200) {
  const received: Received[] = [];
  const countByPath = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      const nth = (countByPath.get(r.path) ?? 0) + 1;
      countByPath.set(r.path, nth);
      const status = answer(r, nth);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : `no thanks (${status})`);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const wh = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
