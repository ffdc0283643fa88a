// The command line's app add and user add follow the admin API's rules (one owner each:
// admin/apps.ts, admin/users.ts) and write the audit log as the command line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { startHarness, type Harness } from '../support/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { bootstrapAdmin } from '../../src/admin/bootstrap.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });

describe('command line: app add and user add with the admin rules', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('app add --test makes a test app whose clock the admin API may move; audited as the command line', async () => {
    const made = run(['app', 'add', '--name', 'Rehearsal', '--time-zone', 'Africa/Kampala', '--currency', 'UGX', '--minor-units', '0', '--test'], { DATABASE_URL: h.dbUrl });
    assert.equal(made.status, 0, made.stderr);
    const code = Number(made.stdout.trim());
    const row = (await h.db.query('SELECT name, time_zone, currency, minor_units, is_test FROM app WHERE app_code = $1', [code])).rows[0];
    assert.deepEqual(row, { name: 'Rehearsal', time_zone: 'Africa/Kampala', currency: 'UGX', minor_units: 0, is_test: true });
    const user = run(['user', 'add', '--app', String(code), '--email', 'boss@rehearsal.test', '--password', 'long enough pw', '--role', 'admin'], { DATABASE_URL: h.dbUrl });
    assert.equal(user.status, 0, user.stderr);
    const token = (await h.login('boss@rehearsal.test', 'long enough pw')).body.data.accessToken;
    const moved = await h.post('/admin/set-clock', { method: 'Update', action: 'Set Clock', apiVersion: 'v2', data: { days: 2 } }, token);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const log = await h.post('/admin/get-audit-log', { method: 'Retrieve', action: 'Retrieve Audit Log', apiVersion: 'v2', data: {} }, token);
    assert.deepEqual(
      log.body.data.entries.map((e: { action: string; user: string; userID: number | null }) => [e.action, e.user, e.userID === null]),
      [
        ['app.clock', 'boss@rehearsal.test', false],
        ['user.make', 'command line', true],
        ['app.make', 'command line', true],
      ],
    );
    // A live app made without --test: its clock is refused.
    const live = run(['app', 'add', '--name', 'Live'], { DATABASE_URL: h.dbUrl });
    assert.equal((await h.db.query('SELECT is_test FROM app WHERE app_code = $1', [Number(live.stdout.trim())])).rows[0].is_test, false);
  });

  test('bad values are refused with the same rules as the API, one line per option, nothing made', async () => {
    const before = (await h.db.query('SELECT count(*)::int AS n FROM app')).rows[0].n;
    const bad = run(['app', 'add', '--name', 'Bad', '--time-zone', 'Mars/Base', '--currency', 'usd', '--minor-units', '7'], { DATABASE_URL: h.dbUrl });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--time-zone must be an IANA time zone/);
    assert.match(bad.stderr, /--currency must be a three-letter ISO 4217 code/);
    assert.match(bad.stderr, /--minor-units must be a whole number from 0 to 4/);
    assert.doesNotMatch(bad.stderr, /    at /);
    assert.equal((await h.db.query('SELECT count(*)::int AS n FROM app')).rows[0].n, before);
    const weak = run(['user', 'add', '--app', String(h.appCode), '--email', 'weak@a.test', '--password', 'short', '--role', 'viewer'], { DATABASE_URL: h.dbUrl });
    assert.equal(weak.status, 2);
    assert.match(weak.stderr, /--password must be at least 8 characters/);
    const noApp = run(['user', 'add', '--app', '99999', '--email', 'lost@a.test', '--password', 'long enough pw', '--role', 'viewer'], { DATABASE_URL: h.dbUrl });
    assert.equal(noApp.status, 1);
    assert.match(noApp.stderr, /--app/);
  });
});

describe('the first start', () => {
  test("the first app and admin made from BILLRUN_ADMIN_EMAIL are in the audit log, as the first start", async () => {
    // A database of its own, copied from the migrated template, with no user at all.
    const serverUrl = process.env.BILLRUN_TEST_SERVER_URL!;
    const name = `billrun_t_${process.env.BILLRUN_TEST_RUN_ID ?? 'x'}_boot${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${process.env.BILLRUN_TEST_TEMPLATE}`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    const db = createPool(u.toString(), 2);
    try {
      const config = { ...loadConfig({ LOG_LEVEL: 'silent', BILLRUN_ADMIN_EMAIL: 'first@boot.test', BILLRUN_ADMIN_PASSWORD: 'long enough pw' }), databaseUrl: u.toString() };
      assert.equal(await bootstrapAdmin(db, config), 'first@boot.test');
      const rows = await db.query('SELECT action, target, actor, user_id, before, after FROM audit_log ORDER BY audit_id');
      assert.deepEqual(
        rows.rows.map((r) => [r.action, r.actor, r.user_id, r.before]),
        [
          ['app.make', 'first start', null, null],
          ['user.make', 'first start', null, null],
        ],
      );
      assert.equal(rows.rows[0].after.name, 'Default');
      assert.deepEqual(rows.rows[1].after, { userID: Number(rows.rows[1].target.slice(5)), email: 'first@boot.test', role: 'admin', disabled: false });
      // A second start with users does nothing, and writes nothing.
      assert.equal(await bootstrapAdmin(db, config), undefined);
      assert.equal((await db.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n, 2);
    } finally {
      await db.end();
    }
  });
});
