import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from '../support/harness.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });

describe('command line', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('bad settings stop the process with one clear line each, not a stack trace', () => {
    const r = run(['migrate'], { PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', BILLRUN_ADMIN_EMAIL: 'root@x.test' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /PORT must be a whole number/);
    assert.match(r.stderr, /DATABASE_URL must start with postgres/);
    assert.match(r.stderr, /LOG_LEVEL must be one of/);
    assert.match(r.stderr, /BILLRUN_ADMIN_EMAIL and BILLRUN_ADMIN_PASSWORD go together/);
    assert.doesNotMatch(r.stderr, /    at /);
  });

  test('app add and user add make a user who can log in', async () => {
    const app = run(['app', 'add', '--name', 'Cli Water', '--time-zone', 'Africa/Lagos'], { DATABASE_URL: h.dbUrl });
    assert.equal(app.status, 0, app.stderr);
    const code = app.stdout.trim();
    assert.match(code, /^\d+$/);
    const user = run(['user', 'add', '--app', code, '--email', 'ops@cli.test', '--password', 'long enough pw', '--role', 'biller'], { DATABASE_URL: h.dbUrl });
    assert.equal(user.status, 0, user.stderr);
    const login = await h.login('ops@cli.test', 'long enough pw');
    assert.equal(login.status, 200);
    assert.equal(login.body.data.user.appCode, Number(code));
    const dup = run(['user', 'add', '--app', code, '--email', 'ops@cli.test', '--password', 'long enough pw', '--role', 'biller'], { DATABASE_URL: h.dbUrl });
    assert.equal(dup.status, 1);
    assert.match(dup.stderr, /exists already/);
    const badRole = run(['user', 'add', '--app', code, '--email', 'x@cli.test', '--password', 'long enough pw', '--role', 'owner'], { DATABASE_URL: h.dbUrl });
    assert.equal(badRole.status, 2);
  });

  test('the usage and the docs give npm commands, never a bare node (the machine\'s may be older than 24)', () => {
    const help = run(['help'], {});
    assert.equal(help.status, 0);
    assert.match(help.stderr, /usage: npm run cli -- <command>/);
    const root = path.resolve(import.meta.dirname, '../..');
    const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => path.join('docs', f))].filter((f) => f.endsWith('.md'));
    for (const f of docs) {
      const bare = fs.readFileSync(path.join(root, f), 'utf8').split('\n').filter((line) => /(^|[^x] )node (src|test|bench)\//.test(line));
      assert.deepEqual(bare, [], `${f} runs a script with a bare node`);
    }
    assert.match(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), /EBADENGINE[^.]*harmless|harmless[^.]*EBADENGINE/s, 'the README says the EBADENGINE warnings of npm install are harmless');
  });

  test('app add --rounding sets the rule every bill of the app is rounded by, any the core has', async () => {
    const app = run(['app', 'add', '--name', 'Cli Ceil', '--rounding', 'ceil'], { DATABASE_URL: h.dbUrl });
    assert.equal(app.status, 0, app.stderr);
    const row = await h.db.query('SELECT rounding_mode FROM app WHERE app_code = $1', [Number(app.stdout.trim())]);
    assert.equal(row.rows[0].rounding_mode, 'ceil');
    const bad = run(['app', 'add', '--name', 'Cli Nearest', '--rounding', 'nearest'], { DATABASE_URL: h.dbUrl });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--rounding must be one of halfUp, halfEven, halfDown, up, down, ceil, floor/);
  });
});
