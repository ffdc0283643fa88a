// The database goes away under a running server: business routes answer 503 in the
// envelope and /readyz says not ready; when it comes back, both recover by themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startHarness, type Harness } from '../support/harness.ts';
import { buildApp } from '../../src/app.ts';
import { createPool } from '../../src/db/pool.ts';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { suiteCounts } from './counts.ts';

const counts = suiteCounts('database unreachable');

/** A TCP pass-through to PostgreSQL that the test can cut and restore. */
function cuttableProxy(target: URL) {
  let up = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  return {
    server,
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      up = true;
    },
  };
}

describe('database unreachable', () => {
  let h: Harness;
  let app: FastifyInstance;
  let pool: pg.Pool;
  let proxy: ReturnType<typeof cuttableProxy>;
  let base: string;
  before(async () => {
    h = await startHarness();
    const target = new URL(h.dbUrl);
    proxy = cuttableProxy(target);
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
    const port = (proxy.server.address() as net.AddressInfo).port;
    const viaProxy = new URL(h.dbUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(port);
    pool = createPool(viaProxy.toString(), 5);
    app = await buildApp({ config: h.config, db: pool, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    counts.print();
    await app.close();
    await pool.end().catch(() => {});
    proxy.server.close();
    await h.close();
  });

  const list = () => {
    counts.requests++;
    return fetch(base + '/billing/services/get-services', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: h.tokens.admin },
      body: JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }),
    });
  };

  test('503 in the envelope while down, recovery without a restart', () =>
    counts.track(async () => {
      assert.equal((await list()).status, 200);
      assert.equal((await fetch(base + '/readyz')).status, 200);

      proxy.cut();
      counts.faults++;
      const down = await list();
      assert.equal(down.status, 503);
      const body = (await down.json()) as { success: boolean; error: { code: string } };
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'UNAVAILABLE');
      assert.equal(down.headers.get('retry-after'), '5');
      assert.equal((await fetch(base + '/readyz')).status, 503);

      proxy.restore();
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = (await list()).status === 200;
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(recovered, 'business routes answer again');
      assert.equal((await fetch(base + '/readyz')).status, 200);
      counts.records += 4;
    }));
});
