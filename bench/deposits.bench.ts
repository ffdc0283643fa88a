// Security deposits (src/deposits/): the charge an import makes for N new subscriptions
// in one transaction (entries, deposit rows, the settlement probe), against the same
// import path with no deposit, and the release of M terminations one by one (each its
// own transaction, as terminate-subscription does), on accounts whose deposit is paid
// and which have one open bill. No target in the issue: figures to watch.
// Flags: --n=N (default 20,000 subscriptions), --m=M (default 500 terminations).
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, inTransaction } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { chargeDeposits, releaseDeposits } from '../src/deposits/deposits.ts';
import { checkLedger } from '../src/ledger/checkLedger.ts';
import { arg } from './args.ts';

const N = arg('--n', 20_000);
const M = Math.min(arg('--m', 500), N);
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);
const root = path.resolve(import.meta.dirname, '..');

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-deposits'), port: 25383, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_deposits WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_deposits');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_deposits');
await migrate(url);
const db = createPool(url, 2);

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const template = async (code: string, deposit: string | null) => {
    const s = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, $2, 'b', 'b') RETURNING service_id`, [appCode, code]);
    const v = await db.query(`INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'b') RETURNING service_version_id`, [
      s.rows[0].service_id,
      JSON.stringify({ code, paymentSettlementMethod: 'Chronology', securityDeposit: deposit }),
    ]);
    return { serviceId: s.rows[0].service_id as string, versionId: v.rows[0].service_version_id as string };
  };
  const withDeposit = await template('DEP', '250.00');
  const without = await template('NODEP', null);
  const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'B', 'B', 'b') RETURNING batch_id`, [appCode]);
  const batchId = batch.rows[0].batch_id;
  await db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) SELECT $1, 'A' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $2) g`, [appCode, N]);
  const subscribe = async (serviceId: string) => {
    const r = await db.query<{ subscription_id: string; account_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       SELECT $1, account_id, $2, $3, '2025-01-01', 'b', 'b' FROM account WHERE app_code = $1 ORDER BY account_id RETURNING subscription_id, account_id`,
      [appCode, serviceId, batchId],
    );
    return r.rows.map((x) => ({ subscriptionId: x.subscription_id, accountId: x.account_id, serviceId }));
  };
  await db.query('VACUUM ANALYZE');

  const plainIds = await subscribe(without.serviceId);
  let t = Date.now();
  await inTransaction(db, (tx) => chargeDeposits(tx, appCode, plainIds, 'bench'));
  const plainMs = Date.now() - t;
  say(`chargeDeposits, ${N} subscriptions on a template without a deposit: ${secs(plainMs)} s`);

  const ids = await subscribe(withDeposit.serviceId);
  t = Date.now();
  const charged = await inTransaction(db, (tx) => chargeDeposits(tx, appCode, ids, 'bench'));
  const chargeMs = Date.now() - t;
  say(`chargeDeposits, ${N} subscriptions with a deposit: ${charged} charged in ${secs(chargeMs)} s; ${secs((chargeMs * 1_000_000) / N)} s per million`);

  // Pay each deposit in full (as settlement leaves it), and give the first M one open bill of 100.
  await db.query(`DELETE FROM open_item WHERE app_code = $1 AND entry_id IN (SELECT charge_entry_id FROM deposit WHERE app_code = $1)`, [appCode]);
  await db.query(
    `INSERT INTO payment (app_code, account_id, reference, amount, payment_date, channel, created_by)
     SELECT $1, account_id, 'P' || deposit_id, amount, '2027-01-31', 'bank', 'b' FROM deposit WHERE app_code = $1`,
    [appCode],
  );
  await db.query(
    `WITH e AS (INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, payment_id, description, created_by)
                SELECT app_code, account_id, payment_date, 'payment', -amount, payment_id, 'Payment', 'b' FROM payment WHERE app_code = $1 RETURNING entry_id, payment_id, account_id, amount)
     INSERT INTO allocation (app_code, account_id, credit_entry_id, debit_entry_id, payment_id, amount, method, settlement_method, allocated_by)
     SELECT $1, e.account_id, e.entry_id, d.charge_entry_id, e.payment_id, -e.amount, 'Chronology', 'Chronology', 'b'
       FROM e JOIN payment p ON p.payment_id = e.payment_id JOIN deposit d ON 'P' || d.deposit_id = p.reference`,
    [appCode],
  );
  await db.query(`DELETE FROM open_item WHERE app_code = $1 AND entry_id IN (SELECT entry_id FROM ledger_entry WHERE app_code = $1 AND kind = 'payment')`, [appCode]);
  const term = await db.query(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
     VALUES ($1, $2, $3, $4, 1, 'T', '2026-12-01', '2026-12-31', '2027-01-14', 'Post Subscription', 'Posted', 'b', 'b') RETURNING term_id`,
    [appCode, withDeposit.serviceId, withDeposit.versionId, batchId],
  );
  const first = ids.slice(0, M).map((s) => s.subscriptionId);
  await db.query(
    `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                       charges, tax, total, balance_brought_forward, total_due, lines, status, posted_at)
     SELECT $1, $2, s.subscription_id, s.account_id, row_number() OVER (ORDER BY s.subscription_id), '2026-12-31', '2027-01-14', '2026-12-01', '2026-12-31',
            100, 0, 100, 0, 100, '[{"componentCode":"WATER","amount":"60.00"},{"componentCode":"FEE","amount":"40.00"}]', 'posted', now()
       FROM subscription s WHERE s.subscription_id = ANY($3::bigint[])`,
    [appCode, term.rows[0].term_id, first],
  );
  await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'b' FROM bill WHERE app_code = $1`,
    [appCode],
  );
  await db.query('VACUUM ANALYZE');

  t = Date.now();
  for (const id of first) await inTransaction(db, (tx) => releaseDeposits(tx, appCode, [id], 'bench'));
  const releaseMs = Date.now() - t;
  say(`releaseDeposits, ${M} terminations one by one: ${secs(releaseMs)} s, ${((releaseMs / M) * 1000).toFixed(0)} µs each`);

  const caller = { appCode, email: 'bench', role: 'admin' } as Parameters<typeof checkLedger>[1];
  const check = await checkLedger(db, caller, {});
  const r = await db.query(`SELECT sum(applied)::text AS applied, sum(refunded)::text AS refunded, count(*)::int AS released FROM deposit WHERE released_on IS NOT NULL`);
  say(`released ${r.rows[0].released}: applied ${r.rows[0].applied}, refunded ${r.rows[0].refunded}; check-ledger ok: ${check.check.ok}`);
  if (!check.check.ok || r.rows[0].released !== M || r.rows[0].applied !== `${M * 100}.0000`) throw new Error(`unexpected: ${JSON.stringify(check.check.problems.slice(0, 3))}`);
} finally {
  await db.end();
  await server.stop();
}
