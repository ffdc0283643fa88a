// Sessions held in memory (src/auth/sessionCache.ts) and what must end or change them at
// once, on every process: two servers on one database, a change made through one, seen
// through the other as soon as the database has delivered its notification (a few
// milliseconds; the bound here, NOTICE_MS, is far below the cache's 30 s, so a missing
// invalidation fails). The process that made the change forgets at once. And the
// fail-safe: a listening connection that drops must not leave the cache trusted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { startHarness, PASSWORD, type Harness } from '../support/harness.ts';
import { buildApp } from '../../src/app.ts';
import { createPool } from '../../src/db/pool.ts';
import { tokenHash } from '../../src/auth/token.ts';
import { LISTENER_NAME, SessionCache } from '../../src/auth/sessionCache.ts';

const body = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });
const SESSION = body('Retrieve', 'Retrieve Session');
const USERS = body('Retrieve', 'Retrieve Users', {});
/** How long the other process may take to hear of a change: the notification's trip through the database on a busy machine. */
const NOTICE_MS = 1_000;
const delays: number[] = [];

describe('sessions held in memory end at once on every process', () => {
  let h: Harness;
  let other: FastifyInstance;
  let otherDb: pg.Pool;
  let otherUrl: string;
  /** A request through the second server. */
  const via = async (token: string, path = '/auth/get-session', b: unknown = SESSION) => {
    const r = await fetch(otherUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify(b) });
    return r.status;
  };
  /** The other server's answer once it has heard (NOTICE_MS at most); the delay is recorded. */
  const soon = async (ask: () => Promise<number>, expected: number) => {
    const start = performance.now();
    let status = await ask();
    while (status !== expected && performance.now() - start < NOTICE_MS) {
      await new Promise((r) => setTimeout(r, 2));
      status = await ask();
    }
    delays.push(performance.now() - start);
    return status;
  };
  const viaSoon = (token: string, expected: number, path = '/auth/get-session', b: unknown = SESSION) => soon(() => via(token, path, b), expected);
  const idOf = async (email: string) => Number((await h.db.query('SELECT user_id FROM app_user WHERE email = $1', [email])).rows[0].user_id);
  const tokenOf = async (email: string, password = PASSWORD) => {
    const r = await h.login(email, password);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.accessToken as string;
  };
  /** A change made past the triggers (as if its notification were lost): only a cache that is not trusted sees it. */
  const silently = async (sql: string, params: unknown[]) => {
    const c = await h.db.connect();
    try {
      await c.query('BEGIN');
      await c.query("SET LOCAL session_replication_role = 'replica'");
      await c.query(sql, params);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  };
  const listeners = async () =>
    (await h.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_NAME])).rows.map((r) => r.pid);

  before(async () => {
    h = await startHarness();
    // A second server process's view: its own pool and cache on the same database.
    otherDb = createPool(h.dbUrl, 5);
    other = await buildApp({ config: h.config, db: otherDb, logger: false });
    await other.listen({ port: 0, host: '127.0.0.1' });
    const address = other.server.address();
    otherUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    if (delays.length > 0) console.log(`# the other server heard of ${delays.length} changes within ${Math.max(...delays).toFixed(1)} ms (median ${delays.sort((a, b) => a - b)[delays.length >> 1]!.toFixed(1)} ms)`);
    await other.close();
    await otherDb.end();
    await h.close();
  });

  test('a checked token is answered from memory: a change that bypasses the notification is not seen (the cache is real)', async () => {
    const token = await tokenOf('viewer@a.test');
    assert.equal(await via(token), 200);
    await silently('UPDATE access_token SET revoked_at = now() WHERE token_hash = $1', [tokenHash(token)]);
    assert.equal(await via(token), 200, 'held in memory, no database round trip');
    assert.equal((await h.post('/auth/get-session', SESSION, token)).status, 401, 'a process that never held it asks the database');
  });

  test('logout through one server ends the token at once on the other, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const token = await tokenOf('viewer@a.test');
      assert.equal(await via(token), 200);
      assert.equal(await via(token), 200);
      assert.equal((await h.post('/auth/logout', {}, token)).status, 200);
      assert.equal((await h.post('/auth/get-session', SESSION, token)).status, 401, `round ${i}: the server that logged out must forget at once`);
      assert.equal(await viaSoon(token, 401), 401, `round ${i}: the other server still took a logged-out token`);
    }
  });

  test('a role change takes effect at once on both servers, up and down', async () => {
    const viewer = await idOf('viewer@a.test');
    const token = await tokenOf('viewer@a.test');
    assert.equal(await via(token, '/admin/get-users', USERS), 403);
    assert.equal((await h.post('/admin/get-users', USERS, token)).status, 403);
    assert.equal((await h.post('/admin/update-user', body('Update', 'Update User', { userID: viewer, role: 'admin' }))).status, 200);
    assert.equal(await viaSoon(token, 200, '/admin/get-users', USERS), 200, 'promoted: the other server must know at once');
    assert.equal((await h.post('/admin/get-users', USERS, token)).status, 200);
    // Demoted through the other server this time.
    const demote = await fetch(otherUrl + '/admin/update-user', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: h.tokens.admin },
      body: JSON.stringify(body('Update', 'Update User', { userID: viewer, role: 'viewer' })),
    });
    assert.equal(demote.status, 200);
    assert.equal(await soon(async () => (await h.post('/admin/get-users', USERS, token)).status, 403), 403, 'demoted: the first server must know at once');
    assert.equal(await via(token, '/admin/get-users', USERS), 403);
  });

  test('a disabled user and a password reset end the sessions at once on the other server', async () => {
    const biller = await idOf('biller@a.test');
    const token = await tokenOf('biller@a.test');
    assert.equal(await via(token), 200);
    assert.equal((await h.post('/admin/update-user', body('Update', 'Update User', { userID: biller, disabled: true }))).status, 200);
    assert.equal(await viaSoon(token, 401), 401, 'disabled');
    assert.equal((await h.post('/admin/update-user', body('Update', 'Update User', { userID: biller, disabled: false }))).status, 200);
    assert.equal(await via(token), 401, 'enabled again, the old session stays ended');

    const fresh = await tokenOf('biller@a.test');
    assert.equal(await via(fresh), 200);
    assert.equal((await h.post('/admin/reset-password', body('Update', 'Reset Password', { userID: biller, password: 'a new long secret' }))).status, 200);
    assert.equal(await viaSoon(fresh, 401), 401, 'password reset');
  });

  test('a token ended by hand in SQL (expiry moved) ends at once too: the database announces it, not the route', async () => {
    const token = await tokenOf('viewer@a.test');
    assert.equal(await via(token), 200);
    await h.db.query("UPDATE access_token SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [tokenHash(token)]);
    assert.equal(await viaSoon(token, 401), 401);
  });

  test('a dropped listening connection throws the cache away: a change missed meanwhile is seen once it is back', async () => {
    const token = await tokenOf('viewer@a.test');
    assert.equal(await via(token), 200);
    // The revocation's notification is lost (as it would be while the connection is down) ...
    await silently('UPDATE access_token SET revoked_at = now() WHERE token_hash = $1', [tokenHash(token)]);
    assert.equal(await via(token), 200, 'still held: nothing told the server');
    // ... and the connection drops. Both servers reconnect; a cache trusted blindly would still answer 200.
    const before = await listeners();
    assert.equal(before.length, 2);
    await h.db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    for (let i = 0; ; i++) {
      const now = await listeners();
      if (now.length === 2 && now.every((p) => !before.includes(p))) break;
      assert.ok(i < 100, 'the listeners did not come back');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await via(token), 401);
  });

  test('while the listening connection is down, every lookup goes to the database', async () => {
    const cache = new SessionCache(h.db, { reconnectMs: 60_000 });
    await cache.start();
    try {
      assert.equal(cache.trusted, true);
      const token = await tokenOf('viewer@a.test');
      const hash = tokenHash(token);
      assert.equal((await cache.lookup(hash))?.role, 'viewer');
      assert.equal(cache.size, 1);
      const mine = await listeners();
      await h.db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [mine]);
      for (let i = 0; cache.trusted; i++) {
        assert.ok(i < 100, 'the loss was not noticed');
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(cache.size, 0, 'what was held is thrown away');
      await silently('UPDATE access_token SET revoked_at = now() WHERE token_hash = $1', [hash]);
      assert.equal(await cache.lookup(hash), undefined, 'the database, not memory, answered');
      const another = tokenHash(await tokenOf('viewer@a.test'));
      assert.equal((await cache.lookup(another))?.role, 'viewer');
      assert.equal(cache.size, 0, 'nothing is kept while untrusted');
    } finally {
      await cache.stop();
    }
  });
});
