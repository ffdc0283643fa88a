// Bill documents and delivery at volume: N processed bills (the tests' tariff, four
// lines, a meter reading, a bill before each for the history), then
//   0. rendering alone in one process (the sample bill, no database);
//   1. render and store: `--render` of them through the documents' chunk jobs' own code
//      (planDocuments, renderChunk) in `--workers` processes, documents per second and
//      each process's peak memory, sampled as it goes to show it stays flat;
//   2. the print extract of all N bills, CSV and JSON lines, streamed and counted;
//   3. delivery of `--mail` e-mails to a local SMTP server (smtp-server), `--concurrency`
//      at once, messages per second.
// Flags: --n=N (default 100,000), --render=N (default N), --mail=N (default 10,000),
// --workers=W (default 2), --concurrency=C (default 8).
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, inTransaction } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { normalizeDefinition } from '../src/templates/definition.ts';
import { planDocuments, renderChunk, RENDER_CHUNK } from '../src/documents/renderDocuments.ts';
import { printExtract } from '../src/documents/printExtract.ts';
import { compileInvoice, renderInvoice } from '../src/documents/render.ts';
import { DEFAULT_INVOICE_BODY } from '../src/documents/defaults.ts';
import { SAMPLE } from '../src/documents/context.ts';
import { queueTermDeliveries } from '../src/delivery/store.ts';
import { sendDelivery } from '../src/delivery/sendDelivery.ts';
import { closeMailers } from '../src/delivery/mailer.ts';
import { tariff } from '../test/terms/fixtures.ts';
import { arg } from './args.ts';

const say = (s: string) => process.stdout.write(s + '\n');
const root = path.resolve(import.meta.dirname, '..');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// A child process renders the chunks given to it and reports its memory as it goes.
if (process.argv[2] === '--child') {
  const [url, termId, chunksJson] = process.argv.slice(3) as [string, string, string];
  const db = createPool(url, 2);
  const chunks = JSON.parse(chunksJson) as [string, string][];
  let done = 0;
  for (const [i, [first, last]] of chunks.entries()) {
    done += await renderChunk(db, termId, first, last);
    if (i === Math.floor(chunks.length / 4) || i === chunks.length - 1) process.stdout.write(`rss ${done} ${process.memoryUsage().rss}\n`);
  }
  process.stdout.write(`peak ${process.resourceUsage().maxRSS * 1024}\n`);
  await db.end();
  process.exit(0);
}

const N = arg('--n', 100_000);
const RENDER = Math.min(N, arg('--render', N));
const MAIL = Math.min(N, arg('--mail', 10_000));
const WORKERS = arg('--workers', 2);
const CONCURRENCY = arg('--concurrency', 8);

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-documents'), port: 25373, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench10 WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench10');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench10');
await migrate(url);
const db = createPool(url, 10);

// The lines of the tests' bill (25 m3 on the tests' tariff), as the bill run stores them.
const LINES = JSON.stringify([
  { componentCode: 'STANDING', name: 'Standing charge', category: 'charge', quantity: '1', amount: '150.00', trace: { model: 'flat', amount: '150', unrounded: '150', rounding: 'halfUp' } },
  {
    componentCode: 'WATER', name: 'Water', category: 'charge', quantity: '25', unit: 'm3', amount: '1550.00',
    trace: {
      model: 'graduated', unrounded: '1550', rounding: 'halfUp',
      reading: { input: 'METER', previous: { date: '2026-10-31', value: '100' }, current: { date: '2026-11-30', value: '125' }, estimated: false, kind: 'normal', consumption: '25' },
      tiers: [{ tier: 1, quantity: '10', rate: '50', amount: '500' }, { tier: 2, quantity: '15', rate: '70', amount: '1050' }],
    },
  },
  { componentCode: 'SEWER', name: 'Sewer surcharge', category: 'charge', quantity: '1', amount: '155.00', trace: { model: 'percentage', percentage: '10', base: '1550.00', of: [{ code: 'WATER', amount: '1550.00' }], unrounded: '155', rounding: 'halfUp' } },
  { componentCode: 'VAT', name: 'VAT', category: 'tax', quantity: '1', amount: '296.80', trace: { model: 'percentage', percentage: '16', base: '1855.00', of: [{ code: 'STANDING', amount: '150.00' }], unrounded: '296.8', rounding: 'halfUp' } },
]);

try {
  const appCode = await createApp(db, 'Bench Water', 'UTC', 'KES', 2);
  let t = Date.now();
  const definition = normalizeDefinition(tariff('WATER', { bankAccounts: [{ bankName: 'Equity Bank', accountNumber: '0170299', swift: 'EQBLKENA' }] }) as never);
  const svc = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, 'WATER', 'b', 'b') RETURNING service_id`, [appCode]);
  const ver = await db.query(`INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'b') RETURNING service_version_id`, [svc.rows[0].service_id, definition]);
  const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'B', 'B', 'b') RETURNING batch_id`, [appCode]);
  const terms: string[] = [];
  for (const [period, start, end, due, status] of [
    [202610, '2026-10-01', '2026-10-31', '2026-11-14', 'Posted'],
    [202611, '2026-11-01', '2026-11-30', '2026-12-14', 'Processed'],
  ] as const) {
    const term = await db.query(
      `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
       VALUES ($1, $2, $3, $4, $5, 'T', $6, $7, $8, 'Post Subscription', $9, 'b', 'b') RETURNING term_id`,
      [appCode, svc.rows[0].service_id, ver.rows[0].service_version_id, batch.rows[0].batch_id, period, start, end, due, status],
    );
    terms.push(term.rows[0].term_id);
  }
  await db.query(
    `INSERT INTO account (app_code, account_number, name, address, email, delivery_preference, created_by, modified_by)
     SELECT $1, 'A' || g, 'Customer ' || g, g || ' River Lane, Nairobi', 'c' || g || '@example.test', CASE WHEN g <= $3 THEN 'email' ELSE 'print' END, 'b', 'b'
       FROM generate_series(1, $2) g`,
    [appCode, N, MAIL],
  );
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, account_id, $2, $3, '2020-01-01', 'b', 'b' FROM account WHERE app_code = $1 ORDER BY account_id`,
    [appCode, svc.rows[0].service_id, batch.rows[0].batch_id],
  );
  for (const [i, termId] of terms.entries()) {
    await db.query(
      `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                         charges, tax, total, balance_brought_forward, total_due, lines, status)
       SELECT $1, $2, s.subscription_id, s.account_id, $3 + row_number() OVER (ORDER BY s.subscription_id), t.end_date, t.due_date, t.start_date, t.end_date,
              1855, 296.80, 2151.80, $4, 2151.80 + $4, $5::json, $6
         FROM subscription s, term t WHERE s.app_code = $1 AND t.term_id = $2`,
      [appCode, termId, i * N, i === 0 ? 0 : 40, LINES, i === 0 ? 'posted' : 'draft'],
    );
  }
  const termId = terms[1]!;
  say(`setup: ${N} accounts, ${2 * N} bills (${((Date.now() - t) / 1000).toFixed(1)} s)`);

  // 0. Rendering alone, in this process (no database): what a document costs the CPU, to
  // set beside step 1's figure, which also waits on PostgreSQL and shares the cores with it.
  {
    const template = compileInvoice({ body: DEFAULT_INVOICE_BODY });
    const one = (i: number) => renderInvoice(template, { ...SAMPLE, account: { ...SAMPLE.account, name: `Customer ${i}` }, bill: { ...SAMPLE.bill, number: String(50_000 + i) } });
    for (let i = 0; i < 100; i++) await one(i);
    const K = Math.min(RENDER, 1000);
    t = Date.now();
    for (let i = 0; i < K; i++) await one(100 + i);
    say(`render only (one process, no database): ${K} documents in ${((Date.now() - t) / 1000).toFixed(1)} s = ${(K / ((Date.now() - t) / 1000)).toFixed(0)} documents/s`);
  }

  // 1. Render and store.
  await db.query(`UPDATE bill SET status = 'withdrawn' WHERE term_id = $1 AND bill_id NOT IN (SELECT bill_id FROM bill WHERE term_id = $1 ORDER BY bill_id LIMIT $2)`, [termId, RENDER]);
  await inTransaction(db, (tx) => planDocuments(tx, appCode, termId));
  // The plan's chunk jobs are removed: the processes below run the same chunks directly.
  await db.query(`DELETE FROM graphile_worker._private_jobs`);
  const chunks = (await db.query<{ first: string; last: string }>(
    `SELECT min(bill_id) AS first, max(bill_id) AS last FROM (SELECT bill_id, (row_number() OVER (ORDER BY bill_id) - 1) / $2 AS c FROM bill_document WHERE term_id = $1) x GROUP BY c ORDER BY c`,
    [termId, RENDER_CHUNK],
  )).rows.map((r) => [r.first, r.last] as [string, string]);
  t = Date.now();
  const outputs = await Promise.all(
    Array.from({ length: WORKERS }, (_, w) => {
      const mine = chunks.filter((_, i) => i % WORKERS === w);
      return new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_CPU_PROF] : []), import.meta.filename, '--child', url, termId, JSON.stringify(mine)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`render process exited ${code}`))));
      });
    }),
  );
  const renderSeconds = (Date.now() - t) / 1000;
  const stats = (await db.query(`SELECT status, count(*)::int AS n, coalesce(sum(bytes), 0)::bigint AS bytes FROM bill_document WHERE term_id = $1 GROUP BY status`, [termId])).rows;
  const rendered = stats.find((s) => s.status === 'rendered');
  say(`render and store: ${RENDER} documents in ${renderSeconds.toFixed(1)} s = ${(RENDER / renderSeconds).toFixed(0)} documents/s on ${WORKERS} processes (target 200/s)`);
  say(`  stored: ${JSON.stringify(stats.map((s) => [s.status, s.n]))}, ${(Number(rendered?.bytes ?? 0) / Math.max(1, rendered?.n ?? 1) / 1024).toFixed(1)} kB a document`);
  outputs.forEach((o, w) => {
    const samples = o.trim().split('\n').filter((l) => l.startsWith('rss')).map((l) => l.split(' '));
    const peak = Number(o.trim().split('\n').find((l) => l.startsWith('peak'))?.split(' ')[1] ?? 0);
    say(`  process ${w + 1}: rss ${samples.map(([, n, rss]) => `${mb(Number(rss))} after ${n}`).join(', ')}; peak ${mb(peak)}`);
  });

  // 2. The print extract of the N bills of the posted term.
  await db.query(`UPDATE bill SET status = 'draft' WHERE term_id = $1`, [termId]);
  for (const format of ['csv', 'jsonl'] as const) {
    t = Date.now();
    const answer = await printExtract(db, appCode, { termID: Number(termId), format });
    let bytes = 0;
    let rows = 0;
    for await (const chunk of answer.payload as AsyncIterable<string | Buffer>) {
      bytes += chunk.length;
      for (const ch of chunk.toString()) if (ch === '\n') rows++;
    }
    const s = (Date.now() - t) / 1000;
    say(`print extract ${format}: ${format === 'csv' ? rows - 1 : rows} bills, ${mb(bytes)} in ${s.toFixed(1)} s (target <= 30 s for 100,000)`);
  }

  // 3. Delivery to a local SMTP server.
  let received = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _s, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = (smtp.server.address() as { port: number }).port;
  await db.query(`UPDATE bill SET status = 'posted' WHERE term_id = $1`, [termId]);
  await inTransaction(db, (tx) => queueTermDeliveries(tx, termId, 'bench'));
  await db.query(`DELETE FROM graphile_worker._private_jobs`);
  const ids = (await db.query<{ delivery_id: string }>('SELECT delivery_id FROM delivery ORDER BY delivery_id')).rows.map((r) => r.delivery_id);
  const config = { smtpUrl: `smtp://127.0.0.1:${port}`, mailDir: '', mailFrom: 'billing@bench.test' };
  t = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ids.length) await sendDelivery(db, config, ids[next++]!);
    }),
  );
  const mailSeconds = (Date.now() - t) / 1000;
  say(`delivery: ${ids.length} e-mails (PDF attached) to a local SMTP server in ${mailSeconds.toFixed(1)} s = ${(ids.length / mailSeconds).toFixed(0)} messages/s (target 200/s); received ${received}`);
  say(`peak memory of this process: ${mb(process.resourceUsage().maxRSS * 1024)}`);
  closeMailers();
  await new Promise<void>((r) => smtp.close(() => r()));
} finally {
  await db.end();
  await server.stop();
}
