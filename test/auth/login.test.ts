import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, PASSWORD, TEST_TODAY, type Harness } from '../support/harness.ts';
import http from 'node:http';
import { tokenHash } from '../../src/auth/token.ts';
import { throttleClient } from '../../src/auth/store.ts';

const listBody = { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' };

describe('login, tokens and throttling', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ tokenTtlSeconds: 60 });
  });
  after(() => h.close());

  test('login answers a token, its expiry and the user', async () => {
    const r = await h.login('biller@a.test', PASSWORD);
    assert.equal(r.status, 200);
    assert.equal(r.body.success, true);
    assert.equal(typeof r.body.data.accessToken, 'string');
    assert.deepEqual(r.body.data.user, { email: 'biller@a.test', appCode: h.appCode, role: 'biller' });
    const expires = Date.parse(r.body.data.expiresAt);
    assert.ok(expires > Date.now() + 50_000 && expires < Date.now() + 70_000);
    // Only the hash is stored.
    const stored = await h.db.query('SELECT count(*)::int AS n FROM access_token WHERE token_hash::text LIKE $1', [`%${r.body.data.accessToken}%`]);
    assert.equal(stored.rows[0].n, 0);
  });

  test('the token works as is and with a Bearer prefix; none or a wrong one is 401', async () => {
    assert.equal((await h.post('/billing/services/get-services', listBody, h.tokens.viewer)).status, 200);
    assert.equal((await h.post('/billing/services/get-services', listBody, `Bearer ${h.tokens.viewer}`)).status, 200);
    const none = await h.request('POST', '/billing/services/get-services', { body: listBody });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'UNAUTHENTICATED');
    const wrong = await h.post('/billing/services/get-services', listBody, 'not-a-token');
    assert.equal(wrong.status, 401);
  });

  test("get-session answers the token's user and its app's time zone, currency and today (by its clock); no token is 401", async () => {
    const body = { method: 'Retrieve', action: 'Retrieve Session', apiVersion: 'v2' };
    const r = await h.post('/auth/get-session', body, h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, {
      user: { email: 'viewer@a.test', appCode: h.appCode, role: 'viewer' },
      // The harness's app A runs at TEST_TODAY: the console dates readings by it, not by the browser's day.
      app: { appCode: h.appCode, name: 'App A', timeZone: 'Africa/Nairobi', currency: 'KES', minorUnits: 2, today: TEST_TODAY.split('-').reverse().join('/') },
    });
    const other = await h.post('/auth/get-session', body, h.tokens.otherAdmin);
    assert.equal(other.body.data.app.timeZone, 'UTC');
    assert.equal((await h.request('POST', '/auth/get-session', { body })).status, 401);
    const extra = await h.post('/auth/get-session', { ...body, data: {} }, h.tokens.viewer);
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.code, 'VALIDATION_FAILED');
  });

  test('a wrong password and an unknown e-mail answer alike', async () => {
    const bad = await h.login('viewer@a.test', 'wrong password');
    const unknown = await h.login('nobody@a.test', 'wrong password');
    assert.equal(bad.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(bad.body, unknown.body);
  });

  test('logout ends the token at once', async () => {
    const token = (await h.login('viewer@a.test', PASSWORD)).body.data.accessToken;
    assert.equal((await h.post('/billing/services/get-services', listBody, token)).status, 200);
    const out = await h.request('POST', '/auth/logout', { token });
    assert.equal(out.status, 200);
    const after = await h.post('/billing/services/get-services', listBody, token);
    assert.equal(after.status, 401);
  });

  test('an expired token is 401', async () => {
    const token = (await h.login('viewer@a.test', PASSWORD)).body.data.accessToken;
    await h.db.query("UPDATE access_token SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [tokenHash(token)]);
    const r = await h.post('/billing/services/get-services', listBody, token);
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, 'UNAUTHENTICATED');
  });

  test('repeated failed logins lock the account for a while, even for the right password', async () => {
    await h.db.query("INSERT INTO app_user (app_code, email, password_hash, role) SELECT app_code, 'victim@a.test', password_hash, 'viewer' FROM app_user WHERE email = 'viewer@a.test'");
    for (let i = 0; i < 5; i++) assert.equal((await h.login('victim@a.test', 'guess ' + i)).status, 401);
    const locked = await h.login('victim@a.test', PASSWORD);
    assert.equal(locked.status, 429);
    assert.equal(locked.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(locked.headers.get('retry-after')) >= 1);
    await h.db.query("UPDATE login_throttle SET locked_until = now() - interval '1 second' WHERE email = 'victim@a.test'");
    assert.equal((await h.login('victim@a.test', PASSWORD)).status, 200);
  });

  // An attack found three holes (docs/hardening.md): concurrent guesses all passed the lock
  // (43 of 60 checked), a 429 told that an e-mail has an account, and anyone could keep the
  // admin locked out. The attempt is counted first, for any e-mail, per client address.
  test('concurrent guesses are counted before they are checked: five at most, then 429', async () => {
    await h.db.query("INSERT INTO app_user (app_code, email, password_hash, role) SELECT app_code, 'target@a.test', password_hash, 'viewer' FROM app_user WHERE email = 'viewer@a.test'");
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => h.login('target@a.test', 'guess ' + i)));
    const statuses = answers.map((a) => a.status).sort();
    assert.equal(statuses.filter((s) => s === 401).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 35);
  });

  test('an unknown e-mail is throttled as a known one: the answers tell nothing', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await h.login('no-such-user@a.test', 'guess ' + i)).status, 401);
    const locked = await h.login('no-such-user@a.test', 'guess 6');
    assert.equal(locked.status, 429);
    assert.deepEqual(locked.body.error.details, [{ path: 'data.email', message: 'temporarily locked' }]);
  });

  test('a request must arrive within REQUEST_TIMEOUT_SECONDS: Fastify turns Node\'s limit off, and slow senders held connections forever', () => {
    assert.equal(h.app.server.requestTimeout, h.config.requestTimeoutSeconds * 1000);
    assert.ok(h.app.server.requestTimeout > 0);
  });

  test('the throttle counts an IPv6 client by its /64 and a mapped IPv4 address as IPv4', () => {
    const cases: [string, string][] = [
      ['192.0.2.7', '192.0.2.7'],
      ['::ffff:192.0.2.7', '192.0.2.7'],
      ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
      ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
      ['2001:DB8:0001:0002:0:0:0:9', '2001:db8:1:2::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['::1', '0:0:0:0::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ];
    for (const [ip, client] of cases) assert.equal(throttleClient(ip), client, ip);
  });

  test("a guesser locks its own address out, not the user's", async () => {
    await h.db.query("INSERT INTO app_user (app_code, email, password_hash, role) SELECT app_code, 'admin2@a.test', password_hash, 'admin' FROM app_user WHERE email = 'viewer@a.test'");
    for (let i = 0; i < 6; i++) await h.login('admin2@a.test', 'guess ' + i);
    assert.equal((await h.login('admin2@a.test', PASSWORD)).status, 429);
    // The user, signing in from another address (127.0.0.2 on the loopback).
    const fromElsewhere = await new Promise<number>((resolve, reject) => {
      const u = new URL(h.url + '/auth/login');
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress: '127.0.0.2', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'admin2@a.test', password: PASSWORD } }));
    });
    assert.equal(fromElsewhere, 200);
  });

  test('login validates its envelope', async () => {
    const r = await h.request('POST', '/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'a@b.c' } } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.details[0].path, 'data.password');
  });
});
