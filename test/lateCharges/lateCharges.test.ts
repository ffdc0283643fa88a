// Late payment charges end to end: the rule on a template through make-service, the
// daily run through its HTTP trigger and the queue, the charge on the statement; run
// twice, and with a worker killed mid-run, each bill is charged once. Today is pinned to
// 31/01/2027 (test/support/harness.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { tariff } from '../terms/fixtures.ts';
import { makeAccount, postBill, type TestAccount, type World } from '../settlement/fixtures.ts';
import { eventually } from '../documents/support.ts';
import { lateCharges, runOnce } from './support.ts';
import { queueNewDays } from '../../src/lateCharges/store.ts';
import { LATE_CHARGE_TASKS } from '../../src/lateCharges/tasks.ts';
import { LATE_CHARGE_LANES } from '../../src/lateCharges/chargeLateCharges.ts';

const root = path.resolve(import.meta.dirname, '../..');
const env = (method: string, action: string, data?: Record<string, unknown>) => ({ method, action, apiVersion: 'v2', ...(data ? { data } : {}) });
const makeService = (service: unknown) => ({ method: 'Create', action: 'Create Package', apiVersion: 'v2', service });

/** A template made through HTTP, as the payments fixtures' World (its current version and first batch). */
async function worldOf(h: Harness, code: string): Promise<World> {
  const r = await h.db.query<{ service_id: string; service_version_id: string; batch_id: string }>(
    `SELECT s.service_id, v.service_version_id, (SELECT min(batch_id) FROM service_batch sb WHERE sb.service_id = s.service_id) AS batch_id
       FROM service s JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version
      WHERE s.app_code = $1 AND s.service_code = $2`,
    [h.appCode, code],
  );
  const row = r.rows[0]!;
  return { appCode: h.appCode, serviceId: row.service_id, versionId: row.service_version_id, batchId: row.batch_id };
}

const pay = (accountNumber: string, amount: string, reference: string) =>
  env('Create', 'Create Payment', { accountNumber, amount, paymentDate: '10/01/2027', reference, channel: 'bank' });

describe('late payment charges', () => {
  let h: Harness;
  let worker: Runner | undefined;
  let child: ChildProcess | undefined;
  before(async () => {
    h = await startHarness({ workerStaleSeconds: 2 });
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await worker?.stop();
    await h.close();
  });

  test('a template rule is checked like the rest of the template, and answered back', async () => {
    const bad = await h.post('/billing/services/make-service', makeService(tariff('BADLATE', { lateCharge: { graceDays: 5, flat: '10', percentage: '2' } })));
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.deepEqual(bad.body.error.details.map((x: any) => x.path), ['service.lateCharge.percentage']);
    const minMax = await h.post('/billing/services/make-service', makeService(tariff('BADLATE', { lateCharge: { graceDays: 5, percentage: '2', minimum: '9', maximum: '3' } })));
    assert.equal(minMax.status, 400);
    assert.deepEqual(minMax.body.error.details.map((x: any) => x.path), ['service.lateCharge.minimum']);
    const shape = await h.post('/billing/services/make-service', makeService(tariff('BADLATE', { lateCharge: { graceDays: 5, flat: '1', fee: 3 } as never })));
    assert.equal(shape.status, 400);
    assert.ok(shape.body.error.details.some((x: any) => x.path.startsWith('service.lateCharge')), JSON.stringify(shape.body.error));
    const none = await h.db.query(`SELECT 1 FROM service WHERE service_code = 'BADLATE'`);
    assert.equal(none.rowCount, 0, 'nothing made');

    const rule = { graceDays: 10, percentage: '2', minimum: '5', maximum: '100' };
    const ok = await h.post('/billing/services/make-service', makeService(tariff('PEN', { lateCharge: rule })));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const got = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'PEN' });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(got.body.data.services[0].lateCharge, rule);
    const plain = await h.post('/billing/services/make-service', makeService(tariff('PLAIN')));
    assert.equal(plain.status, 200);
  });

  let pen: World;
  const acc: Record<string, TestAccount> = {};
  const bills: Record<string, string> = {};

  test('charged on the bills still unpaid the day after grace ends, by the rule, once; shown on the statement', async () => {
    pen = await worldOf(h, 'PEN');
    const plain = await worldOf(h, 'PLAIN');
    for (const n of ['LC-PART', 'LC-MIN', 'LC-EDGE', 'LC-NOTYET', 'LC-PAID', 'LC-PLAIN']) acc[n] = await makeAccount(h.db, n === 'LC-PLAIN' ? plain : pen, n);
    // Grace 10 days: charged when due + 10 < 31/01/2027, i.e. due on 20/01/2027 or before.
    bills.part = (await postBill(h.db, pen, acc['LC-PART']!, { billDate: '2026-12-31', dueDate: '2027-01-10', lines: ['600.00', '400.00'] })).billId;
    bills.min = (await postBill(h.db, pen, acc['LC-MIN']!, { billDate: '2026-11-01', dueDate: '2026-12-01', lines: ['100.00'] })).billId;
    bills.edge = (await postBill(h.db, pen, acc['LC-EDGE']!, { billDate: '2027-01-01', dueDate: '2027-01-20', lines: ['6000.00'] })).billId;
    bills.notYet = (await postBill(h.db, pen, acc['LC-NOTYET']!, { billDate: '2027-01-01', dueDate: '2027-01-21', lines: ['300.00'] })).billId;
    bills.paid = (await postBill(h.db, pen, acc['LC-PAID']!, { billDate: '2026-12-01', dueDate: '2027-01-05', lines: ['80.00'] })).billId;
    bills.plain = (await postBill(h.db, plain, acc['LC-PLAIN']!, { billDate: '2026-12-01', dueDate: '2027-01-05', lines: ['80.00'] })).billId;
    for (const [n, amount] of [['LC-PART', '400.00'], ['LC-PAID', '80.00']] as const) {
      const p = await h.post('/billing/payments/make-payment', pay(n, amount, `${n}-P`), h.tokens.biller);
      assert.equal(p.status, 200, JSON.stringify(p.body));
    }

    worker = await startWorker(h.db, h.config, 2);
    await runOnce(h);
    await runOnce(h); // run twice: nothing more

    const made = await lateCharges(h);
    // By hand, 2% with minimum 5 and maximum 100:
    //   LC-PART: 1000 - 400 paid = 600 overdue x 2% = 12.00
    //   LC-MIN: 100 x 2% = 2, raised to 5.00
    //   LC-EDGE: due 20/01, grace ends 30/01, charged on 31/01: 6000 x 2% = 120, capped at 100.00
    //   LC-NOTYET (grace ends 31/01), LC-PAID (paid), LC-PLAIN (no rule): nothing
    assert.deepEqual(
      made.map((c) => [c.accountNumber, c.overdue, c.amount, c.chargeDate]).sort(),
      [
        ['LC-EDGE', '6000.00', '100.00', '31/01/2027'],
        ['LC-MIN', '100.00', '5.00', '31/01/2027'],
        ['LC-PART', '600.00', '12.00', '31/01/2027'],
      ],
    );
    const part = made.find((c) => c.accountNumber === 'LC-PART');
    assert.deepEqual(part.trace, {
      bill: { billID: Number(bills.part), billNumber: part.billNumber, dueDate: '10/01/2027' },
      chargeDate: '31/01/2027',
      serviceVersionID: Number(pen.versionId),
      overdue: '600.00',
      rule: { graceDays: 10, percentage: '2', minimum: '5', maximum: '100' },
      computation: { base: '12', unrounded: '12', rounding: 'halfUp', amount: '12.00' },
    });
    assert.equal((await lateCharges(h, { billID: Number(bills.min) }))[0].trace.computation.limit, 'minimum');
    // The row keeps only what its columns and its bill do not hold (migration 106); the trace above is put back together on read.
    const storedTrace = async (billId: string) => (await h.db.query('SELECT trace FROM late_charge WHERE bill_id = $1', [billId])).rows[0].trace;
    const rule = { graceDays: 10, percentage: '2', minimum: '5', maximum: '100' };
    assert.deepEqual(await storedTrace(bills.part), { rule, base: '12', unrounded: '12', rounding: 'halfUp' });
    assert.deepEqual(await storedTrace(bills.min), { rule, base: '2', unrounded: '5', rounding: 'halfUp', limit: 'minimum' });

    const st = await h.post('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'LC-PART' }), h.tokens.viewer);
    assert.equal(st.status, 200, JSON.stringify(st.body));
    const s = st.body.data.statement;
    assert.deepEqual(
      s.entries.map((e: any) => [e.date, e.kind, e.amount, e.balance, e.billID]),
      [
        ['31/12/2026', 'bill', '1000.00', '1000.00', Number(bills.part)],
        ['10/01/2027', 'payment', '-400.00', '600.00', null],
        ['31/01/2027', 'adjustment', '12.00', '612.00', Number(bills.part)],
      ],
    );
    assert.equal(s.entries[2].description, `Late payment charge on bill ${part.billNumber} (due 10/01/2027)`);
    assert.equal(s.entries[2].entryID, part.entryID);
    assert.equal(s.balance, '612.00');

    const check = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', {}), h.tokens.viewer);
    assert.equal(check.body.data.check.ok, true, JSON.stringify(check.body.data.check.problems));
    const other = await h.post('/billing/late-charges/get-late-charges', env('Retrieve', 'Retrieve Late Charges', {}), h.tokens.otherAdmin);
    assert.deepEqual(other.body.data.lateCharges, [], "another app sees none of app A's charges");
  });

  test("the hourly tick queues each app's day once, keyed by app and day", async () => {
    // App A's day is queued already (run-late-charges above); app B's is not.
    const first = await queueNewDays(h.db, LATE_CHARGE_TASKS.run);
    const again = await queueNewDays(h.db, LATE_CHARGE_TASKS.run);
    assert.equal(again, 0, 'a second tick the same day queues nothing');
    assert.ok(first >= 1);
    const days = await h.db.query(`SELECT app_code FROM late_charge_day WHERE charge_date = '2027-01-31' AND app_code = ANY($1::int[]) ORDER BY app_code`, [[h.appCode, h.otherAppCode]]);
    assert.deepEqual(days.rows.map((r) => r.app_code), [h.appCode, h.otherAppCode].sort((x, y) => x - y));
    const jobs = await h.db.query(`SELECT key FROM graphile_worker._private_jobs WHERE key = $1`, [`late-charges:${h.otherAppCode}:2027-01-31`]);
    assert.ok(jobs.rowCount! <= 1, "app B's day is one job at most");
  });

  test('roles: a viewer may read, only an admin may run', async () => {
    const r = await h.post('/billing/late-charges/run-late-charges', env('Create', 'Run Late Charges'), h.tokens.biller);
    assert.equal(r.status, 403);
  });

  test('a worker killed mid-run: the run is taken over and each bill is still charged once', async () => {
    await worker?.stop();
    worker = undefined;
    const names = ['LC-K1', 'LC-K2', 'LC-K3'];
    const killed: string[] = [];
    for (const n of names) {
      acc[n] = await makeAccount(h.db, pen, n);
      killed.push((await postBill(h.db, pen, acc[n]!, { billDate: '2026-12-01', dueDate: '2027-01-01', lines: ['50.00'] })).billId);
    }
    // Hold an uncommitted late_charge row of one of the bills: the run, which cannot see
    // it, writes its page's ledger entries and then waits on the row's unique key, in the
    // middle of its transaction, and is killed there.
    const holder = new pg.Client({ connectionString: h.dbUrl });
    let holderPid = 0;
    await holder.connect();
    try {
      holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO late_charge (app_code, bill_id, account_id, charge_date, overdue, amount, service_version_id, entry_id, trace, created_by)
         VALUES ($1, $2, $3, '2027-01-31', 1, 1, $4, 0, '{}', 'holder')`,
        [h.appCode, killed[1], acc['LC-K2']!.accountId, pen.versionId],
      );
      child = spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], {
        env: { ...process.env, DATABASE_URL: h.dbUrl, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: '2', BILLRUN_WORKER_STALE_SECONDS: '2' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const r = await h.post('/billing/late-charges/run-late-charges', env('Create', 'Run Late Charges'));
      assert.equal(r.status, 200);
      await eventually(async () => {
        const w = await h.db.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO late_charge%' AND pid <> $1`,
          [holderPid],
        );
        return w.rowCount! > 0 ? true : undefined;
      }, 'the run blocked mid-transaction', 60_000);
      child.kill('SIGKILL');
      await new Promise((r) => (child!.exitCode !== null || child!.signalCode !== null ? r(null) : child!.once('exit', r)));
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    await eventually(async () => {
      const left = await h.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%INSERT INTO late_charge%' AND state <> 'idle' AND pid <> pg_backend_pid()`);
      return left.rows[0].n === 0 ? true : undefined;
    }, "the killed worker's transaction gone", 30_000);
    // The run pages in lanes of accounts (account id modulo LATE_CHARGE_LANES): the blocked
    // page is the lane of LC-K2's account; a page of the other lane may have committed.
    const lane = (name: string) => BigInt(acc[name]!.accountId) % BigInt(LATE_CHARGE_LANES);
    const blocked = killed.filter((_, i) => lane(names[i]!) === lane('LC-K2'));
    const charged = await h.db.query('SELECT count(*)::int AS n FROM late_charge WHERE bill_id = ANY($1::bigint[])', [blocked]);
    assert.equal(charged.rows[0].n, 0, 'the killed page left nothing');
    const written = await h.db.query(`SELECT count(*)::int AS n FROM ledger_entry WHERE kind = 'adjustment' AND bill_id = ANY($1::bigint[])`, [blocked]);
    assert.equal(written.rows[0].n, 0, 'nor any ledger entry: they were written in the transaction that died');

    const since = (await h.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
    worker = await startWorker(h.db, h.config, 2);
    await eventually(async () => {
      const d = await h.db.query(`SELECT 1 FROM late_charge_day WHERE app_code = $1 AND charge_date = '2027-01-31' AND finished_at > $2`, [h.appCode, since]);
      return d.rowCount === 1 ? true : undefined;
    }, 'the run taken over and finished', 60_000);
    await runOnce(h); // and once more after the restart

    for (const billId of killed) {
      const c = await lateCharges(h, { billID: Number(billId) });
      assert.deepEqual(c.map((x) => x.amount), ['5.00'], `bill ${billId} charged once`); // 50 x 2% = 1, raised to the minimum 5
    }
    const entries = await h.db.query(`SELECT bill_id, count(*)::int AS n FROM ledger_entry WHERE kind = 'adjustment' AND bill_id = ANY($1::bigint[]) GROUP BY bill_id`, [killed]);
    assert.deepEqual(entries.rows.map((x) => x.n), [1, 1, 1]);
    assert.equal((await lateCharges(h)).length, 6, 'three before, three now');
    const check = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', {}), h.tokens.viewer);
    assert.equal(check.body.data.check.ok, true, JSON.stringify(check.body.data.check.problems));
  });
});
