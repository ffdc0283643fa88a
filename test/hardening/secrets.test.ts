// No token, password or password hash ever appears in a log line or an answer. The server
// logs as in production (same redaction) at level trace into a stream read here, while
// logins, failed logins, logouts, business calls, refusals and sandbox calls go through.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, PASSWORD, type Answer, type Harness } from '../support/harness.ts';
import { tokenHash } from '../../src/auth/token.ts';
import { suiteCounts } from './counts.ts';

const counts = suiteCounts('secrets');

describe('secrets never leave the server', () => {
  let h: Harness;
  const log: string[] = [];
  const answers: string[] = [];
  const tokens = new Set<string>();
  const passwords = new Set<string>([PASSWORD]);
  before(async () => {
    h = await startHarness({ logLevel: 'trace' }, undefined, { logStream: { write: (line) => void log.push(line) } });
    for (const t of Object.values(h.tokens)) tokens.add(t);
  });
  after(async () => {
    counts.print();
    await h.close();
  });

  const keep = (r: Answer) => {
    counts.requests++;
    // A successful login answers its own new token: that is its purpose, not a leak.
    if (r.status === 200 && typeof r.body?.data?.accessToken === 'string') return r;
    answers.push(`${r.status} ${JSON.stringify([...r.headers.entries()])} ${JSON.stringify(r.body)}`);
    return r;
  };

  test('logins, failures, business calls and refusals: no secret in a log line or an answer', () =>
    counts.track(async () => {
      // Logins, good and bad, and a lockout.
      for (let i = 0; i < 3; i++) {
        const r = keep(await h.login('biller@a.test', PASSWORD));
        assert.equal(r.status, 200);
        tokens.add(r.body.data.accessToken);
      }
      for (let i = 0; i < 7; i++) {
        const guess = `Wrong-Guess-${i}-s3cr3t`;
        passwords.add(guess);
        keep(await h.login('viewer@a.test', guess));
        keep(await h.login('nobody@a.test', guess));
      }
      const longGuess = `Too-Long-${'p'.repeat(1100)}`;
      passwords.add(longGuess);
      keep(await h.request('POST', '/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'admin@a.test', password: longGuess } } }));
      keep(await h.request('POST', '/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'admin@a.test', password: 12345678 } } }));
      const leaky = 'Extra-Field-Password-9';
      passwords.add(leaky);
      keep(await h.request('POST', '/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'admin@a.test', password: PASSWORD, passwd: leaky } } }));
      keep(await h.request('POST', '/auth/login', { raw: `{"method":"Create","action":"Login","data":{"email":"admin@a.test","password":"${leaky}"`, headers: { 'content-type': 'application/json' } }));

      // Business calls with the token as is, with Bearer, wrong, in the wrong place.
      const token = [...tokens][4]!;
      const list = { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' };
      keep(await h.post('/billing/services/get-services', list, token));
      keep(await h.post('/billing/services/get-services', list, `Bearer ${token}`));
      keep(await h.post('/billing/services/get-services', list, `${token}x`));
      keep(await h.post('/billing/services/get-services', { ...list, token }, token));
      keep(await h.post('/billing/services/get-services', { ...list, apiVersion: 'v1' }, token));
      keep(await h.post('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'S-1', name: 'Secretive' } }, token, { 'idempotency-key': 'k-1' }));
      keep(await h.post('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'S-1', name: 'Secretive' } }, token, { 'idempotency-key': 'k-1' }));
      keep(await h.post('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'S-1', name: 'Twice' } }, token));
      keep(await h.post('/billing/accounts/get-account', { method: 'Retrieve', action: 'Retrieve Account', apiVersion: 'v2', data: { accountNumber: 'NOPE' } }, token));
      keep(await h.request('POST', '/billing/accounts/get-account', { token, raw: '{"method":', headers: { 'content-type': 'application/json' } }));
      keep(await h.request('POST', '/billing/nowhere', { token, body: {} }));
      keep(await h.request('GET', '/sandbox/plants', { token: `Bearer ${token}` }));
      keep(await h.request('GET', '/sandbox/plants', { token }));
      keep(await h.request('POST', '/sandbox/plants', { token: `Bearer ${token}`, body: { name: 'fern', password: PASSWORD } }));
      keep(await h.request('POST', '/sandbox/plants', { token: `Bearer ${h.tokens.viewer}`, body: { name: 'fern' } }));
      keep(await h.request('GET', '/sandbox/plants/1', { token: `Bearer ${token}x` }));
      // The token elsewhere than Authorization: in the query and a cookie, where no client should put it.
      keep(await h.request('GET', `/sandbox/plants?access_token=${token}`, { token: `Bearer ${token}` }));
      keep(await h.request('GET', '/sandbox/plants', { token: `Bearer ${token}`, headers: { cookie: `token=${token}` } }));
      // Logging out, and the token after.
      keep(await h.request('POST', '/auth/logout', { token }));
      keep(await h.post('/billing/services/get-services', list, token));

      const hashes = await h.db.query<{ password_hash: string }>('SELECT password_hash FROM app_user');
      const secrets = [
        ...[...tokens].map((t) => ['token', t]),
        ...[...tokens].map((t) => ['token hash', tokenHash(t).toString('hex')]),
        ...[...tokens].map((t) => ['token hash', tokenHash(t).toString('base64')]),
        ...[...passwords].map((p) => ['password', p]),
        ...hashes.rows.map((r) => ['password hash', r.password_hash]),
      ];
      assert.ok(log.length > 50, `the server logged (${log.length} lines)`);
      assert.ok(log.some((l) => l.includes('incoming request')) && log.some((l) => l.includes('request refused')), 'requests and refusals were logged');
      for (const [kind, secret] of secrets) {
        for (const line of log) {
          counts.records++;
          assert.ok(!line.includes(secret!), `a log line holds a ${kind}: ${line.slice(0, 400)}`);
        }
        for (const answer of answers) {
          counts.records++;
          assert.ok(!answer.includes(secret!), `an answer holds a ${kind}: ${answer.slice(0, 400)}`);
        }
      }
      // The redaction is what keeps the header out, not luck: it is logged, censored.
      assert.ok(log.some((l) => l.includes('[redacted]')) || !log.some((l) => l.includes('"authorization"')), 'Authorization appears only redacted');
    }));
});
