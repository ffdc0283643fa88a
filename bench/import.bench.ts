// Bulk import at a utility's scale (issue 15), measured from outside through the README's
// command line (`node src/main.ts import ...`, what `npm run cli -- import` runs), on the
// embedded PostgreSQL:
//   1. N accounts (number, name, e-mail, phone, address);
//   2. N subscriptions of those accounts, each with its meter number, rooms and opening reading;
//   3. 2N readings of those meters (two months), by accountNumber + serviceCode.
// Then the floor: a plain COPY of the same rows into the same tables of a fresh database,
// measured in the same run, kind by kind. Prints rows a second, the ratio to COPY and the
// peak memory (VmHWM) of each import process: it should stay flat as --rows grows.
// Prints the CPU seconds of each import process and of PostgreSQL beside the floor's, so a
// ratio says which side it waits for.
// Flags: --rows N (default 200,000; the issue's figure is --rows 1000000), --history=K (K past
// readings a meter before the readings import, in both databases), --cpu-prof
// (writes a V8 profile of each import process to .data/bench-import-prof/); BENCH_NODE_FLAGS adds
// Node flags to the import processes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import type { Caller } from '../src/auth/roles.ts';
import { makeService } from '../src/templates/makeService.ts';
import { waterService } from '../test/fixtures/tariffs.ts';
import { arg } from './args.ts';
import { cpuSeconds, databaseCpu } from './cpu.ts';

const N = arg('--rows', 200_000);
const PROFILE = process.argv.includes('--cpu-prof');
// --history=K: each meter has K readings already (daily, 2 to K+1 January 2025) before the readings import, in both
// databases, as a utility's meters have their past: the import must not pay for a meter's whole history.
const HISTORY = arg('--history', 0);
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
const BY = 'bench@billrun.test';
/** Issue 15's targets. */
const TARGET_RATE = 50_000;
const TARGET_RATIO = 1.5;

// The shared water template (test/fixtures/tariffs.ts) with the inputs the import's rows
// fill: a required meter number, rooms, and a meter read to 0.1 m3. Its price is not
// measured here, so a single per-unit line stands for the tiers.
const service = waterService('WATER', {
  values: [],
  components: [{ code: 'WATER', name: 'Water', model: 'perUnit', input: 'METER', rate: '50' }],
  connectionInputs: [{ code: 'METER_NO', label: 'Meter number', type: 'string', required: true }],
  meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'm3', decimals: 1, rolloverAt: 100000 }],
  unmeteredInputs: [{ code: 'ROOMS', label: 'Rooms', default: 1 }],
});

// One customer, the same in the CSV and in the COPY floor.
const customer = (i: number) => {
  const n = String(i).padStart(7, '0');
  return {
    accountNumber: `ACC-${n}`,
    name: `Customer ${i}`,
    email: `customer${i}@example.com`,
    phone: `+254 7${n}`,
    address: `${i} River Road, Nairobi`,
    meterNo: `M-${n}`,
    rooms: String((i % 6) + 1),
    reading: `${i % 90000}.5`,
  };
};
/** The two monthly readings of customer i's meter (month 1 or 2), above its opening reading. */
const monthly = (i: number, month: 1 | 2) => `${(i % 90000) + 10 * month}.5`;

const dataDir = path.join(root, '.data/bench-import');
const server = await startEmbedded({ dataDir, port: 25371, database: 'postgres' });
const adminUrl = server.url;

async function freshDatabase(name: string): Promise<{ db: pg.Pool; url: string; appCode: number; serviceId: string; batchId: string }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  await migrate(url);
  const db = createPool(url, 4);
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: BY, role: 'admin', tokenHash: Buffer.alloc(0) };
  const serviceId = await makeService(db, caller, service);
  const batch = await db.query<{ batch_id: string }>("SELECT batch_id FROM batch WHERE app_code = $1 AND batch_code = 'ZONE-A'", [appCode]);
  return { db, url, appCode, serviceId, batchId: batch.rows[0]!.batch_id };
}

async function writeFile(file: string, count: number, lines: (i: number) => string, header?: string): Promise<void> {
  const out = fs.createWriteStream(file);
  if (header) out.write(header);
  let buf = '';
  for (let i = 1; i <= count; i++) {
    buf += lines(i);
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** --history: K readings of each meter between its opening reading (01/01/2025) and the file's first (01/02/2025), rising. */
async function writeHistory(db: pg.Pool | pg.Client): Promise<void> {
  if (HISTORY === 0) return;
  const t = performance.now();
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, kind, source, created_by)
     SELECT s.app_code, s.subscription_id, 'METER', DATE '2025-01-01' + k, round(r.value + k * 10.0 / ($1 + 1), 1), 'actual', 'history', $2
       FROM subscription s JOIN reading r ON r.subscription_id = s.subscription_id AND r.reading_date = DATE '2025-01-01', generate_series(1, $1) k`,
    [HISTORY, BY],
  );
  await db.query('VACUUM ANALYZE reading');
  say(`  (history: ${HISTORY} readings a meter written in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
}

type Run = { ms: number; peakKb: number; out: string; cpu: number; dbCpu: number };

/**
 * One run of the command line: its wall time, its peak resident memory (VmHWM, read while
 * it runs), and the CPU seconds of its process and of PostgreSQL: which of the two an
 * import waits for (the process's, read until it exits, misses at most the last 50 ms).
 */
async function cliImport(url: string, appCode: number, kind: string, file: string): Promise<Run> {
  const profDir = path.join(root, '.data/bench-import-prof');
  const flags = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${kind}.cpuprofile`] : [];
  // Node flags for the command line's process, as billRun.bench.ts gives its workers.
  if (process.env.BENCH_NODE_FLAGS) flags.push(...process.env.BENCH_NODE_FLAGS.split(' '));
  const db0 = databaseCpu(dataDir);
  const t0 = performance.now();
  const child = spawn(process.execPath, [...flags, path.join(root, 'src/main.ts'), 'import', '--app', String(appCode), '--kind', kind, '--as', BY, file], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let peakKb = 0;
  let cpu = 0;
  const sample = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
      cpu = Math.max(cpu, cpuSeconds(child.pid!, false));
    } catch {
      // gone already
    }
  };
  const sampler = setInterval(sample, 50);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sampler);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`import --kind ${kind} exited with ${code}:\n${out}`);
  return { ms, peakKb, out: out.trim().split('\n').at(-1)!, cpu, dbCpu: databaseCpu(dataDir) - db0 };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billrun-import-bench-'));
let exitCode = 0;
try {
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  say(`# ${N} accounts, ${N} subscriptions (each with an opening reading), ${2 * N} readings${HISTORY > 0 ? `, ${HISTORY} readings of history a meter` : ''}; load average ${load}`);
  const files = { accounts: path.join(dir, 'accounts.csv'), subscriptions: path.join(dir, 'subscriptions.csv'), readings: path.join(dir, 'readings.csv') };
  await writeFile(files.accounts, N, (i) => {
    const c = customer(i);
    return `${c.accountNumber},${c.name},${c.email},${c.phone},"${c.address}"\n`;
  }, 'accountNumber,name,email,phone,address\n');
  await writeFile(files.subscriptions, N, (i) => {
    const c = customer(i);
    return `${c.accountNumber},WATER,ZONE-A,01/01/2025,${c.meterNo},${c.rooms},${c.reading}\n`;
  }, 'accountNumber,serviceCode,batchCode,startDate,connection.METER_NO,unmetered.ROOMS,reading.METER\n');
  await writeFile(files.readings, 2 * N, (k) => {
    const i = ((k - 1) >> 1) + 1;
    const month = (((k - 1) & 1) + 1) as 1 | 2;
    return `ACC-${String(i).padStart(7, '0')},WATER,METER,01/0${month + 1}/2025,${monthly(i, month)}\n`;
  }, 'accountNumber,serviceCode,inputCode,readingDate,value\n');

  // ---- the real imports, through the command line
  const a = await freshDatabase('billrun_bench_import');
  const runs: Record<string, Run & { rows: number }> = {};
  for (const kind of ['accounts', 'subscriptions', 'readings'] as const) {
    if (kind === 'readings') await writeHistory(a.db);
    const r = await cliImport(a.url, a.appCode, kind, files[kind]);
    runs[kind] = { ...r, rows: kind === 'readings' ? 2 * N : N };
    // Said at once: at a million rows on a busy machine a run is long, and a figure seen is worth keeping.
    say(`  ${kind}: ${(r.ms / 1000).toFixed(2)} s, ${Math.round(runs[kind]!.rows / (r.ms / 1000))} rows/s, peak RSS ${mib(r.peakKb)} (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  }
  const counted = await a.db.query<{ a: string; s: string; r: string }>(
    'SELECT (SELECT count(*) FROM account) AS a, (SELECT count(*) FROM subscription) AS s, (SELECT count(*) FROM reading) AS r',
  );
  await a.db.end();
  const c1 = counted.rows[0]!;
  if (Number(c1.a) !== N || Number(c1.s) !== N || Number(c1.r) !== (3 + HISTORY) * N) throw new Error(`the imports wrote ${JSON.stringify(c1)}, expected ${N} accounts and subscriptions, ${(3 + HISTORY) * N} readings`);

  // ---- the floor: plain COPY of the same rows into the same tables of a fresh database
  const b = await freshDatabase('billrun_bench_copy');
  const copyFiles = { account: path.join(dir, 'account.copy'), subscription: path.join(dir, 'subscription.copy'), opening: path.join(dir, 'opening.copy'), reading: path.join(dir, 'reading.copy') };
  await writeFile(copyFiles.account, N, (i) => {
    const c = customer(i);
    return `${i}\t${b.appCode}\t${c.accountNumber}\t${c.name}\t${c.email}\t${c.phone}\t${c.address}\t${BY}\t${BY}\n`;
  });
  await writeFile(copyFiles.subscription, N, (i) => {
    const c = customer(i);
    return `${i}\t${b.appCode}\t${i}\t${b.serviceId}\t${b.batchId}\t{"METER_NO": "${c.meterNo}"}\t{"ROOMS": "${c.rooms}"}\t2025-01-01\t\\N\t${BY}\t${BY}\n`;
  });
  await writeFile(copyFiles.opening, N, (i) => `${b.appCode}\t${i}\tMETER\t2025-01-01\t${customer(i).reading}\tactual\timport\t\\N\t${BY}\n`);
  await writeFile(copyFiles.reading, 2 * N, (k) => {
    const i = ((k - 1) >> 1) + 1;
    const month = (((k - 1) & 1) + 1) as 1 | 2;
    return `${b.appCode}\t${i}\tMETER\t2025-0${month + 1}-01\t${monthly(i, month)}\tactual\timport\t\\N\t${BY}\n`;
  });
  const client = new pg.Client({ connectionString: b.url });
  await client.connect();
  const copy = async (file: string, sql: string) => pipeline(fs.createReadStream(file), client.query(copyFrom(sql)));
  const floorCpu: Record<string, number> = {};
  const timed = async (kind: string, work: () => Promise<void>) => {
    const c = databaseCpu(dataDir);
    const t = performance.now();
    await client.query('BEGIN');
    await work();
    await client.query('COMMIT');
    floorCpu[kind] = databaseCpu(dataDir) - c;
    return performance.now() - t;
  };
  const READING = 'COPY reading (app_code, subscription_id, input_code, reading_date, value, kind, source, note, created_by) FROM STDIN';
  const floorAccounts = await timed('accounts', () =>
    copy(copyFiles.account, 'COPY account (account_id, app_code, account_number, name, email, phone, address, created_by, modified_by) FROM STDIN'),
  );
  const floorSubscriptions = await timed('subscriptions', async () => {
    await copy(
      copyFiles.subscription,
      'COPY subscription (subscription_id, app_code, account_id, service_id, batch_id, connection_inputs, unmetered_inputs, start_date, end_date, created_by, modified_by) FROM STDIN',
    );
    await copy(copyFiles.opening, READING);
  });
  // The meters' history is in place before the floor's readings too, outside its time.
  await writeHistory(client);
  const floor = { accounts: floorAccounts, subscriptions: floorSubscriptions, readings: await timed('readings', () => copy(copyFiles.reading, READING)) };
  await client.end();
  await b.db.end();

  say(`${'kind'.padEnd(14)}${'rows'.padStart(9)}${'import s'.padStart(10)}${'rows/s'.padStart(9)}${'COPY s'.padStart(9)}${'ratio'.padStart(7)}${'peak RSS'.padStart(10)}  targets (≥ ${TARGET_RATE} rows/s, ≤ ${TARGET_RATIO}× COPY)`);
  for (const kind of ['accounts', 'subscriptions', 'readings'] as const) {
    const r = runs[kind]!;
    const rate = Math.round(r.rows / (r.ms / 1000));
    const ratio = r.ms / floor[kind];
    say(
      `${kind.padEnd(14)}${String(r.rows).padStart(9)}${(r.ms / 1000).toFixed(2).padStart(10)}${String(rate).padStart(9)}${(floor[kind] / 1000).toFixed(2).padStart(9)}${ratio.toFixed(2).padStart(7)}${mib(r.peakKb).padStart(10)}  ${rate >= TARGET_RATE ? 'rate met' : 'rate MISSED'}, ${ratio <= TARGET_RATIO ? 'ratio met' : 'ratio MISSED'}`,
    );
  }
  // Which side an import waits for: its process near its wall time is the process's work; PostgreSQL's beside the floor's, the database's.
  for (const kind of ['accounts', 'subscriptions', 'readings'] as const) {
    const r = runs[kind]!;
    say(`  ${kind}: CPU of the import process ${r.cpu.toFixed(2)} s, of PostgreSQL ${r.dbCpu.toFixed(2)} s (the COPY's ${floorCpu[kind]!.toFixed(2)} s)`);
  }
  for (const kind of ['accounts', 'subscriptions', 'readings'] as const) say(`  ${kind}: ${runs[kind]!.out}`);
  say(`(the import's time includes starting the command line: Node, its modules, the connection; load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
} catch (err) {
  say(`import bench failed: ${err instanceof Error ? err.stack : String(err)}`);
  exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  await server.stop();
}
process.exit(exitCode);
