// Bulk import on the embedded PostgreSQL: N accounts, each with one subscription and one
// opening reading, from a CSV file, through the real import operation (runImport, as the
// API and the command line call it). Then the floor: a plain COPY of the same rows into
// the same tables of a fresh database, measured in the same run. Prints both, the ratio,
// rows per second and the peak memory of this process (it should stay flat as N grows:
// try --rows 20000 and --rows 500000).
// Then N readings of those meters by accountNumber + serviceCode.
// Flags: --rows N (default 100,000), also --rows=N.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
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
import { csvRows } from '../src/imports/rows.ts';
import { byteCounter } from '../src/imports/routes.ts';
import { runImport } from '../src/imports/runImport.ts';

const arg = (name: string, fallback: number) => {
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  if (eq) return Number(eq.slice(name.length + 1));
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('--rows', 100_000);
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const BY = 'bench@billrun.test';

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

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-import'), port: 54371, database: 'postgres' });
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

async function writeFile(file: string, lines: (i: number) => string, header?: string): Promise<void> {
  const out = fs.createWriteStream(file);
  if (header) out.write(header);
  let buf = '';
  for (let i = 1; i <= N; i++) {
    buf += lines(i);
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billrun-import-bench-'));
let exitCode = 0;
try {
  say(`# ${N} accounts, each with one subscription and one opening reading, from CSV`);
  const csv = path.join(dir, 'customers.csv');
  await writeFile(
    csv,
    (i) => {
      const c = customer(i);
      return `${c.accountNumber},${c.name},${c.email},${c.phone},"${c.address}",WATER,ZONE-A,01/01/2025,${c.meterNo},${c.rooms},${c.reading}\n`;
    },
    'accountNumber,name,email,phone,address,serviceCode,batchCode,startDate,connection.METER_NO,unmetered.ROOMS,reading.METER\n',
  );
  const size = fs.statSync(csv).size;
  say(`csv file           ${mb(size)}`);

  // ---- the real import
  const a = await freshDatabase('billrun_bench_import');
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  // What the import really holds: the heap after a full collection, once a second.
  // RSS alone overstates it, since V8 lets garbage pile up while memory is plentiful.
  let peakLive = 0;
  const liveSampler = setInterval(() => {
    global.gc?.();
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  }, 1000);
  const counter = byteCounter();
  fs.createReadStream(csv).pipe(counter);
  const t0 = performance.now();
  const out = await runImport(a.db, { appCode: a.appCode, email: BY }, {
    kind: 'accounts',
    format: 'csv',
    rows: csvRows(counter, 'accounts'),
    fileName: 'customers.csv',
    bytesTotal: size,
    bytesRead: () => counter.bytes,
  });
  const importMs = performance.now() - t0;
  clearInterval(sampler);
  clearInterval(liveSampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  // ---- a readings import of the same meters by accountNumber + serviceCode (the path
  // that locks and checks each meter through readings/write.ts), one month later
  const readingsCsv = path.join(dir, 'readings.csv');
  await writeFile(
    readingsCsv,
    (i) => {
      const c = customer(i);
      return `${c.accountNumber},WATER,METER,01/02/2025,${(i % 90000) + 10}.5\n`;
    },
    'accountNumber,serviceCode,inputCode,readingDate,value\n',
  );
  const readingsCounter = byteCounter();
  fs.createReadStream(readingsCsv).pipe(readingsCounter);
  const t2 = performance.now();
  await runImport(a.db, { appCode: a.appCode, email: BY }, { kind: 'readings', format: 'csv', rows: csvRows(readingsCounter, 'readings'), fileName: 'readings.csv' });
  const readingsMs = performance.now() - t2;
  const counted = await a.db.query<{ a: string; s: string; r: string }>(
    'SELECT (SELECT count(*) FROM account) AS a, (SELECT count(*) FROM subscription) AS s, (SELECT count(*) FROM reading) AS r',
  );
  await a.db.end();
  const c1 = counted.rows[0]!;
  if (Number(c1.a) !== N || Number(c1.s) !== N || Number(c1.r) !== 2 * N) throw new Error(`import wrote ${JSON.stringify(c1)}, expected ${N} accounts and subscriptions, ${2 * N} readings`);

  // ---- the floor: plain COPY of the same rows into the same tables of a fresh database
  const b = await freshDatabase('billrun_bench_copy');
  const files = { account: path.join(dir, 'account.copy'), subscription: path.join(dir, 'subscription.copy'), reading: path.join(dir, 'reading.copy') };
  await writeFile(files.account, (i) => {
    const c = customer(i);
    return `${i}\t${b.appCode}\t${c.accountNumber}\t${c.name}\t${c.email}\t${c.phone}\t${c.address}\t${BY}\t${BY}\n`;
  });
  await writeFile(files.subscription, (i) => {
    const c = customer(i);
    return `${i}\t${b.appCode}\t${i}\t${b.serviceId}\t${b.batchId}\t{"METER_NO": "${c.meterNo}"}\t{"ROOMS": "${c.rooms}"}\t2025-01-01\t\\N\t${BY}\t${BY}\n`;
  });
  await writeFile(files.reading, (i) => `${b.appCode}\t${i}\tMETER\t2025-01-01\t${customer(i).reading}\tactual\timport\t\\N\t${BY}\n`);
  const client = new pg.Client({ connectionString: b.url });
  await client.connect();
  const copy = async (file: string, sql: string) => pipeline(fs.createReadStream(file), client.query(copyFrom(sql)));
  const t1 = performance.now();
  await client.query('BEGIN');
  await copy(files.account, 'COPY account (account_id, app_code, account_number, name, email, phone, address, created_by, modified_by) FROM STDIN');
  await copy(
    files.subscription,
    'COPY subscription (subscription_id, app_code, account_id, service_id, batch_id, connection_inputs, unmetered_inputs, start_date, end_date, created_by, modified_by) FROM STDIN',
  );
  await copy(files.reading, 'COPY reading (app_code, subscription_id, input_code, reading_date, value, kind, source, note, created_by) FROM STDIN');
  await client.query('COMMIT');
  const copyMs = performance.now() - t1;
  await client.end();
  await b.db.end();

  const ratio = importMs / copyMs;
  say(`import             ${(importMs / 1000).toFixed(2)} s  (${Math.round(N / (importMs / 1000))} rows/s, import ${out.importId} ${out.status})`);
  say(`plain COPY         ${(copyMs / 1000).toFixed(2)} s  (${Math.round(N / (copyMs / 1000))} rows/s, same rows, same tables)`);
  say(`ratio              ${ratio.toFixed(2)} x COPY  (target: under 3)`);
  say(`readings import    ${(readingsMs / 1000).toFixed(2)} s  (${Math.round(N / (readingsMs / 1000))} rows/s, by accountNumber + serviceCode, over the meters above)`);
  say(`target 20 s        ${importMs < 20_000 ? 'met' : 'MISSED'}`);
  say(`peak RSS           ${mb(peak)} during the import (${mb(rssBefore)} before it; +${mb(peak - rssBefore)}), process max ${mb(process.resourceUsage().maxRSS * 1024)}`);
  say(`peak live heap     ${global.gc ? mb(peakLive) : 'n/a (run with --expose-gc)'} (after a full GC each second; flat as --rows grows)`);
} catch (err) {
  say(`import bench failed: ${err instanceof Error ? err.stack : String(err)}`);
  exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  await server.stop();
}
process.exit(exitCode);
