// /console through HTTP: the built index (read afresh after a build), hashed assets kept
// for a year, /console sent to /console/, and a sentence instead of a bare 404 when the
// console was never built (an install without dev dependencies).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { startHarness, type Harness } from '../support/harness.ts';
import { consoleRoutes } from '../../src/http/console.ts';

describe('the console is served at /console', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the index, its assets and the redirect', async () => {
    const redirect = await fetch(`${h.url}/console`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), '/console/');
    // The server's own address, typed by a person, leads to the console too (it answered a JSON 404).
    const root = await fetch(`${h.url}/`, { redirect: 'manual' });
    assert.deepEqual([root.status, root.headers.get('location')], [302, '/console/']);
    const index = await fetch(`${h.url}/console/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    // An attack framed the sign-in page from another site: no framing, own scripts only.
    assert.match(index.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'(;|$)/);
    assert.equal(index.headers.get('x-frame-options'), 'DENY');
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    const api = await fetch(`${h.url}/openapi.json`);
    assert.equal(api.headers.get('x-frame-options'), 'DENY');
    assert.equal(api.headers.get('x-content-type-options'), 'nosniff');
    const html = await index.text();
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, html);
    const js = await fetch(h.url + asset);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    // Nothing in the bundle points at another host for fonts or styles.
    assert.doesNotMatch(await js.text(), /fonts\.googleapis|fonts\.gstatic/);
  });

  test('never built: a 503 that says how to build it', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'billrun-console-'));
    const app: FastifyInstance = Fastify();
    await consoleRoutes(app, empty);
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/console/`);
      assert.equal(r.status, 503);
      assert.match(await r.text(), /npm install/);
    } finally {
      await app.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
