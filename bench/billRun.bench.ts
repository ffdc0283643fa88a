// A whole bill run on the embedded PostgreSQL: the tests' water template (a flat charge,
// three graduated metered tiers, a percentage surcharge and VAT); N subscriptions with
// readings; from process-term to every bill written, by worker processes that take the
// run's jobs from the queue. Prints bills per second, each process's peak memory, and
// the floor: the time to COPY the same bills into the same table, measured here.
// Also prints the bytes stored per bill (table, TOAST and indexes over the bills; target
// 700) and each worker's peak RSS against the target of 300 MiB.
// Flags: --port=P (the embedded PostgreSQL's port, default 25372: another checkout's bench
// may hold it), --million (N = 1,000,000), --n=N (default 100,000), --workers=K (default 1),
// --concurrency=C (jobs per worker process, default 1), --chunk=S (default 5000),
// --suspended=P (P% of the subscriptions suspended from 11 to 20 November, through
// subscription_event rows as suspend/resume write them, and one in ten of those
// suspended all term instead, so left off the roster; default 0), --version-change (the
// template gets a version effective 16 November, saved after the term is made, so every
// bill is rated in two segments; every second subscription has a reading on 16 November,
// splitting its consumption by the readings, the others by days: compare with the same
// run without the flag, target within 1.3x), --post-account (N subscriptions on N/2
// accounts, two each with ids N/2 apart; the same subscriptions billed twice in this
// run, first by a Post Subscription term, then, that term cancelled and its bills
// removed, by a Post Account term: prints both times and their ratio, target within 1.2x),
// --plan-only (no worker processes: the plan job's work, planRun, is run in this process
// and timed, then the bench stops), --explain (with --plan-only: pg_stat_statements and
// auto_explain's EXPLAIN (ANALYZE, BUFFERS) of every statement of the plan over 100 ms),
// --statements (a full run: pg_stat_statements over the run, each statement's time a bill),
// --reuse (with --plan-only: keep the last setup of the same N), --port=P (a server of its own),
// --cpu-prof (each worker process writes a V8 CPU profile to .data/profiles/ when the run ends:
// open it in Chrome's DevTools, or summarise it with `node bench/profile.ts FILE`).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import type { Caller } from '../src/auth/roles.ts';
import { makeService } from '../src/templates/makeService.ts';
import { updateService } from '../src/templates/updateService.ts';
import { makeTerm } from '../src/terms/makeTerm.ts';
import { processTerm } from '../src/terms/processTerm.ts';
import { BILL_COPY_COLUMNS } from '../src/bills/store.ts';
import { raisedWater, waterService } from '../test/fixtures/tariffs.ts';
import { cpuSeconds, databaseCpu as serverCpu } from './cpu.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 100_000);
const WORKERS = arg('--workers', 1);
const CONCURRENCY = arg('--concurrency', 1);
const CHUNK = arg('--chunk', 5000);
const SUSPENDED = arg('--suspended', 0);
const VERSION_CHANGE = process.argv.includes('--version-change');
const POST_ACCOUNT = process.argv.includes('--post-account');
const ACCOUNTS = POST_ACCOUNT ? Math.ceil(N / 2) : N;
if (POST_ACCOUNT && (SUSPENDED > 0 || VERSION_CHANGE)) throw new Error('--post-account is measured alone (without --suspended or --version-change)');
const PLAN_ONLY = process.argv.includes('--plan-only');
const CPU_PROF = process.argv.includes('--cpu-prof');
const REUSE = PLAN_ONLY && !POST_ACCOUNT && process.argv.includes('--reuse');
const EXPLAIN = PLAN_ONLY && process.argv.includes('--explain');
// --statements (a full run): pg_stat_statements over the run, the statements by time, so
// the database's part of a bill can be split by statement (issue 12: a term spanning a version change).
const STATEMENTS = !PLAN_ONLY && process.argv.includes('--statements');
/** The plan (roster, the run's check, the chunks) of 1,000,000 subscriptions: issue 15's target. */
const PLAN_TARGET_S = 3;
const root = path.resolve(import.meta.dirname, '..');
// Workers started as `npm run worker` starts them (its Node flags too): package.json's script is the one owner.
const WORKER_COMMAND = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.worker as string).split(/\s+/).slice(1);
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);

// --port=P: a server of its own (its own data folder), so two benches can run side by side.
const PORT = arg('--port', 25372);
const dataDir = path.join(root, PORT === 25372 ? '.data/bench-billrun' : `.data/bench-billrun-${PORT}`);
let server = await startEmbedded({ dataDir, port: PORT, database: 'postgres' });
const adminUrl = server.url;
let admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
if (EXPLAIN || STATEMENTS) {
  // pg_stat_statements must be loaded when the server starts: set, restart, and reset at the end.
  await admin.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await admin.end();
  await server.stop();
  server = await startEmbedded({ dataDir, port: PORT, database: 'postgres' });
  admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('ALTER SYSTEM RESET shared_preload_libraries');
}
const url = adminUrl.replace(/\/postgres$/, '/billrun_bench');
// --reuse (with --plan-only): the subscriptions and readings of the last run of the same N are kept
// (a setup of 1,000,000 takes minutes), its terms cancelled and its run's rows emptied.
const reused = REUSE && (await previousSetup());
if (!reused) {
  await admin.query('DROP DATABASE IF EXISTS billrun_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE billrun_bench');
}
await admin.end();
await migrate(url);
const db = createPool(url, 4);
const children: ChildProcess[] = [];

try {
  const appCode = reused ? reused.appCode : await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: 'bench@billrun.test', role: 'admin', tokenHash: Buffer.alloc(0) };
  // The tests' tariff (test/terms/billRun.test.ts proves its bills), not a copy of it.
  const service = waterService('WATER');
  if (!reused) await makeService(db, caller, service);

  let t0 = Date.now();
  let unbilled = 0;
  if (!reused) {
    await db.query(
      `INSERT INTO account (app_code, account_number, name, created_by, modified_by)
       SELECT $1, 'ACC-' || g, 'Customer ' || g, 'bench', 'bench' FROM generate_series(1, $2) g`,
      [appCode, ACCOUNTS],
    );
    // --post-account: a second pass gives each account its second subscription, N/2 ids on.
    for (let pass = 0; pass < (POST_ACCOUNT ? 2 : 1); pass++) {
      await db.query(
        `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
         SELECT $1, a.account_id, s.service_id, b.batch_id,
                CASE WHEN a.account_id % 50 = 0 THEN date '2026-11-16' ELSE date '2020-01-01' END, 'bench', 'bench'
           FROM account a, service s, batch b WHERE a.app_code = $1 AND s.app_code = $1 AND b.app_code = $1
            AND a.account_id <= (SELECT min(account_id) FROM account WHERE app_code = $1) + $2 - 1 - $3
          ORDER BY a.account_id`,
        [appCode, ACCOUNTS, pass === 1 ? ACCOUNTS - (N - ACCOUNTS) : 0],
      );
    }
    // Previous reading at the end of October, current at the end of November: 0 to 59 m3,
    // so bills fall in each of the three tiers.
    await db.query(
      `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
       SELECT $1, s.subscription_id, 'METER', d.day, CASE WHEN d.n = 1 THEN (s.subscription_id * 37) % 90000 ELSE (s.subscription_id * 37) % 90000 + (s.subscription_id * 7) % 60 END, 'bench'
         FROM subscription s, (VALUES (1, date '2026-10-31'), (2, date '2026-11-30')) AS d(n, day) WHERE s.app_code = $1`,
      [appCode],
    );
    // Every (100 / P)th subscription is suspended for 10 days; every tenth of those since
    // October and not resumed (suspended all term: no bill).
    if (SUSPENDED > 0) {
      const every = Math.max(1, Math.round(100 / SUSPENDED));
      await db.query(
        `INSERT INTO subscription_event (app_code, subscription_id, kind, effective_date, created_by)
         SELECT $1, s.subscription_id, k.kind, k.day, 'bench'
           FROM subscription s, (VALUES (1, 'suspended', date '2026-11-11'), (2, 'resumed', date '2026-11-21')) AS k(n, kind, day)
          WHERE s.app_code = $1 AND s.subscription_id % $2 = 0 AND s.subscription_id % ($2 * 10) <> 0
          UNION ALL
         SELECT $1, s.subscription_id, 'suspended', date '2026-10-15', 'bench'
           FROM subscription s WHERE s.app_code = $1 AND s.subscription_id % ($2 * 10) = 0`,
        [appCode, every],
      );
      unbilled = (await db.query('SELECT count(*)::int AS n FROM subscription WHERE app_code = $1 AND subscription_id % $2 = 0', [appCode, every * 10])).rows[0].n;
    }
    await db.query('ANALYZE');
  }
  say(`setup${reused ? ' (reused)' : ''}: ${ACCOUNTS} accounts, ${N} subscriptions and 2 readings each${SUSPENDED > 0 ? `, ${SUSPENDED}% suspended (${unbilled} all term)` : ''} in ${secs(Date.now() - t0)} s`);

  const termId = await makeTerm(db, caller, {
    serviceCode: 'WATER',
    batchCode: 'ZONE-A',
    billingPeriodID: 202611,
    startDate: '01/11/2026',
    endDate: '30/11/2026',
  });

  if (VERSION_CHANGE) {
    // Version 2 from 16/11/2026: the standing charge and the water rates up by half.
    await updateService(db, caller, raisedWater(service), '16/11/2026');
    await db.query(
      `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
       SELECT $1, s.subscription_id, 'METER', date '2026-11-16', (s.subscription_id * 37) % 90000 + ((s.subscription_id * 7) % 60) / 2, 'bench'
         FROM subscription s WHERE s.app_code = $1 AND s.subscription_id % 2 = 0 AND s.start_date < date '2026-11-16'`,
      [appCode],
    );
    await db.query('ANALYZE reading');
    say('version change: version 2 in force from 16/11/2026; a reading on 16/11 for every second subscription');
  }

  const env = {
    ...process.env,
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    BILLRUN_CHUNK_SIZE: String(CHUNK),
  };
  if (PLAN_ONLY) {
    await planHere(termId, caller);
    await db.end();
    if (EXPLAIN) await admin.end();
    await server.stop();
    process.exit(0);
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

  /** Processes the term with fresh worker processes, from process-term to Processed; stops the workers. */
  const runTerm = async (id: string, expected: number, label: string) => {
    await db.query('DELETE FROM worker_heartbeat');
    for (let i = 0; i < WORKERS; i++) {
      const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(root, '.data/profiles')}`] : [];
      if (process.env.BENCH_NODE_FLAGS) prof.push(...process.env.BENCH_NODE_FLAGS.split(' '));
      children.push(spawn(process.execPath, [...prof, ...WORKER_COMMAND], { env, cwd: root, stdio: ['ignore', process.env.BENCH_NODE_FLAGS ? 'inherit' : 'ignore', 'inherit'] }));
    }
    // Let the workers connect and migrate-check before the clock starts.
    for (;;) {
      const r = await db.query('SELECT count(*)::int AS n FROM worker_heartbeat');
      if (r.rows[0].n >= WORKERS) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (STATEMENTS) {
      await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await db.query('SELECT pg_stat_statements_reset()');
    }
    const cpuBefore = { workers: workersCpu(), db: databaseCpu() };
    const t0 = Date.now();
    await processTerm(db, caller, Number(id), undefined);
    let planned = 0;
    for (;;) {
      const r = await db.query('SELECT status, chunks_total, chunks_done, bill_count, failure_count, job_last_error FROM term WHERE term_id = $1', [id]);
      const t = r.rows[0];
      if (!planned && t.chunks_total > 0) planned = Date.now() - t0;
      sample();
      if (t.status === 'Processed' || t.status === 'Failed') {
        if (t.status === 'Failed') throw new Error(`the run failed: ${t.job_last_error}`);
        if (t.bill_count !== expected) throw new Error(`${t.bill_count} bills and ${t.failure_count} failures for ${N} subscriptions, ${expected} bills expected`);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const runMs = Date.now() - t0;
    const cpu = { workers: workersCpu() - cpuBefore.workers, db: databaseCpu() - cpuBefore.db };
    const check = await db.query(
      `SELECT count(*)::int AS bills, count(DISTINCT coalesce(subscription_id, -account_id))::int AS subs, min(bill_number) AS lo, max(bill_number) AS hi,
              pg_size_pretty(pg_total_relation_size('bill')) AS size FROM bill WHERE term_id = $1`,
      [id],
    );
    const c = check.rows[0];
    say(`run${label}: ${expected} bills in ${secs(runMs)} s (plan ${secs(planned)} s) = ${Math.round(expected / (runMs / 1000))} bills/s, ${WORKERS} worker process(es) x ${CONCURRENCY} jobs, chunks of ${CHUNK}`);
    sayPlan(planned);
    say(`check: ${c.bills} bills, ${c.subs} distinct subscriptions (or accounts), numbers ${c.lo}..${c.hi}; bill table ${c.size}`);
    // Where the CPU went (docs/scale.md's model): the worker processes' own, and the
    // PostgreSQL server's (its backends, living and exited), over the run.
    const perBill = (sec: number) => `${Math.round((sec * 1e6) / expected)} µs a bill`;
    say(
      `cpu: workers ${cpu.workers.toFixed(1)} s (${perBill(cpu.workers)}), PostgreSQL ${cpu.db.toFixed(1)} s (${perBill(cpu.db)}), ` +
        `${((cpu.workers + cpu.db) / (runMs / 1000)).toFixed(2)} cores busy on average over the run`,
    );
    // Bytes stored per bill: the table, its TOAST and its indexes, over the bills; and what its
    // lines and source take in their rows (src/billLines/storedLines.ts).
    const size = (
      await db.query(
        `SELECT pg_relation_size('bill') AS heap, coalesce(pg_total_relation_size(reltoastrelid), 0) AS toast, pg_indexes_size('bill') AS indexes,
                (SELECT avg(pg_column_size(lines)) FROM bill) AS lines, (SELECT avg(pg_column_size(source)) FROM bill) AS source,
                (SELECT avg(pg_column_size(b.*)) FROM bill b) AS row
           FROM pg_class WHERE relname = 'bill'`,
      )
    ).rows[0];
    const stored = (Number(size.heap) + Number(size.toast) + Number(size.indexes)) / expected;
    say(
      `stored: ${Math.round(stored)} bytes a bill (heap ${Math.round(size.heap / expected)}, toast ${Math.round(size.toast / expected)}, indexes ${Math.round(size.indexes / expected)}; ` +
        `a row ${Math.round(size.row)}, of which lines ${Math.round(size.lines)} and source ${Math.round(size.source)}) = ${(stored / 700).toFixed(2)} of the target 700`,
    );
    if (STATEMENTS) {
      const top = await db.query(
        `SELECT round(total_exec_time)::int AS ms, calls, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY total_exec_time DESC LIMIT 12`,
      );
      say('pg_stat_statements over the run, by time (µs a bill, calls, rows):');
      for (const r of top.rows) say(`  ${String(Math.round((r.ms * 1000) / expected)).padStart(4)} µs  ${String(r.calls).padStart(6)}  ${String(r.rows).padStart(8)}  ${r.query}`);
    }
    for (const [pid, mib] of peak) say(`peak RSS of worker ${pid}: ${Math.round(mib)} MiB = ${(mib / 300).toFixed(2)} of the target 300`);
    peak.clear();
    // Stop the workers before anything else runs: the term's documents would otherwise
    // be rendered alongside the next run.
    // SIGKILL: the term is done, and a stop would wait for a document job to finish.
    // --cpu-prof: a profile is written only by a process that exits by itself (SIGINT is a stop).
    for (const ch of children.splice(0)) {
      ch.kill(CPU_PROF ? 'SIGINT' : 'SIGKILL');
      await new Promise((r) => (ch.exitCode !== null ? r(null) : ch.once('exit', r)));
    }
    await db.query(`DELETE FROM graphile_worker._private_jobs`);
    return runMs;
  };

  let runMs = await runTerm(termId, N - unbilled, POST_ACCOUNT ? ' (Post Subscription)' : '');
  say(`peak RSS of this process (setup, polling): ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
  if (POST_ACCOUNT) {
    // The same subscriptions again as one bill per account: the first term cancelled (its
    // period freed) and its bills removed, so both runs write into a table of the same size.
    const subscriptionMs = runMs;
    await db.query(`UPDATE term SET status = 'Cancelled' WHERE term_id = $1`, [termId]);
    await db.query('TRUNCATE bill CASCADE');
    await db.query('VACUUM ANALYZE bill');
    const accountTerm = await makeTerm(db, caller, { serviceCode: 'WATER', batchCode: 'ZONE-A', billingPeriodID: 202612, startDate: '01/11/2026', endDate: '30/11/2026', postType: 'Post Account' });
    const accountsBilled = ACCOUNTS;
    runMs = await runTerm(accountTerm, accountsBilled, ' (Post Account)');
    say(`post account: ${secs(runMs)} s for ${accountsBilled} account bills of ${N} subscriptions; post subscription: ${secs(subscriptionMs)} s for ${N - unbilled} bills`);
    say(`ratio: Post Account / Post Subscription = ${(runMs / subscriptionMs).toFixed(2)} (target: within 1.2)`);
  }

  if (!POST_ACCOUNT) {
    // The floor: the same bill rows, COPY'd into the same (emptied) table with its indexes.
    const file = path.join(root, `.data/bench-billrun-floor-${PORT}.copy`);
    const out = await db.connect();
    try {
      await pipeline(out.query(copyTo(`COPY (SELECT ${BILL_COPY_COLUMNS} FROM bill) TO STDOUT`)), fs.createWriteStream(file));
      await out.query('TRUNCATE bill CASCADE');
      await out.query('CHECKPOINT');
      t0 = Date.now();
      await pipeline(fs.createReadStream(file, { highWaterMark: 1 << 20 }), out.query(copyFrom(`COPY bill (${BILL_COPY_COLUMNS}) FROM STDIN`)));
    } finally {
      out.release();
    }
    const floorMs = Date.now() - t0;
    say(`floor: COPY of the same ${N} bills (${Math.round(fs.statSync(file).size / 1048576)} MiB) into the bill table in ${secs(floorMs)} s`);
    say(`ratio: run / floor = ${(runMs / floorMs).toFixed(2)} (target: within 2; 1,000,000 bills in 30 s with 2 worker processes, 50 s with 1)`);
    if (N === 1_000_000) say(`run / target: ${(runMs / 1000 / (WORKERS >= 2 ? 30 : 50)).toFixed(2)} (${WORKERS >= 2 ? 30 : 50} s with ${WORKERS} worker process(es))`);
    fs.rmSync(file, { force: true });
  }
} finally {
  if (EXPLAIN) await admin.end().catch(() => {});
  for (const ch of children) if (ch.exitCode === null) ch.kill('SIGTERM');
  await db.end();
  await server.stop();
}
process.exit(0);

function workersCpu(): number {
  return children.reduce((sum, c) => sum + cpuSeconds(c.pid!, true), 0);
}
function databaseCpu(): number {
  return serverCpu(dataDir);
}

/** --reuse: the app of the last run when it has N subscriptions, its terms cancelled and the run's tables emptied. */
async function previousSetup(): Promise<{ appCode: number } | undefined> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
  } catch {
    return undefined;
  }
  try {
    const r = await c.query(`SELECT a.app_code, (SELECT count(*)::int FROM subscription s WHERE s.app_code = a.app_code) AS n FROM app a WHERE a.name = 'Bench'`);
    if (r.rows[0]?.n !== N) return undefined;
    await c.query('TRUNCATE bill, term_subscription, term_chunk, term_failure CASCADE');
    await c.query(`UPDATE term SET status = 'Cancelled'`);
    await c.query('DELETE FROM graphile_worker._private_jobs');
    await c.query('VACUUM ANALYZE');
    return { appCode: r.rows[0].app_code };
  } finally {
    await c.end();
  }
}

/** The plan time against issue 15's target, scaled to 1,000,000 subscriptions when N is smaller (the plan is linear in the roster). */
function sayPlan(ms: number) {
  const at = (ms / 1000) * (1_000_000 / N);
  say(`plan: ${secs(ms)} s for ${N} subscriptions${N === 1_000_000 ? '' : ` (${at.toFixed(2)} s scaled to 1,000,000)`}; ratio to the ${PLAN_TARGET_S} s target for 1,000,000 = ${(at / PLAN_TARGET_S).toFixed(2)}`);
}

/** --plan-only: the plan job's work in this process, timed from process-term to the chunks queued; --explain adds where its time went. */
async function planHere(termId: string, caller: Caller) {
  const explained: string[] = [];
  let planDb = db;
  if (EXPLAIN) {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query('SELECT pg_stat_statements_reset()');
    const options = ['auto_explain.log_min_duration=100', 'auto_explain.log_analyze=on', 'auto_explain.log_buffers=on', 'auto_explain.log_nested_statements=on', 'auto_explain.log_level=notice']
      .map((o) => `-c ${o}`)
      .join(' ');
    planDb = new pg.Pool({ connectionString: url, max: 2, options: `-c session_preload_libraries=auto_explain ${options}` });
    planDb.on('connect', (c) => c.on('notice', (n) => explained.push(n.message ?? '')));
  }
  const { planRun } = await import('../src/billRun/planRun.ts');
  const t0 = Date.now();
  await processTerm(db, caller, Number(termId), undefined);
  const round = (await db.query('SELECT job_round FROM term WHERE term_id = $1', [termId])).rows[0].job_round;
  // The queued plan job is not run (no worker): its work, timed here.
  await planRun(planDb, termId, round, CHUNK, 'bench');
  const ms = Date.now() - t0;
  const t = (await db.query('SELECT status, chunks_total FROM term WHERE term_id = $1', [termId])).rows[0];
  if (t.status !== 'Processing' || t.chunks_total === 0) throw new Error(`the plan left the term ${t.status} with ${t.chunks_total} chunks`);
  say(`plan only: ${t.chunks_total} chunks of ${CHUNK} planned in process`);
  sayPlan(ms);
  if (!EXPLAIN) return;
  await planDb.end();
  const top = await db.query(
    `SELECT round(total_exec_time)::int AS ms, calls, rows, shared_blks_hit + shared_blks_read AS blocks, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC LIMIT 12`,
  );
  say('pg_stat_statements, the statements of the plan by time:');
  for (const r of top.rows) say(`  ${String(r.ms).padStart(6)} ms  ${String(r.calls).padStart(4)} calls  ${String(r.rows).padStart(8)} rows  ${String(r.blocks).padStart(8)} blocks  ${r.query}`);
  say('auto_explain, every statement over 100 ms:');
  for (const e of explained) say(e);
}
