// The general-ledger journal of one day: N posted bills of five lines (four components
// and VAT) with their ledger entries, and N/10 payments, then the journal read and
// written as CSV as export-journal does. Target (issue 16): a 1,000,000-bill day in
// <= 20 s. Flags: --n=N (default 100,000), --million.
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { journalRows } from '../src/journal/journal.ts';
import { csvLine } from '../src/csv.ts';
import { freePort } from '../test/support/ports.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 100_000);
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);
const root = path.resolve(import.meta.dirname, '..');

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-journal'), port: await freePort(), database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_journal WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_journal');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_journal');
await migrate(url);
const db = createPool(url, 2);

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  let t = Date.now();
  const svc = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, 'W', 'b', 'b') RETURNING service_id`, [appCode]);
  const serviceId = svc.rows[0].service_id;
  const ver = await db.query(
    `INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, '{"cashAccountID": 7, "businessUnitID": 3}', 'b') RETURNING service_version_id`,
    [serviceId],
  );
  const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'B', 'B', 'b') RETURNING batch_id`, [appCode]);
  const term = await db.query(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
     VALUES ($1, $2, $3, $4, 1, 'T', '2025-01-01', '2025-01-31', '2025-02-14', 'Post Subscription', 'Posted', 'b', 'b') RETURNING term_id`,
    [appCode, serviceId, ver.rows[0].service_version_id, batch.rows[0].batch_id],
  );
  await db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) SELECT $1, 'A' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $2) g`, [appCode, N]);
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, account_id, $2, $3, '2020-01-01', 'b', 'b' FROM account WHERE app_code = $1 ORDER BY account_id`,
    [appCode, serviceId, batch.rows[0].batch_id],
  );
  await db.query(
    `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                       charges, tax, total, balance_brought_forward, total_due, lines, status, posted_at)
     SELECT $1, $2, s.subscription_id, s.account_id, row_number() OVER (ORDER BY s.subscription_id), '2025-01-31', '2025-02-14', '2025-01-01', '2025-01-31',
            100, 16, 116, 0, 116,
            '[{"componentCode":"STANDING","category":"charge","amount":"40.00"},{"componentCode":"WATER","category":"charge","amount":"45.00"},
              {"componentCode":"SEWER","category":"charge","amount":"4.50"},{"componentCode":"METER","category":"charge","amount":"10.50"},
              {"componentCode":"VAT","category":"tax","amount":"16.00"}]',
            'posted', now()
       FROM subscription s WHERE s.app_code = $1`,
    [appCode, term.rows[0].term_id],
  );
  await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'b' FROM bill WHERE app_code = $1`,
    [appCode],
  );
  await db.query(
    `WITH p AS (INSERT INTO payment (app_code, account_id, reference, amount, payment_date, channel, cash_account_id, created_by)
                SELECT $1, account_id, 'P' || account_id, 50, '2025-01-31', 'bank', 12, 'b' FROM account WHERE app_code = $1 AND account_id % 10 = 0
                RETURNING payment_id, app_code, account_id, amount, payment_date)
     INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, payment_id, description, created_by)
     SELECT app_code, account_id, payment_date, 'payment', -amount, payment_id, 'Payment', 'b' FROM p`,
    [appCode],
  );
  await db.query('VACUUM ANALYZE');
  say(`setup: ${N} posted bills of 5 lines and ${N / 10} payments on one day, in ${secs(Date.now() - t)} s`);

  const times: number[] = [];
  let lines = 0;
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    t = Date.now();
    const rows = await journalRows(db, appCode, '2025-01-31', '2025-01-31');
    const csv = rows.map((r) => csvLine([r.date, r.gl_account, r.cash_account_id, r.business_unit_id, r.component_code, r.debit, r.credit])).join('');
    times.push(Date.now() - t);
    lines = rows.length;
    bytes = csv.length;
    const debit = rows.reduce((s, r) => s + Number(r.debit) * 100, 0);
    const credit = rows.reduce((s, r) => s + Number(r.credit) * 100, 0);
    if (Math.round(debit) !== Math.round(credit)) throw new Error(`the journal does not balance: ${debit} / ${credit}`);
  }
  times.sort((a, b) => a - b);
  const median = times[1]!;
  say(`journal of the day: ${lines} lines, ${bytes} bytes of CSV, from ${N * 6 + (N / 10) * 2} entry sides`);
  say(`export: median ${secs(median)} s of 3 (${times.map(secs).join(', ')}), ${Math.round(N / (median / 1000))} bills/s`);
  say(`target: 1,000,000 bills in <= 20 s; at this rate ${secs((median * 1_000_000) / N)} s, ratio ${((median * 1_000_000) / N / 20_000).toFixed(2)} of the target`);
} finally {
  await db.end();
  await server.stop();
}
