// A whole bill run on the embedded PostgreSQL: the tests' water template (a flat charge,
// three graduated metered tiers, a percentage surcharge and VAT); N subscriptions with
// readings; from process-term to every bill written, by worker processes that take the
// run's jobs from the queue. Prints bills per second, each process's peak memory, and
// the floor: the time to COPY the same bills into the same table, measured here.
// Also prints the bytes stored per bill (table, TOAST and indexes over the bills; target
// 700) and each worker's peak RSS against the target of 300 MiB.
// Flags: --port=P (the embedded PostgreSQL's port, default 54372: another checkout's bench
// may hold it), --million (N = 1,000,000), --n=N (default 100,000), --workers=K (default 1),
// --concurrency=C (jobs per worker process, default 1), --chunk=S (default 5000),
// --suspended=P (P% of the subscriptions suspended from 11 to 20 November, through
// subscription_event rows as suspend/resume write them, and one in ten of those
// suspended all term instead, so left off the roster; default 0), --version-change (the
// template gets a version effective 16 November, saved after the term is made, so every
// bill is rated in two segments; every second subscription has a reading on 16 November,
// splitting its consumption by the readings, the others by days: compare with the same
// run without the flag, target within 1.3x).
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
import { waterService } from '../test/fixtures/tariffs.ts';

// `--n=20000` (bench/run.ts passes on only arguments that start with a dash) or `--n 20000`.
const arg = (name: string, fallback: number) => {
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  if (eq) return Number(eq.slice(name.length + 1));
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 100_000);
const WORKERS = arg('--workers', 1);
const CONCURRENCY = arg('--concurrency', 1);
const CHUNK = arg('--chunk', 5000);
const SUSPENDED = arg('--suspended', 0);
const VERSION_CHANGE = process.argv.includes('--version-change');
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-billrun'), port: arg('--port', 54372), database: 'postgres' });
const adminUrl = server.url;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench');
await admin.end();
const url = adminUrl.replace(/\/postgres$/, '/billrun_bench');
await migrate(url);
const db = createPool(url, 4);
const children: ChildProcess[] = [];

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: 'bench@billrun.test', role: 'admin', tokenHash: Buffer.alloc(0) };
  // The tests' tariff (test/terms/billRun.test.ts proves its bills), not a copy of it.
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
     SELECT $1, a.account_id, s.service_id, b.batch_id,
            CASE WHEN a.account_id % 50 = 0 THEN date '2026-11-16' ELSE date '2020-01-01' END, 'bench', 'bench'
       FROM account a, service s, batch b WHERE a.app_code = $1 AND s.app_code = $1 AND b.app_code = $1`,
    [appCode],
  );
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
  let unbilled = 0;
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
  say(`setup: ${N} accounts, subscriptions and 2 readings each${SUSPENDED > 0 ? `, ${SUSPENDED}% suspended (${unbilled} all term)` : ''} in ${secs(Date.now() - t0)} s`);

  const termId = await makeTerm(db, caller, {
    serviceCode: 'WATER',
    batchCode: 'ZONE-A',
    billingPeriodID: 202611,
    startDate: '01/11/2026',
    endDate: '30/11/2026',
  });

  if (VERSION_CHANGE) {
    // Version 2 from 16/11/2026: the standing charge and the water rates up by half.
    const components = (service.components ?? []).map((c) =>
      c.model === 'flat' ? { ...c, amount: '225.00' } : c.model === 'graduated' ? { ...c, tiers: c.tiers.map((t) => ({ ...t, rate: String(Number(t.rate) * 1.5) })) } : c,
    );
    await updateService(db, caller, { ...service, components }, '16/11/2026');
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
  for (let i = 0; i < WORKERS; i++) {
    children.push(spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  }
  // Let the workers connect and migrate-check before the clock starts.
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

  t0 = Date.now();
  await processTerm(db, caller, Number(termId), undefined);
  let planned = 0;
  for (;;) {
    const r = await db.query('SELECT status, chunks_total, chunks_done, bill_count, failure_count, job_last_error FROM term WHERE term_id = $1', [termId]);
    const t = r.rows[0];
    if (!planned && t.chunks_total > 0) planned = Date.now() - t0;
    sample();
    if (t.status === 'Processed' || t.status === 'Failed') {
      if (t.status === 'Failed') throw new Error(`the run failed: ${t.job_last_error}`);
      if (t.bill_count !== N - unbilled) throw new Error(`${t.bill_count} bills and ${t.failure_count} failures for ${N} subscriptions, ${unbilled} suspended all term`);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const runMs = Date.now() - t0;
  const check = await db.query(
    `SELECT count(*)::int AS bills, count(DISTINCT subscription_id)::int AS subs, min(bill_number) AS lo, max(bill_number) AS hi,
            pg_size_pretty(pg_total_relation_size('bill')) AS size FROM bill WHERE term_id = $1`,
    [termId],
  );
  const c = check.rows[0];
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
  const perBill = (Number(size.heap) + Number(size.toast) + Number(size.indexes)) / (N - unbilled);

  say(`run: ${N - unbilled} bills in ${secs(runMs)} s (plan ${secs(planned)} s) = ${Math.round((N - unbilled) / (runMs / 1000))} bills/s, ${WORKERS} worker process(es) x ${CONCURRENCY} jobs, chunks of ${CHUNK}`);
  say(`check: ${c.bills} bills, ${c.subs} subscriptions, numbers ${c.lo}..${c.hi}; bill table ${c.size}`);
  say(
    `stored: ${Math.round(perBill)} bytes a bill (heap ${Math.round(size.heap / (N - unbilled))}, toast ${Math.round(size.toast / (N - unbilled))}, indexes ${Math.round(size.indexes / (N - unbilled))}; ` +
      `a row ${Math.round(size.row)}, of which lines ${Math.round(size.lines)} and source ${Math.round(size.source)}) = ${(perBill / 700).toFixed(2)} of the target 700`,
  );
  for (const [pid, mib] of peak) say(`peak RSS of worker ${pid}: ${Math.round(mib)} MiB = ${(mib / 300).toFixed(2)} of the target 300`);
  say(`peak RSS of this process (setup, polling): ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
  for (const ch of children) ch.kill('SIGTERM');

  // The floor: the same bill rows, COPY'd into the same (emptied) table with its indexes.
  const file = path.join(root, '.data/bench-billrun-floor.copy');
  const out = await db.connect();
  try {
    await pipeline(out.query(copyTo(`COPY (SELECT ${BILL_COPY_COLUMNS} FROM bill WHERE term_id = ${Number(termId)}) TO STDOUT`)), fs.createWriteStream(file));
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
} finally {
  for (const ch of children) if (ch.exitCode === null) ch.kill('SIGTERM');
  await db.end();
  await server.stop();
}
process.exit(0);
