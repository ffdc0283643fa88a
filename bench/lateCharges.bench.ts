// The daily late-charge run (src/lateCharges/) over N open bills: N accounts with one
// posted bill each (its ledger entry and open item), a tenth of them partly paid (the
// overdue amount is what is left), a fifth not yet past their grace. Measures the run
// that charges them, then the same run again (it must charge nothing), and prints the
// time per million. Target (issue 12): 1,000,000 open bills within 30 s.
// Flags: --n=N (default 50,000), --million.
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { chargeLateCharges } from '../src/lateCharges/chargeLateCharges.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 50_000);
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);
const root = path.resolve(import.meta.dirname, '..');

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-latecharges'), port: Number(process.env.BILLRUN_EMBEDDED_PG_PORT ?? 25381), database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_late WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_late');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_late');
await migrate(url);
const db = createPool(url, 2);

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  let t = Date.now();
  const rule = { graceDays: 14, percentage: '1.5', minimum: '2', maximum: '500' };
  const svc = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, 'W', 'b', 'b') RETURNING service_id`, [appCode]);
  const serviceId = svc.rows[0].service_id;
  const ver = await db.query(`INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'b') RETURNING service_version_id`, [
    serviceId,
    JSON.stringify({ paymentSettlementMethod: 'Chronology', lateCharge: rule }),
  ]);
  const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'B', 'B', 'b') RETURNING batch_id`, [appCode]);
  const term = await db.query(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
     VALUES ($1, $2, $3, $4, 1, 'T', '2025-01-01', '2025-01-31', '2025-02-14', 'Post Subscription', 'Posted', 'b', 'b') RETURNING term_id`,
    [appCode, serviceId, ver.rows[0].service_version_id, batch.rows[0].batch_id],
  );
  await db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) SELECT $1, 'A' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $2) g`, [
    appCode,
    N,
  ]);
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, account_id, $2, $3, '2020-01-01', 'b', 'b' FROM account WHERE app_code = $1 ORDER BY account_id`,
    [appCode, serviceId, batch.rows[0].batch_id],
  );
  // A fifth of the bills are due later: their grace has not ended on the run's day.
  await db.query(
    `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                       charges, tax, total, balance_brought_forward, total_due, lines, status, posted_at)
     SELECT $1, $2, s.subscription_id, s.account_id, row_number() OVER (ORDER BY s.subscription_id), '2025-01-31',
            CASE WHEN s.subscription_id % 5 = 0 THEN DATE '2025-03-25' ELSE DATE '2025-02-14' END, '2025-01-01', '2025-01-31',
            100 + s.subscription_id % 900, 16, 116 + s.subscription_id % 900, 0, 116 + s.subscription_id % 900,
            '[{"componentCode":"WATER","amount":"100.00"}]', 'posted', now()
       FROM subscription s WHERE s.app_code = $1`,
    [appCode, term.rows[0].term_id],
  );
  // Also the reference: the posting of the same N bills' ledger entries (one statement, the
  // same triggers), timed on the machine as it is now, so that a figure taken on a busy
  // machine can be compared with one taken quiet.
  const refStart = Date.now();
  await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'b' FROM bill WHERE app_code = $1`,
    [appCode],
  );
  const refMs = Date.now() - refStart;
  // A tenth partly paid: their open item is what is left (as settlement leaves it).
  await db.query(`UPDATE open_item SET open_amount = open_amount - 50 WHERE app_code = $1 AND account_id % 10 = 0`, [appCode]);
  await db.query('VACUUM ANALYZE');
  say(`setup: ${N} posted bills open, ${Math.round(N * 0.8)} past their grace, in ${secs(Date.now() - t)} s`);

  t = Date.now();
  const first = await chargeLateCharges(db, appCode, '2025-03-31');
  const firstMs = Date.now() - t;
  const perMillion = (firstMs * 1_000_000) / N;
  say(`late-charge run: ${first.charged} bills charged (${first.amount}) in ${secs(firstMs)} s; ${secs(perMillion)} s per million open bills`);
  say(`ratio to the target (1,000,000 open bills in 30 s): ${(perMillion / 30_000).toFixed(2)} (at most 1 meets it); load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
  t = Date.now();
  const second = await chargeLateCharges(db, appCode, '2025-03-31');
  const secondMs = Date.now() - t;
  say(`reference: posting the same ${N} bills' ledger entries took ${secs(refMs)} s; the run took ${(firstMs / refMs).toFixed(2)} times that`);
  say(`the same run again: ${second.charged} charged in ${secs(secondMs)} s`);
  const check = await db.query(
    `SELECT (SELECT count(*) FROM late_charge)::int AS charges, (SELECT count(DISTINCT bill_id) FROM late_charge)::int AS bills,
            (SELECT count(*) FROM account a WHERE a.balance <> (SELECT coalesce(sum(amount), 0) FROM ledger_entry e WHERE e.account_id = a.account_id))::int AS off`,
  );
  const c = check.rows[0];
  say(`late charges ${c.charges} on ${c.bills} bills; accounts whose balance is not their entries: ${c.off}`);
  if (second.charged !== 0 || c.charges !== c.bills || c.off !== 0 || first.charged !== Math.round(N * 0.8)) throw new Error('the run did not charge each overdue bill exactly once');
} finally {
  await db.end();
  await server.stop();
}
