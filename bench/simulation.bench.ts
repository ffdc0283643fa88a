// A tariff simulation on the embedded PostgreSQL: the tests' water template, N
// subscriptions with readings (the bill run bench's data), a loaded term, and a draft with
// the second tier 10% higher simulated by worker processes taking the simulation's chunk
// jobs from the queue. Prints subscriptions per second (each rated twice: by the term's
// tariff and by the draft), each worker's peak memory and, with --solve, the time to
// solve that tier's rate revenue-neutral (one rating of the roster per step of the search).
// Prints the time a million would take at the rate measured and its ratio to the target
// (issue 13: 1,000,000 subscriptions in 60 s with two worker processes).
// Flags: --n=N (default 20,000), --million (N = 1,000,000), --workers=K (default 2),
// --chunk=S (default 5000), --concurrency=C (jobs per worker process, default 1), --solve,
// --prof (a CPU profile of each worker).
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
import { loadSubscriptions } from '../src/terms/loadSubscriptions.ts';
import { simulateTariff } from '../src/simulation/simulateTariff.ts';
import { waterService } from '../test/fixtures/tariffs.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 20_000);
const TARGET_SECONDS_PER_MILLION = 60;
const WORKERS = arg('--workers', 2);
const CONCURRENCY = arg('--concurrency', 1);
const CHUNK = arg('--chunk', 5000);
const SOLVE = process.argv.includes('--solve');
// --prof: each worker writes a V8 CPU profile (.cpuprofile) into .data/simulation-prof when it stops.
const PROF = process.argv.includes('--prof');
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-simulation'), port: 25373, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_sim WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_sim');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_sim');
await migrate(url);
const db = createPool(url, 4);
const children: ChildProcess[] = [];

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: 'bench@billrun.test', role: 'admin', tokenHash: Buffer.alloc(0) };
  // The tests' tariff (test/simulation/simulation.test.ts proves its differences).
  const service = waterService('WATER');
  await makeService(db, caller, service);
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
  // 0 to 59 m3 in November: bills in each of the three tiers.
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
     SELECT $1, s.subscription_id, 'METER', d.day, CASE WHEN d.n = 1 THEN (s.subscription_id * 37) % 90000 ELSE (s.subscription_id * 37) % 90000 + (s.subscription_id * 7) % 60 END, 'bench'
       FROM subscription s, (VALUES (1, date '2026-10-31'), (2, date '2026-11-30')) AS d(n, day) WHERE s.app_code = $1`,
    [appCode],
  );
  await db.query('ANALYZE');
  const termID = Number(await makeTerm(db, caller, { serviceCode: 'WATER', batchCode: 'ZONE-A', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' }));
  await loadSubscriptions(db, caller, termID);
  say(`setup: ${N} accounts, subscriptions and 2 readings each, roster loaded, in ${secs(Date.now() - t0)} s`);

  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: String(CONCURRENCY), BILLRUN_CHUNK_SIZE: String(CHUNK) };
  for (let i = 0; i < WORKERS; i++) children.push(spawn(process.execPath, [...(PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, '.data/simulation-prof')}`] : []), path.join(root, 'src/main.ts'), 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  for (;;) {
    const r = await db.query('SELECT count(*)::int AS n FROM worker_heartbeat');
    if (r.rows[0].n >= WORKERS) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const peak = new Map<number, number>();
  const sample = () => {
    for (const c of children) {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${c.pid}/status`, 'utf8'));
        if (m) peak.set(c.pid!, Math.max(peak.get(c.pid!) ?? 0, Number(m[1]) / 1024));
      } catch {}
    }
  };
  const components = structuredClone(service.components!) as any[];
  components[1].tiers[1].rate = '77';
  const draft = { values: service.values, meteredInputs: service.meteredInputs, components };

  const run = async (what: string, data: Record<string, unknown>) => {
    t0 = Date.now();
    const id = await simulateTariff(db, caller, { termID, draft, background: true, ...data } as never, { chunkSize: CHUNK });
    let planned = 0;
    for (;;) {
      const r = await db.query('SELECT status, chunks_total, summary, solve, last_error FROM simulation WHERE simulation_id = $1', [id]);
      const s = r.rows[0];
      if (!planned && s.chunks_total > 0) planned = Date.now() - t0;
      sample();
      if (s.status === 'Failed') throw new Error(`the simulation failed: ${s.last_error}`);
      if (s.status === 'Done') {
        const ms = Date.now() - t0;
        const rated = s.summary.rated + s.summary.failed;
        say(`${what}: ${rated} subscriptions (two ratings each) in ${secs(ms)} s (plan ${secs(planned)} s) = ${Math.round(rated / (ms / 1000))} subscriptions/s, ${WORKERS} worker process(es) x ${CONCURRENCY} jobs, chunks of ${CHUNK}`);
        const perMillion = (ms / 1000) * (1_000_000 / rated);
        say(`  ${secs(perMillion * 1000)} s per million (target ${TARGET_SECONDS_PER_MILLION} s): ratio ${(perMillion / TARGET_SECONDS_PER_MILLION).toFixed(2)}${perMillion <= TARGET_SECONDS_PER_MILLION ? ', met' : ', not met'}`);
        say(`  revenue ${s.summary.current.total} -> ${s.summary.draft.total} (${s.summary.difference.total}); ${s.summary.failed} not rated`);
        if (s.solve?.answer) say(`  solved: rate ${s.solve.answer.rate} gives ${s.solve.answer.revenue} (target ${s.solve.answer.targetRevenue}) after ${s.solve.answer.evaluations} ratings of the roster`);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await run('simulation', {});
  if (SOLVE) await run('simulation with a revenue-neutral solve of the tier rate', { solve: { componentCode: 'WATER', tierIndex: 1, target: 'revenueNeutral' } });
  const size = await db.query(`SELECT pg_size_pretty(pg_total_relation_size('simulation_result')) AS s`);
  say(`simulation_result table: ${size.rows[0].s}`);
  // A page of results rates its rows again from their inputs (resultLines.ts): its time.
  const { withResultLines } = await import('../src/simulation/resultLines.ts');
  const { readSimulation, resultPage } = await import('../src/simulation/store.ts');
  const last = await db.query('SELECT max(simulation_id) AS id FROM simulation');
  const sim = (await readSimulation(db, last.rows[0].id))!;
  t0 = Date.now();
  const page = await withResultLines(sim, (await resultPage(db, sim, { limit: 100, offset: 0 })).rows);
  say(`a page of ${page.length} results, largest rise first, with both bills' lines: ${Date.now() - t0} ms`);
  // The whole CSV export, read to its end (one cursor over every result).
  const { exportSimulation } = await import('../src/simulation/exportSimulation.ts');
  t0 = Date.now();
  const csv = await exportSimulation(db, sim.app_code, { simulationID: Number(sim.simulation_id), sort: '-difference' });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of csv.payload as AsyncIterable<string>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
  }
  say(`export-simulation, largest rise first: ${lines - 1} rows, ${(bytes / 1048576).toFixed(1)} MiB of CSV in ${secs(Date.now() - t0)} s`);
  for (const [pid, mib] of peak) say(`peak RSS of worker ${pid}: ${Math.round(mib)} MiB`);
  say(`peak RSS of this process (setup, polling): ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
} finally {
  for (const ch of children) if (ch.exitCode === null) ch.kill('SIGTERM');
  // A worker writes its profile as it exits: wait for them.
  await Promise.all(children.map((ch) => (ch.exitCode === null ? new Promise((r) => ch.once('exit', r)) : null)));
  await db.end();
  await server.stop();
}
process.exit(0);
