// verify-term on the embedded PostgreSQL: N subscriptions of the tests' water template
// billed by a real run (worker processes, as bench/billRun.bench.ts), then every bill
// verified by fresh worker processes taking the verification's chunk jobs from the queue.
// Prints bills verified per second and each verifying process's peak memory.
// Flags: --n=N (default 20,000; --million for 1,000,000), --workers=K (default 1),
// --chunk=S (default 5000).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import type { Caller } from '../src/auth/roles.ts';
import { makeService } from '../src/templates/makeService.ts';
import { makeTerm } from '../src/terms/makeTerm.ts';
import { processTerm } from '../src/terms/processTerm.ts';
import { verifyTerm } from '../src/verification/termVerification.ts';
import { waterService } from '../test/fixtures/tariffs.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 20_000);
const WORKERS = arg('--workers', 1);
const CHUNK = arg('--chunk', 5000);
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-verify'), port: 25376, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_verify WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_verify');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_verify');
await migrate(url);
const db = createPool(url, 4);
let children: ChildProcess[] = [];

const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: '1', BILLRUN_CHUNK_SIZE: String(CHUNK) };
async function startWorkers(): Promise<void> {
  await db.query('DELETE FROM worker_heartbeat');
  children = [];
  for (let i = 0; i < WORKERS; i++) {
    children.push(spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  }
  for (;;) {
    const r = await db.query('SELECT count(*)::int AS n FROM worker_heartbeat');
    if (r.rows[0].n >= WORKERS) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function stopWorkers(): Promise<void> {
  await Promise.all(
    children.map((c) => (c.exitCode !== null ? undefined : new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGTERM'); }))),
  );
}
const poll = () => new Promise((r) => setTimeout(r, 50));

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: 'bench@billrun.test', role: 'admin', tokenHash: Buffer.alloc(0) };
  await makeService(db, caller, waterService('WATER'));
  let t0 = Date.now();
  await db.query(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by)
     SELECT $1, 'ACC-' || g, 'Customer ' || g, 'bench', 'bench' FROM generate_series(1, $2) g`,
    [appCode, N],
  );
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, a.account_id, s.service_id, b.batch_id, date '2020-01-01', 'bench', 'bench'
       FROM account a, service s, batch b WHERE a.app_code = $1 AND s.app_code = $1 AND b.app_code = $1`,
    [appCode],
  );
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
     SELECT $1, s.subscription_id, 'METER', d.day, CASE WHEN d.n = 1 THEN (s.subscription_id * 37) % 90000 ELSE (s.subscription_id * 37) % 90000 + (s.subscription_id * 7) % 60 END, 'bench'
       FROM subscription s, (VALUES (1, date '2026-10-31'), (2, date '2026-11-30')) AS d(n, day) WHERE s.app_code = $1`,
    [appCode],
  );
  await db.query('ANALYZE');
  say(`setup: ${N} accounts, subscriptions and 2 readings each in ${secs(Date.now() - t0)} s`);

  const termId = await makeTerm(db, caller, { serviceCode: 'WATER', batchCode: 'ZONE-A', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
  await startWorkers();
  t0 = Date.now();
  await processTerm(db, caller, Number(termId), undefined);
  for (;;) {
    const t = (await db.query('SELECT status, bill_count, job_last_error FROM term WHERE term_id = $1', [termId])).rows[0];
    if (t.status === 'Failed') throw new Error(`the run failed: ${t.job_last_error}`);
    if (t.status === 'Processed') break;
    await poll();
  }
  say(`bill run: ${N} bills in ${secs(Date.now() - t0)} s`);
  await stopWorkers();

  // Fresh processes: their peak memory is the verification's alone.
  await startWorkers();
  const peak = new Map<number, number>();
  const sample = () => {
    for (const c of children) {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${c.pid}/status`, 'utf8'));
        if (m) peak.set(c.pid!, Math.max(peak.get(c.pid!) ?? 0, Number(m[1]) / 1024));
      } catch {}
    }
  };
  t0 = Date.now();
  await verifyTerm(db, caller, Number(termId), CHUNK);
  let v;
  for (;;) {
    v = (await db.query('SELECT status, bills, mismatches, chunks_total FROM term_verification WHERE term_id = $1', [termId])).rows[0];
    sample();
    if (v.status !== 'running') break;
    await poll();
  }
  const ms = Date.now() - t0;
  if (v.status !== 'verified' || v.bills !== N) throw new Error(`verification ${JSON.stringify(v)} for ${N} bills`);
  say(`verify: ${v.bills} bills in ${secs(ms)} s = ${Math.round(v.bills / (ms / 1000))} bills/s verified, ${v.mismatches} mismatches, ${WORKERS} worker process(es), chunks of ${CHUNK} (${v.chunks_total})`);
  for (const [pid, mib] of peak) say(`peak RSS of verifying worker ${pid}: ${Math.round(mib)} MiB`);
  say(`target: a 1,000,000-bill term verified in 60 s (16,667 bills/s)`);
} finally {
  await stopWorkers().catch(() => {});
  await db.end();
  await server.stop();
}
process.exit(0);
