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

const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const node = process.execPath;

say('# tsc --noEmit');
const tsc = spawnSync(node, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(1);

let serverUrl: string;
let stop = async () => {};
if (process.env.DATABASE_URL) {
  serverUrl = process.env.DATABASE_URL;
  say(`# PostgreSQL from DATABASE_URL`);
} else {
  const server = await startEmbedded({ dataDir: path.join(root, '.data/test-pg'), port: 54339, database: 'postgres' });
  serverUrl = server.url;
  stop = server.stop;
  say('# embedded PostgreSQL');
}

const TEMPLATE = 'billrun_test_template';
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const version = (await admin.query('SHOW server_version')).rows[0].server_version;
say(`# server ${version}`);
for (const r of (await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'billrun_t\\_%' OR datname = $1`, [TEMPLATE])).rows) {
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(r.datname)} WITH (FORCE)`);
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
    await admin.end();
    await stop();
    process.exit(1);
  }
  say(dump === committed ? '# schema.sql is current' : '# schema.sql check skipped (BILLRUN_TEST_SCHEMA_CHECK=0)');
}

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : findTests(path.join(root, 'test'));
const child = spawn(node, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, BILLRUN_TEST_SERVER_URL: serverUrl, BILLRUN_TEST_TEMPLATE: TEMPLATE, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
});
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));

if (code === 0) {
  // Kept when a test failed, so its database can be looked at.
  for (const r of (await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'billrun_t\\_%'`)).rows) {
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
