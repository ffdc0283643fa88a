// Rebilling posted bills (issue 12: 100,000 in 60 s or less): a posted term of the tests'
// water template (test/fixtures/tariffs.ts) with N bills, a share of them paid, the
// meter readings of the term's end corrected after posting; then the term's
// cancel-and-rebill, the operation a client calls, timed whole: N credit notes and their
// ledger entries, N bills rated again through the bill run's code, written, posted and
// linked, and settlement moving the payments to the new bills, in one transaction.
// The posted bills are written straight into the tables (their amounts do not matter:
// the credit note reverses whatever they say); check-ledger runs after, untimed.
// Flags: --n=N (default 10,000; the target's figure is --n=100000), --paid=PERCENT (default 50).
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import type { Caller } from '../src/auth/roles.ts';
import { makeService } from '../src/templates/makeService.ts';
import { settleAccounts } from '../src/settlement/settleAccounts.ts';
import { checkLedger } from '../src/ledger/checkLedger.ts';
import { cancelAndRebillTerm } from '../src/corrections/cancelTerm.ts';
import { waterService } from '../test/fixtures/tariffs.ts';
import { readTerm } from '../src/billRun/termStore.ts';
import { loadRosterInputs, rateRoster, runContext } from '../src/billRun/rateRoster.ts';
import { billRowParts, copyBills } from '../src/bills/store.ts';
import { StoredPacker } from '../src/billLines/storedLines.ts';
import { arg } from './args.ts';

const N = arg('--n', 10_000);
const PAID = arg('--paid', 50);
const TARGET_BILLS = 100_000;
const TARGET_SECONDS = 60;
const say = (s: string) => process.stdout.write(s + '\n');
const secs = (ms: number) => (ms / 1000).toFixed(2);
const root = path.resolve(import.meta.dirname, '..');

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-corrections'), port: Number(process.env.BILLRUN_EMBEDDED_PG_PORT ?? 25375), database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS billrun_bench_corrections WITH (FORCE)');
await admin.query('CREATE DATABASE billrun_bench_corrections');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/billrun_bench_corrections');
await migrate(url);
const db = createPool(url, 2);

try {
  const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
  const caller: Caller = { userId: '0', appCode, email: 'bench@billrun.test', role: 'admin', tokenHash: Buffer.alloc(0) };
  await makeService(db, caller, waterService('WATER'));
  let t = Date.now();
  await db.query(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by) SELECT $1, 'ACC-' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $2) g`,
    [appCode, N],
  );
  await db.query(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     SELECT $1, a.account_id, s.service_id, b.batch_id, date '2020-01-01', 'b', 'b' FROM account a, service s, batch b
      WHERE a.app_code = $1 AND s.app_code = $1 AND b.app_code = $1 ORDER BY a.account_id`,
    [appCode],
  );
  // 0 to 59 m3 in November, as the bill run's bench: bills in each of the three tiers.
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
     SELECT $1, s.subscription_id, 'METER', d.day, CASE WHEN d.n = 1 THEN (s.subscription_id * 37) % 90000 ELSE (s.subscription_id * 37) % 90000 + (s.subscription_id * 7) % 60 END, 'b'
       FROM subscription s, (VALUES (1, date '2026-10-31'), (2, date '2026-11-30')) AS d(n, day) WHERE s.app_code = $1`,
    [appCode],
  );
  const term = await db.query(
    `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by, posted_at)
     SELECT $1, s.service_id, v.service_version_id, b.batch_id, 202611, 'November', '2026-11-01', '2026-11-30', '2026-12-14', 'Post Subscription', 'Posted', 'b', 'b', now()
       FROM service s JOIN service_version v ON v.service_id = s.service_id, batch b WHERE s.app_code = $1 AND b.app_code = $1 RETURNING term_id`,
    [appCode],
  );
  const termId = term.rows[0].term_id;
  await db.query('INSERT INTO term_subscription (term_id, subscription_id) SELECT $1, subscription_id FROM subscription WHERE app_code = $2', [termId, appCode]);
  await db.query(
    `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                       charges, tax, total, balance_brought_forward, total_due, lines, status, posted_at)
     SELECT $1, $2, s.subscription_id, s.account_id, row_number() OVER (ORDER BY s.subscription_id), '2026-12-01', '2026-12-14', '2026-11-01', '2026-11-30',
            100, 16, 116, 0, 116,
            '[{"componentCode":"STANDING","amount":"40.00"},{"componentCode":"WATER","amount":"60.00"},{"componentCode":"VAT","amount":"16.00"}]', 'posted', now()
       FROM subscription s WHERE s.app_code = $1`,
    [appCode, termId],
  );
  await db.query('INSERT INTO bill_number_counter (app_code, last_number) VALUES ($1, $2)', [appCode, N]);
  await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'b' FROM bill WHERE term_id = $1 ORDER BY bill_id`,
    [termId],
  );
  // PAID% of the accounts paid their bill in full before the correction.
  await db.query(
    `WITH p AS (INSERT INTO payment (app_code, account_id, reference, amount, payment_date, channel, created_by)
                SELECT $1, account_id, 'PAY-' || account_id, 116, '2026-12-10', 'bank', 'b' FROM account WHERE app_code = $1 AND account_id % 100 < $2
                RETURNING payment_id, account_id, amount, payment_date, reference)
     INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, payment_id, description, created_by)
     SELECT $1, account_id, payment_date, 'payment', -amount, payment_id, 'Payment ' || reference, 'b' FROM p`,
    [appCode, PAID],
  );
  const accounts = (await db.query('SELECT account_id FROM account WHERE app_code = $1', [appCode])).rows.map((r) => r.account_id);
  await settleAccounts(db, appCode, accounts, 'b');
  // The end-of-term readings corrected after posting (one m3 less, where there is one).
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, corrects_reading_id, source, created_by)
     SELECT app_code, subscription_id, input_code, reading_date, greatest(value - 1, 0), reading_id, 'correction', 'b'
       FROM reading WHERE app_code = $1 AND reading_date = '2026-11-30' AND value > 0
       AND value > (SELECT p.value FROM reading p WHERE p.subscription_id = reading.subscription_id AND p.reading_date = '2026-10-31')`,
    [appCode],
  );
  await db.query('VACUUM ANALYZE');
  say(`setup: ${N} posted bills, ${PAID}% paid, end-of-term readings corrected, in ${secs(Date.now() - t)} s`);

  // The reference, on the machine as it is now: what a bill run's chunk does for the same
  // N bills (read the roster's inputs, rate, COPY), in a transaction rolled back. Its
  // figure on a quiet machine is docs/bill-run.md's, so the ratio carries over.
  t = Date.now();
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const termRow = (await readTerm(client, termId))!;
    const ctx = await runContext(client, termRow, null);
    await client.query(`UPDATE bill SET status = 'withdrawn' WHERE term_id = $1`, [termId]);
    const inputs = await loadRosterInputs(client, ctx, '1', '9223372036854775807');
    const { rated } = await rateRoster(ctx, inputs);
    let number = 10_000_000;
    const packer = new StoredPacker();
    await copyBills(client, rated.map((x) => { const [head, tail] = billRowParts(packer, appCode, termId, '2027-01-31', '2026-12-14', { subscriptionId: x.input.subscriptionId, accountId: x.input.accountId, bill: x.bill }); return head + String(number++) + tail; }), packer);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
  const reference = Date.now() - t;
  say(`reference (a run's chunk work for the same ${N} bills: read, rate, COPY): ${secs(reference)} s`);

  t = Date.now();
  const r = await cancelAndRebillTerm(db, caller, { termID: Number(termId), reason: 'readings corrected' });
  const ms = Date.now() - t;
  const rate = (r.cancelled / ms) * 1000;
  say(`cancel-and-rebill: ${r.cancelled} credit notes, ${r.rebilled} new bills, settled, in ${secs(ms)} s: ${Math.round(rate)} bills/s`);
  say(`  credited ${r.credited}, rebilled ${r.rebilledAmount}, change ${r.change}`);
  const moved = await db.query(
    `SELECT count(*)::int AS n FROM allocation al JOIN bill b ON b.bill_id = al.bill_id WHERE b.term_id = $1 AND b.corrects_bill_id IS NOT NULL AND al.released_at IS NULL AND al.method = 'Chronology'`,
    [termId],
  );
  say(`  payments now settling rebills: ${moved.rows[0].n} allocations`);
  say(`  ratio to the reference: ${(ms / reference).toFixed(2)} (a correction also writes credit notes, two ledger entries a bill and the settlement)`);
  const projected = TARGET_BILLS / rate;
  say(`  at this rate ${TARGET_BILLS} bills take ${projected.toFixed(1)} s (target ${TARGET_SECONDS} s): ${projected <= TARGET_SECONDS ? 'within' : 'OVER'} the target${N < TARGET_BILLS ? ' (projected from a smaller run)' : ''}`);
  t = Date.now();
  const check = await checkLedger(db, caller, {});
  say(`check-ledger: ${check.check.ok ? 'ok' : 'PROBLEMS ' + JSON.stringify(check.check.problems.slice(0, 3))} (${check.check.entries} entries, ${secs(Date.now() - t)} s)`);
  if (!check.check.ok || r.rebilled !== N) process.exitCode = 1;
} finally {
  await db.end();
  await server.stop();
}
