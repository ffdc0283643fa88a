// What payments cost the bill run's posting: N accounts with one draft bill each (three
// lines), a share of them holding credit (a payment made before the bill). Measures the
// posting statement (bills to 'posted' + one ledger entry each) without and with the
// open_item trigger of migration 006, then settleAccounts over all N accounts, in the
// posting's transaction, as the bill run calls it.
// Flags: --n=N (default 100,000), --million, --credit=PERCENT (default 5),
// --method=NAME (the template's paymentSettlementMethod, default Chronology).
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, inTransaction } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { settleAccounts } from '../src/settlement/settleAccounts.ts';
import { arg } from './args.ts';

const N = process.argv.includes('--million') ? 1_000_000 : arg('--n', 100_000);
const CREDIT = arg('--credit', 5);
const METHOD = process.argv.find((a) => a.startsWith('--method='))?.slice('--method='.length) ?? 'Chronology';
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);
const root = path.resolve(import.meta.dirname, '..');

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-issue5'), port: 25363, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench5 WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench5');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench5');
await migrate(url);
const db = createPool(url, 2);

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  let t = Date.now();
  const svc = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, 'W', 'b', 'b') RETURNING service_id`, [appCode]);
  const serviceId = svc.rows[0].service_id;
  const ver = await db.query(`INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'b') RETURNING service_version_id`, [serviceId, JSON.stringify({ paymentSettlementMethod: METHOD })]);
  const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'B', 'B', 'b') RETURNING batch_id`, [appCode]);
  const term = await db.query(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
     VALUES ($1, $2, $3, $4, 1, 'T', '2025-01-01', '2025-01-31', '2025-02-14', 'Post Subscription', 'Processed', 'b', 'b') RETURNING term_id`,
    [appCode, serviceId, ver.rows[0].service_version_id, batch.rows[0].batch_id],
  );
  const termId = term.rows[0].term_id;
  await db.query(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by) SELECT $1, 'A' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $2) g`,
    [appCode, N],
  );
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, account_id, $2, $3, '2020-01-01', 'b', 'b' FROM account WHERE app_code = $1 ORDER BY account_id`,
    [appCode, serviceId, batch.rows[0].batch_id],
  );
  // Credit waiting for the bill on CREDIT% of the accounts: a payment entry of 50.00.
  await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, description, created_by)
     SELECT $1, account_id, '2025-01-20', 'payment', -50, 'prepaid', 'b' FROM account WHERE app_code = $1 AND account_id % 100 < $2`,
    [appCode, CREDIT],
  );
  await db.query(
    `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                       charges, tax, total, balance_brought_forward, total_due, lines)
     SELECT $1, $2, s.subscription_id, s.account_id, row_number() OVER (ORDER BY s.subscription_id), '2025-01-31', '2025-02-14', '2025-01-01', '2025-01-31',
            100, 16, 116, 0, 116,
            '[{"componentCode":"STANDING","amount":"40.00"},{"componentCode":"WATER","amount":"60.00"},{"componentCode":"VAT","amount":"16.00","category":"tax"}]'
       FROM subscription s WHERE s.app_code = $1`,
    [appCode, termId],
  );
  await db.query('VACUUM ANALYZE');
  say(`setup: ${N} accounts, bills and subscriptions, ${CREDIT}% with credit, method ${METHOD}, in ${secs(Date.now() - t)} s`);

  const post = (tx: pg.PoolClient) =>
    tx.query(
      `WITH posted AS (UPDATE bill SET status = 'posted', posted_at = now() WHERE term_id = $1 AND status = 'draft'
                        RETURNING bill_id, app_code, account_id, bill_date, total, bill_number)
       INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
       SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'b' FROM posted RETURNING account_id`,
      [termId],
    );

  // Without the open_item trigger (rolled back): the floor this feature adds to.
  const client = await db.connect();
  await client.query('BEGIN');
  await client.query('ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_open');
  t = Date.now();
  await post(client);
  const bare = Date.now() - t;
  await client.query('ROLLBACK');
  client.release();

  let withTrigger = 0;
  let settling = 0;
  let summary = { accounts: 0, allocations: 0, amount: '0' };
  await inTransaction(db, async (tx) => {
    t = Date.now();
    const posted = await post(tx);
    withTrigger = Date.now() - t;
    t = Date.now();
    summary = await settleAccounts(tx, appCode, posted.rows.map((r) => r.account_id as string), 'bench');
    settling = Date.now() - t;
  });
  say(`posting ${N} bills without open_item: ${secs(bare)} s`);
  say(`posting ${N} bills with open_item:    ${secs(withTrigger)} s (x${(withTrigger / Math.max(1, bare)).toFixed(2)})`);
  say(
    `settleAccounts over ${N} accounts: ${secs(settling)} s; ${summary.accounts} had credit, ${summary.allocations} allocations, ${summary.amount} applied` +
      ` (${Math.round(N / Math.max(0.001, settling / 1000))} accounts/s probed, ${Math.round(summary.accounts / Math.max(0.001, settling / 1000))} settled/s)`,
  );
  const check = await db.query(
    `SELECT count(*) FILTER (WHERE a.balance <> s.total) AS bad FROM account a JOIN (SELECT account_id, sum(amount) total FROM ledger_entry GROUP BY 1) s USING (account_id)`,
  );
  say(`balances not equal to their entries: ${check.rows[0].bad}`);
} finally {
  await db.end();
  await server.stop();
}
