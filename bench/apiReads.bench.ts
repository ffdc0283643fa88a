// API reads against a bare Fastify route, measured side by side in one run (issue 15):
// get-services of one template, get-bills of one bill, get-terms of one term, each driven
// by autocannon (10 connections, a warm-up, then the measured seconds) against a billrun
// server in its own process; and the same load on a bare Fastify 5 route in another
// process on the same Node, and the floor of a read: that bare server running one query on
// billrun's database (a template's row) and answering it. Prints req/s, p99, the ratio to
// the bare route, each read's share of the floor's requests a second, the target
// (≥ 20% of it and ≥ 10,000/s, p99 ≤ 5 ms) and the database queries per request, counted
// in a quiet pass of 200 requests each before the load (pg_stat_statements' calls when the
// server has it loaded, else pg_stat_database.xact_commit, less what the counting itself adds).
//
// On the machine's PostgreSQL when DATABASE_URL is set (a fresh database is made and
// dropped), else on the embedded one. Flags (through `npm run bench -- apiReads`, write
// them --name=N): --seconds=N (10), --warmup=N (3), --connections=N (10), --cpu-prof (the
// server writes a .cpuprofile to .data/bench-api-prof when it exits), --only=get-bills (the bare
// route, the floor and that read alone).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { arg } from './args.ts';
import { databaseCpu, userSystemSeconds } from './cpu.ts';

const seconds = arg('--seconds', 10);
const warmup = arg('--warmup', 3);
const connections = arg('--connections', 10);
const cpuProf = process.argv.includes('--cpu-prof');
// --only=get-bills: the bare route, the floor and that read alone (a profile of one read's path).
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const root = path.resolve(import.meta.dirname, '..');
const port = 8191;
const FLOOR = 'bare route + 1 query (floor)';
const barePort = 8192;
const base = `http://127.0.0.1:${port}`;
const email = 'reads@bench.test';
const password = 'reads bench password';

// The database: a fresh one on the machine's PostgreSQL, or the embedded one in its own folder.
const machineUrl = process.env.DATABASE_URL || undefined;
let dbUrl: string | undefined;
let dbName: string | undefined;
if (machineUrl) {
  dbName = `bench_apireads_${process.pid}`;
  const c = new pg.Client({ connectionString: machineUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${dbName}`);
  await c.end();
  const u = new URL(machineUrl);
  u.pathname = `/${dbName}`;
  dbUrl = u.toString();
}
const dataDir = path.join(root, '.data/bench-api-reads');
fs.rmSync(dataDir, { recursive: true, force: true });
const profDir = path.join(root, '.data/bench-api-prof');
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  BILLRUN_DATA_DIR: dataDir,
  BILLRUN_EMBEDDED_PG_PORT: '25391',
  BILLRUN_ADMIN_EMAIL: email,
  BILLRUN_ADMIN_PASSWORD: password,
  LOG_LEVEL: 'warn',
  DATABASE_URL: dbUrl ?? '',
};
const children: ChildProcess[] = [];
const start = (args: string[], extra: Record<string, string> = {}, nodeFlags: string[] = []) => {
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd: root, env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
};
const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
};
/** Until the url answers: with 2xx, or with anything at all when `anyAnswer` (a 404 of a server that is up). */
const until = async (url: string, anyAnswer = false) => {
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url);
      if (r.ok || anyAnswer) return;
    } catch {}
    if (i > 1200) throw new Error(`${url} did not answer`); // 5 minutes: a loaded machine compiles the schemas slowly
    await new Promise((r) => setTimeout(r, 250));
  }
};

// The bare route: Fastify 5 with one POST route and a response schema, nothing else. And the
// floor of a read: a route of the same bare server that runs one query (a template's row by its
// code, a prepared statement through pg's pool, as billrun's reads run theirs) on billrun's
// database and answers its row. What a read costs above it is billrun's own: the token, the
// envelope's checks, the logs and metrics, the answer's shape.
const BARE = `
import Fastify from 'fastify';
import pg from 'pg';
const app = Fastify({ logger: false });
app.post('/bare', { schema: { response: { 200: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { hello: { type: 'string' } } } } } } } }, async () => ({ success: true, data: { hello: 'world' } }));
const db = new pg.Pool({ connectionString: process.env.FLOOR_DB, max: 10 });
const row = { type: 'object', properties: { service_id: { type: 'string' }, service_code: { type: 'string' }, current_version: { type: 'integer' } } };
app.post('/floor', { schema: { response: { 200: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { services: { type: 'array', items: row } } } } } } } }, async (request) => {
  const r = await db.query({ name: 'floor', text: 'SELECT service_id::text, service_code, current_version FROM service WHERE service_code = $1', values: [request.body.serviceCode] });
  return { success: true, data: { services: r.rows } };
});
await app.listen({ port: ${barePort}, host: '127.0.0.1' });
`;

try {
  // The server without its worker (its polling would count among the reads' transactions),
  // and a worker only while the term is processed.
  const server = start([path.join(root, 'src/main.ts'), 'serve'], { BILLRUN_WORKER: '0' }, cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  await until(`${base}/readyz`);
  // The bare server's floor route reads billrun's database: known once billrun has started it.
  const floorDb = dbUrl ?? `postgres://billrun:${encodeURIComponent(fs.readFileSync(path.join(dataDir, 'billrun-secret'), 'utf8').trim())}@127.0.0.1:25391/billrun`;
  const bareServer = start(['--input-type=module', '-e', BARE], { FLOOR_DB: floorDb });
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'Create', action: 'Login', apiVersion: 'v2', data: { email, password } }),
  });
  const token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken;
  const headers = { 'content-type': 'application/json', authorization: token };
  const envelope = (method: string, action: string, data: unknown, schedule = false) => ({ method, action, apiVersion: 'v2', ...(schedule ? { operation: 'schedule' } : {}), data });
  const call = async (route: string, body: unknown) => {
    const r = await fetch(`${base}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await r.json()) as { data: any };
    if (r.status !== 200) throw new Error(`${route}: ${JSON.stringify(json)}`);
    return { json, headers: r.headers };
  };

  // One template, a few accounts with readings, one processed term with its bills.
  await call('/billing/services/make-service', {
    method: 'Create',
    action: 'Create Package',
    apiVersion: 'v2',
    service: {
      code: 'READS', name: 'Reads', serviceType: 'Sale', chargingType: 'Postpaid', postType: 'Post Subscription', billingCycle: 1, dueDateOffset: 14,
      meteredInputs: [{ code: 'M', label: 'Meter', unit: 'm3', decimals: 0 }],
      components: [{ code: 'W', name: 'Water', model: 'graduated', input: 'M', tiers: [{ upTo: 10, rate: '1.5' }, { upTo: null, rate: '2.25' }] }],
      batches: ['READS'],
    },
  });
  const S = 20;
  await call('/billing/imports/make-import', envelope('Create', 'Create Import', {
    kind: 'accounts',
    rows: Array.from({ length: S }, (_, i) => ({ accountNumber: `R-${i}`, name: `Reads ${i}`, serviceCode: 'READS', batchCode: 'READS', startDate: '01/01/2026', openingReadings: { M: 0 } })),
  }));
  const subs: number[] = (await call('/billing/subscriptions/get-subscriptions', envelope('Retrieve', 'Retrieve Subscriptions', { batchCode: 'READS', limit: 100 }))).json.data.subscriptions.map(
    (x: { subscriptionID: number }) => x.subscriptionID,
  );
  await call('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: subs.map((id, i) => ({ subscriptionID: id, inputCode: 'M', readingDate: '31/01/2026', value: String(10 + i) })) }));
  const made = await call('/billing/terms/make-term', envelope('Create', 'Create Bill Term', { serviceCode: 'READS', batchCode: 'READS', billingPeriodID: 202601, startDate: '01/01/2026', endDate: '31/01/2026' }, true));
  const termID = Number(made.headers.get('x-billrun-term-id'));
  const worker = start([path.join(root, 'src/main.ts'), 'worker']);
  await call('/billing/terms/process-term', envelope('Update', 'Process Term', { termID }, true));
  for (let i = 0; ; i++) {
    const t = (await call('/billing/terms/get-terms', envelope('Retrieve', 'Retrieve Terms', { termID }, true))).json.data.terms[0];
    if (t.status === 'Processed') break;
    if (i > 600) throw new Error(`term ${termID} is ${t.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop(worker);
  const billID: number = (await call('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID, limit: 1 }))).json.data.bills[0].billID;
  await until(`http://127.0.0.1:${barePort}/ready`, true);
  const serverDb = dbUrl;

  type Read = { name: string; url: string; body: string; headers: Record<string, string> };
  const reads: Read[] = [
    { name: 'bare Fastify route', url: `http://127.0.0.1:${barePort}/bare`, body: JSON.stringify(envelope('Retrieve', 'Hello', {})), headers: { 'content-type': 'application/json' } },
    {
      name: FLOOR,
      url: `http://127.0.0.1:${barePort}/floor`,
      body: JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'READS' }),
      headers: { 'content-type': 'application/json' },
    },
    { name: 'get-services (1 template)', url: `${base}/billing/services/get-services`, body: JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'READS' }), headers },
    { name: 'get-bills (1 bill)', url: `${base}/billing/bills/get-bills`, body: JSON.stringify(envelope('Retrieve', 'Retrieve Bills', { billID })), headers },
    { name: 'get-terms (1 term)', url: `${base}/billing/terms/get-terms`, body: JSON.stringify(envelope('Retrieve', 'Retrieve Terms', { termID }, true)), headers },
  ].filter((r, i) => i <= 1 || only === undefined || r.name.startsWith(only));
  // Statements run in the server's database: pg_stat_statements' calls when the server has it
  // loaded (shared_preload_libraries), else committed transactions (each read outside a
  // transaction is one per query). The second undercounts: PostgreSQL 15 counted one
  // commit for 200 runs of a prepared statement of get-services, where pg_stat_statements
  // counted 200.
  let byStatements = false;
  if (serverDb) {
    const c = new pg.Client({ connectionString: serverDb });
    await c.connect();
    try {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.query('SELECT count(*) FROM pg_stat_statements');
      byStatements = true;
    } catch {
      // not loaded: counted by transactions
    } finally {
      await c.end();
    }
  }
  const commits = async (): Promise<number | undefined> => {
    if (!serverDb) return undefined;
    const c = new pg.Client({ connectionString: serverDb });
    await c.connect();
    try {
      await c.query('SELECT pg_stat_clear_snapshot()');
      const r = await c.query<{ n: string }>(
        byStatements
          ? 'SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())'
          : 'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      return Number(r.rows[0]!.n);
    } finally {
      await c.end();
    }
  };
  const drive = (r: Read, duration: number) => autocannon({ url: r.url, method: 'POST', body: r.body, headers: r.headers, duration, connections });
  const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
  // Queries per request, quietly. A backend publishes its counts some time after going idle
  // (up to ten seconds in PostgreSQL 15), so each count is read once it has stopped moving:
  // read after a fixed two seconds, the set-up's late counts fell into the calibration and
  // the first read's into the next, and get-services showed 0.04 queries a request where
  // pg_stat_statements counted one. Each reading of the count is itself a few transactions
  // (own, the same every time, published by the next reading): learned first, then taken off.
  let readings = 0;
  const counted = async () => {
    readings++;
    return (await commits())!;
  };
  const queriesPerRequest = new Map<string, number>();
  if (serverDb) {
    let own = Infinity;
    for (let i = 0, last = await counted(); i < 8; i++) {
      await sleep(250);
      const now = await counted();
      own = Math.min(own, now - last);
      last = now;
    }
    /** The count once it has stopped moving but for the counting itself, less the counting's own transactions. */
    const settled = async (): Promise<number> => {
      let last = await counted();
      for (let quiet = 0, i = 0; quiet < 3 && i < 60; i++) {
        await sleep(500);
        const now = await counted();
        quiet = now - last === own ? quiet + 1 : 0;
        last = now;
      }
      return last - own * (readings - 1);
    };
    for (const r of reads.slice(1)) {
      const before = await settled();
      for (let i = 0; i < 200; i++) {
        const res = await fetch(r.url, { method: 'POST', headers: r.headers, body: r.body });
        if (res.status !== 200) throw new Error(`${r.name}: ${res.status} ${await res.text()}`);
      }
      const after = await settled();
      queriesPerRequest.set(r.name, (after - before) / 200);
    }
  }
  // What each answer weighs: a read's cost grows with the bytes it sends.
  const bytes = new Map<string, number>();
  for (const r of reads) {
    const res = await fetch(r.url, { method: 'POST', headers: r.headers, body: r.body });
    bytes.set(r.name, (await res.arrayBuffer()).byteLength);
  }
  const rows: { name: string; rps: number; p99: number; errors: number; perRequest: number | undefined; cpu: string }[] = [];
  // CPU per request, by process: the server (billrun's or the bare one), PostgreSQL (embedded only), the load (this process).
  const cpuNow = (bare: boolean) => ({
    ...(({ user, system }) => ({ server: user + system, serverSystem: system }))(userSystemSeconds((bare ? bareServer : server).pid!)),
    db: machineUrl ? 0 : databaseCpu(dataDir),
    load: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  for (const r of reads) {
    const w = await drive(r, warmup);
    if (w.non2xx + w.errors > 0) throw new Error(`${r.name}: warm-up had ${w.non2xx} non-2xx answers, ${w.errors} errors`);
    const bare = r === reads[0];
    const onBare = bare || r.name === FLOOR;
    const before = cpuNow(onBare);
    const result = await drive(r, seconds);
    const after = cpuNow(onBare);
    const n = result.requests.total;
    const us = (k: 'server' | 'serverSystem' | 'db' | 'load') => Math.round(((after[k] - before[k]) * 1e6) / n);
    const cpu = `server ${us('server')} (system ${us('serverSystem')}), ${machineUrl ? '' : bare ? '' : `PostgreSQL ${us('db')}, `}load ${us('load')} µs a request`;
    rows.push({ name: r.name, rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts, perRequest: queriesPerRequest.get(r.name), cpu });
  }
  const bareRps = rows[0]!.rps;
  const load = os.loadavg().map((x) => x.toFixed(2)).join(', ');
  console.log(`API reads: ${connections} connections, ${warmup} s warm-up, ${seconds} s each, one after another; load average ${load} (${os.cpus().length} CPUs)`);
  console.log(`  ${'read'.padEnd(28)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(7)} ${'of bare'.padStart(8)} ${'queries/req'.padStart(12)} ${'bytes'.padStart(7)}  target (≥ 20% of bare, ≥ 10,000/s, p99 ≤ 5 ms)`);
  for (const r of rows) {
    const ratio = r.rps / bareRps;
    const bare = r === rows[0];
    const verdict = bare ? '' : r.name === FLOOR ? 'no billrun in it: what one query costs' : ratio >= 0.2 && r.rps >= 10_000 && r.p99 <= 5 ? 'met' : `${ratio >= 0.2 ? 'ratio met' : 'ratio MISSED'}, ${r.rps >= 10_000 ? '10,000/s met' : '10,000/s MISSED'}, ${r.p99 <= 5 ? 'p99 met' : 'p99 MISSED'}`;
    console.log(
      `  ${r.name.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p99).padStart(7)} ${(ratio * 100).toFixed(1).padStart(7)}% ${(r.perRequest === undefined ? '-' : r.perRequest.toFixed(2)).padStart(12)} ${String(bytes.get(r.name) ?? '-').padStart(7)}  ${verdict}${r.errors ? `  (${r.errors} errors)` : ''}\n      cpu: ${r.cpu}`,
    );
  }
  const floor = rows.find((r) => r.name === FLOOR);
  if (floor !== undefined) {
    const reads = rows.filter((r) => r !== rows[0] && r !== floor).map((r) => `${r.name.split(' ')[0]} ${((r.rps / floor.rps) * 100).toFixed(1)}%`);
    console.log(`  of the floor's requests a second: ${reads.join(', ')}; the floor is ${((floor.rps / bareRps) * 100).toFixed(1)}% of the bare route`);
  }
  if (!serverDb) console.log('  (queries per request are counted on the machine PostgreSQL only: set DATABASE_URL)');
  else console.log(`  (queries per request counted by ${byStatements ? 'pg_stat_statements' : 'committed transactions, which undercount prepared statements: load pg_stat_statements for the true count'})`);
  if (cpuProf) console.log(`  server CPU profile in ${profDir} (written when the server exits)`);
} finally {
  for (const c of children.reverse()) await stop(c);
  if (machineUrl && dbName) {
    const c = new pg.Client({ connectionString: machineUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
}
