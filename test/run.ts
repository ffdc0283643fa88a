// `npm test`: type-checks, makes sure a PostgreSQL is there (the embedded one unless
// DATABASE_URL names another), migrates a template database once, checks the committed
// schema dump, then runs every test file; each file copies the template into a
// database of its own, so tests never share mutable state.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { dumpSchema } from '../src/db/schemaDump.ts';
import { freePort } from './support/ports.ts';
import { ensureBuilt, writeTypes } from '../console/build.ts';

const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const node = process.execPath;

say('# tsc --noEmit');
const tsc = spawnSync(node, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(1);
// The console is typed from the OpenAPI document the routes make: a changed route fails here.
say('# console: types from /openapi.json, tsc -p console');
await writeTypes();
const consoleTsc = spawnSync(node, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', path.join(root, 'console')], { stdio: 'inherit' });
if (consoleTsc.status !== 0) process.exit(1);
// The browser test drives the built console: build it when a source is newer than the build.
await ensureBuilt((s) => say(`# ${s}`));

// Runs may overlap (two terminals, two engineers): each has its own id, its own
// embedded server and its own databases, and cleans up only what it made.
const runId = `${process.pid}`;
let serverUrl: string;
let stop = async () => {};
const embeddedDir = path.join(root, '.data/test-pg', runId);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
// Data folders of earlier runs that are over (kept after a failure, for a look).
fs.mkdirSync(path.join(root, '.data/test-pg'), { recursive: true });
for (const d of fs.readdirSync(path.join(root, '.data/test-pg'))) {
  if (/^\d+$/.test(d) && !alive(Number(d))) fs.rmSync(path.join(root, '.data/test-pg', d), { recursive: true, force: true });
}
if (process.env.DATABASE_URL) {
  serverUrl = process.env.DATABASE_URL;
  say(`# PostgreSQL from DATABASE_URL`);
} else {
  const server = await startEmbedded({ dataDir: embeddedDir, port: await freePort(), database: 'postgres' });
  serverUrl = server.url;
  stop = async () => {
    await server.stop();
    if (code === 0) fs.rmSync(embeddedDir, { recursive: true, force: true });
  };
  say('# embedded PostgreSQL');
}
let code = 1;

const TEMPLATE = `billrun_tpl_${runId}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const version = (await admin.query('SHOW server_version')).rows[0].server_version;
say(`# server ${version}`);
// Databases of runs that are over, on a shared server (DATABASE_URL).
for (const r of (await admin.query(`SELECT datname FROM pg_database WHERE datname ~ '^billrun_(t|tpl)_[0-9]+'`)).rows) {
  const pid = Number(/^billrun_(?:t|tpl)_(\d+)/.exec(r.datname)?.[1]);
  if (!alive(pid)) await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(r.datname)} WITH (FORCE)`).catch(() => {});
}
await admin.query(`CREATE DATABASE ${TEMPLATE}`);
const templateUrl = withDatabase(serverUrl, TEMPLATE);
await migrate(templateUrl);
{
  const c = new pg.Client({ connectionString: templateUrl });
  await c.connect();
  const dump = await dumpSchema(c);
  await c.end();
  const committed = fs.readFileSync(path.join(root, 'src/db/schema.sql'), 'utf8');
  // BILLRUN_TEST_SCHEMA_CHECK=0 skips this while a migration is being written; CI never sets it.
  if (dump !== committed && process.env.BILLRUN_TEST_SCHEMA_CHECK !== '0') {
    fs.writeFileSync(path.join(root, '.data/schema.actual.sql'), dump);
    say('not ok - src/db/schema.sql differs from what the migrations make (see .data/schema.actual.sql; run npm run schema:dump)');
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`).catch(() => {});
    await admin.end();
    await stop();
    process.exit(1);
  }
  say(dump === committed ? '# schema.sql is current' : '# schema.sql check skipped (BILLRUN_TEST_SCHEMA_CHECK=0)');
}

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : findTests(path.join(root, 'test'));
// The browser tests run after the rest, alone: beside two other test files on a 2-core
// machine, Chromium's renderer starved and a page froze past its timeouts (seen in CI).
const inBrowser = (f: string) => path.resolve(f).startsWith(path.join(root, 'test', 'console') + path.sep);
// A test that waits on a page past 5 minutes fails instead of holding the run: a Chromium renderer
// once spun at 100% CPU on a page no later run reproduced, and every browser test after it waited
// on it with no end, until CI's limit (test/console/console.test.ts replaces such a page).
const runFiles = (list: string[], concurrency: number, timeout?: number) =>
  new Promise<number>((resolve) => {
    if (list.length === 0) return resolve(0);
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...(timeout === undefined ? [] : [`--test-timeout=${timeout}`]), ...list], {
      stdio: 'inherit',
      env: {
        ...process.env,
        BILLRUN_TEST_SERVER_URL: serverUrl,
        BILLRUN_TEST_TEMPLATE: TEMPLATE,
        BILLRUN_TEST_RUN_ID: runId,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      },
    });
    child.on('exit', (c) => resolve(c ?? 1));
  });
const first = await runFiles(files.filter((f) => !inBrowser(f)), 2);
const second = await runFiles(files.filter(inBrowser), 1, 300_000);
code = first !== 0 ? first : second;

if (code === 0) {
  // Kept when a test failed, so its database can be looked at (until the next run).
  for (const r of (await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [`billrun\\_t\\_${runId}\\_%`, TEMPLATE])).rows) {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(r.datname)} WITH (FORCE)`).catch(() => {});
  }
}
await admin.end();
await stop();
process.exit(code);

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findTests(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}
