import { storeInOldForm } from '../support/storedBills.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { runVerifyChunk } from '../../src/verification/termVerification.ts';
import { env, makeTerm, startRun, step, subscriptions, tariff, termOf, waitForStatus } from '../terms/fixtures.ts';

// The water tariff (test/fixtures/tariffs.ts): standing 150.00; water 10 m3 x 50 then 70;
// sewer 10% of water; VAT 16% of the three. Subscription i uses 25 + 5i m3
// (water tiers: 10 m3 at 50, to 30 m3 at 70, then 90):
//   25 m3: water 1550.00, sewer 155.00, charges 1855.00, VAT 296.80, total 2151.80
//   30 m3: water 1900.00, sewer 190.00, charges 2240.00, VAT 358.40, total 2598.40
const verifyBody = (data: Record<string, unknown>) => ({ method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data });
const verifyTermBody = (data: Record<string, unknown>) => env(data, 'Update', 'Verify Term');
const getVerificationBody = (data: Record<string, unknown>) => env(data, 'Retrieve', 'Retrieve Term Verification');

describe('verify-bill and verify-term', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let termID: number;
  let bills: { billID: number; billNumber: number; subscriptionID: number; total: string }[];

  const verify = async (data: Record<string, unknown>, token?: string) => h.post('/billing/bills/verify-bill', verifyBody(data), token);

  async function waitForVerification(statuses: string[]) {
    const deadline = Date.now() + 30000;
    for (;;) {
      const t = await termOf(h, { termID });
      if (statuses.includes(t.verification.status)) return t.verification;
      if (Date.now() > deadline) throw new Error(`verification is ${JSON.stringify(t.verification)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  before(async () => {
    // Chunks of 2 bills: the term's 4 bills are verified by two jobs.
    ({ h, close } = await startRun({ billRunChunkSize: 2 }, [tariff()]));
    await subscriptions(h, { n: 4, balance: '40.00', readingsOf: (i) => [['2026-10-31', 100], ['2026-11-30', 125 + 5 * i]] });
    termID = await makeTerm(h);
    const p = await step(h, 'process-term', 'Process Term', { termID });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await waitForStatus(h, termID, ['Processed']);
    const r = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
    // In subscription order (bill numbers follow the order the chunks committed in).
    bills = [...r.body.data.bills].sort((a, b) => a.subscriptionID - b.subscriptionID);
    assert.equal(bills.length, 4);
  });
  after(() => close());

  test('every bill of a processed term verifies, to the cent, from what it recorded', async () => {
    const t = await termOf(h, { termID });
    assert.equal(t.verification.status, 'none');
    for (const b of bills) {
      const r = await verify({ billID: b.billID }, h.tokens.viewer);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const v = r.body.data;
      assert.equal(v.matches, true, JSON.stringify(v));
      assert.equal(v.basis, 'recorded');
      assert.deepEqual(v.differences, []);
      assert.deepEqual(v.problems, []);
      assert.deepEqual(v.rerated, v.stored);
      assert.equal(v.billID, b.billID);
    }
    const first = await verify({ billNumber: bills[0]!.billNumber });
    assert.deepEqual(first.body.data.stored, { charges: '1855.00', tax: '296.80', total: '2151.80', balanceBroughtForward: '40.00', totalDue: '2191.80' });
    assert.equal(first.body.data.matches, true);
  });

  test('a whole term is verified as jobs, and get-terms says so', async () => {
    const r = await h.post('/billing/terms/verify-term', verifyTermBody({ termID }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = await waitForVerification(['verified', 'mismatched']);
    assert.equal(v.status, 'verified');
    assert.equal(v.bills, 4);
    assert.equal(v.mismatches, 0);
    assert.deepEqual(v.progress, { chunksTotal: 2, chunksDone: 2, percent: 100 });
    assert.match(v.verifiedAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const g = await h.post('/billing/terms/get-verification', getVerificationBody({ termID }), h.tokens.viewer);
    assert.equal(g.status, 200, JSON.stringify(g.body));
    assert.deepEqual(g.body.data.mismatches, []);
    assert.deepEqual(g.body.data.paging, { limit: 100, offset: 0, total: 0 });
    // A chunk's job run again (a crash after its commit, a retry) adds nothing.
    const round = (await h.db.query<{ round: number }>('SELECT round FROM term_verification WHERE term_id = $1', [termID])).rows[0]!.round;
    await runVerifyChunk(h.db, String(termID), round, 0);
    const again = (await termOf(h, { termID })).verification;
    assert.equal(again.bills, 4);
    assert.equal(again.progress.chunksDone, 2);
  });

  test('a subscription changed after billing: the bill verifies against what it was rated from', async () => {
    const b = bills[0]!;
    // Connected from mid-November now: rated from the subscription as it is, the standing
    // charge would be prorated and the bill would differ.
    await h.db.query(`UPDATE subscription SET start_date = '2026-11-16' WHERE subscription_id = $1`, [b.subscriptionID]);
    // And the account's balance has moved (the ledger's trigger keeps it).
    await h.db.query(
      `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, created_by)
       SELECT $1, account_id, '2026-12-05', 'opening_balance', 500, 'test' FROM subscription WHERE subscription_id = $2`,
      [h.appCode, b.subscriptionID],
    );
    assert.equal((await h.db.query('SELECT balance FROM account WHERE account_id = (SELECT account_id FROM subscription WHERE subscription_id = $1)', [b.subscriptionID])).rows[0].balance, '540.0000');
    const r = await verify({ billID: b.billID });
    assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    assert.equal(r.body.data.rerated.balanceBroughtForward, '40.00');
    await h.db.query(`UPDATE subscription SET start_date = '2000-01-01' WHERE subscription_id = $1`, [b.subscriptionID]);
  });

  test('a reading corrected after billing: the bill still verifies against the reading it used', async () => {
    const b = bills[1]!; // 30 m3: total 2598.40
    const orig = await h.db.query<{ reading_id: string }>(
      `SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-11-30'`,
      [b.subscriptionID],
    );
    await h.db.query(
      `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, corrects_reading_id, created_by)
       VALUES ($1, $2, 'METER', '2026-11-30', 180, $3, 'test')`,
      [h.appCode, b.subscriptionID, orig.rows[0]!.reading_id],
    );
    const r = await verify({ billID: b.billID });
    assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    assert.equal(r.body.data.rerated.total, '2598.40');
  });

  test("an altered stored amount, and separately an altered line, are reported with what differs", async () => {
    const [b0, b2] = [bills[0]!, bills[2]!];
    // The bill's amounts (kept consistent with each other, as the table requires).
    await h.db.query('UPDATE bill SET charges = charges + 1, total = total + 1, total_due = total_due + 1 WHERE bill_id = $1', [b0.billID]);
    let r = await verify({ billID: b0.billID });
    assert.equal(r.body.data.matches, false);
    assert.deepEqual(r.body.data.differences, [
      { componentCode: null, field: 'charges', stored: '1856.00', rerated: '1855.00', difference: '1.00' },
      { componentCode: null, field: 'total', stored: '2152.80', rerated: '2151.80', difference: '1.00' },
      { componentCode: null, field: 'totalDue', stored: '2192.80', rerated: '2191.80', difference: '1.00' },
    ]);

    // One line's amount: 35 m3 gives water 10 x 50 + 20 x 70 + 5 x 90 = 2350.00.
    await storeInOldForm(h.db, b2.billID);
    await h.db.query(`UPDATE bill SET lines = jsonb_set(lines::jsonb, '{1,amount}', '"2349.99"')::json WHERE bill_id = $1`, [b2.billID]);
    r = await verify({ billID: b2.billID });
    assert.equal(r.body.data.matches, false);
    assert.deepEqual(r.body.data.differences, [{ componentCode: 'WATER', field: 'amount', stored: '2349.99', rerated: '2350.00', difference: '-0.01' }]);

    // The term's verification finds both, and lists them.
    await h.post('/billing/terms/verify-term', verifyTermBody({ termID }));
    const v = await waitForVerification(['verified', 'mismatched']);
    assert.equal(v.status, 'mismatched');
    assert.equal(v.mismatches, 2);
    assert.equal(v.bills, 4);
    // Listed in bill id order; which of the two has the lower id depends on which chunk committed first.
    const [lo, hi] = [b0, b2].sort((x, y) => x.billID - y.billID);
    const differencesOf = (billID: number) => (billID === b0.billID ? 3 : 1);
    const g = await h.post('/billing/terms/get-verification', getVerificationBody({ termID, limit: 1 }));
    assert.equal(g.body.data.mismatches.length, 1);
    assert.equal(g.body.data.mismatches[0].billID, lo!.billID);
    assert.equal(g.body.data.mismatches[0].differences.length, differencesOf(lo!.billID));
    assert.deepEqual(g.body.data.paging, { limit: 1, offset: 0, total: 2 });
    const g2 = await h.post('/billing/terms/get-verification', getVerificationBody({ termID, offset: 1 }));
    assert.equal(g2.body.data.mismatches[0].billID, hi!.billID);
    assert.equal(g2.body.data.mismatches[0].differences.length, differencesOf(hi!.billID));
    const water = [g.body.data.mismatches[0], g2.body.data.mismatches[0]].find((m: any) => m.billID === b2.billID);
    assert.equal(water.differences[0].componentCode, 'WATER');
  });

  test('a bill made before sources were recorded is verified from its trace', async () => {
    const b = bills[3]!;
    await h.db.query('UPDATE bill SET source = NULL WHERE bill_id = $1', [b.billID]);
    let r = await verify({ billID: b.billID });
    assert.equal(r.body.data.basis, 'trace');
    assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    assert.equal(r.body.data.rerated.total, bills[3]!.total);
    // A trace naming a reading the readings do not hold is reported.
    await storeInOldForm(h.db, b.billID);
    await h.db.query(`UPDATE bill SET lines = jsonb_set(lines::jsonb, '{1,trace,reading,current,value}', '"141"')::json WHERE bill_id = $1`, [b.billID]);
    r = await verify({ billID: b.billID });
    assert.equal(r.body.data.matches, false);
    assert.deepEqual(r.body.data.problems.map((p: { code: string; path: string }) => [p.code, p.path]), [['READING_NOT_FOUND', 'readings.METER.current']]);
  });

  test('suspended days: verified from the recorded suspension, and from the trace of an older bill', async () => {
    // One subscription in ZONE-B suspended from 11 to 20 November: 20 of 30 days billed, so
    // standing 150.00 x 20/30 = 100.00; 25 m3: water 1550.00, sewer 155.00; charges
    // 1805.00, VAT 288.80, total 2093.80.
    const [sub] = await subscriptions(h, { n: 1, batchCode: 'ZONE-B', readings: [['2026-10-31', 100], ['2026-11-30', 125]] });
    await h.db.query(
      `INSERT INTO subscription_event (app_code, subscription_id, kind, effective_date, created_by)
       VALUES ($1, $2, 'suspended', '2026-11-11', 'test'), ($1, $2, 'resumed', '2026-11-21', 'test')`,
      [h.appCode, sub!.subscriptionId],
    );
    const term = await makeTerm(h, { batchCode: 'ZONE-B' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: term })).status, 200);
    await waitForStatus(h, term, ['Processed']);
    const got = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID: term } });
    const bill = got.body.data.bills[0];
    assert.equal(bill.lines[0].amount, '100.00');
    assert.equal(bill.total, '2093.80');
    // Resumed earlier, as the history may be corrected after billing: the recorded suspension counts.
    await h.db.query(`UPDATE subscription_event SET effective_date = '2026-11-12' WHERE subscription_id = $1 AND kind = 'resumed'`, [sub!.subscriptionId]);
    let r = await verify({ billID: bill.billID });
    assert.equal(r.body.data.basis, 'recorded');
    assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    await h.db.query('UPDATE bill SET source = NULL WHERE bill_id = $1', [bill.billID]);
    r = await verify({ billID: bill.billID });
    assert.equal(r.body.data.basis, 'trace');
    assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    assert.equal(r.body.data.rerated.total, '2093.80');
  });

  test('tenancy and roles', async () => {
    const b = bills[0]!;
    let r = await verify({ billID: b.billID }, h.tokens.otherAdmin);
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'NOT_FOUND');
    assert.deepEqual(r.body.error.details.map((d: { path: string }) => d.path), ['data.billID']);
    r = await h.post('/billing/terms/verify-term', verifyTermBody({ termID }), h.tokens.otherAdmin);
    assert.equal(r.status, 404);
    r = await h.post('/billing/terms/get-verification', getVerificationBody({ termID }), h.tokens.otherAdmin);
    assert.equal(r.status, 404);
    r = await h.post('/billing/terms/verify-term', verifyTermBody({ termID }), h.tokens.viewer);
    assert.equal(r.status, 403);
    assert.equal(r.body.error.code, 'FORBIDDEN');
    r = await verify({ billID: b.billID }, '');
    assert.equal(r.status, 401);
  });

  test('bad input: a clear error, nothing changed', async () => {
    const before = await termOf(h, { termID });
    const cases: [string, unknown, number, string, string][] = [
      ['/billing/bills/verify-bill', verifyBody({}), 400, 'VALIDATION_FAILED', 'data.billID'],
      ['/billing/bills/verify-bill', verifyBody({ billID: bills[0]!.billID, billNumber: 1 }), 400, 'VALIDATION_FAILED', 'data.billID'],
      ['/billing/bills/verify-bill', verifyBody({ billID: 'x' }), 400, 'VALIDATION_FAILED', 'data.billID'],
      ['/billing/bills/verify-bill', verifyBody({ billID: 1, extra: 1 }), 400, 'VALIDATION_FAILED', 'data.extra'],
      ['/billing/bills/verify-bill', verifyBody({ billID: 999999 }), 404, 'NOT_FOUND', 'data.billID'],
      ['/billing/bills/verify-bill', verifyBody({ billNumber: 999999 }), 404, 'NOT_FOUND', 'data.billNumber'],
      ['/billing/terms/verify-term', verifyTermBody({}), 400, 'VALIDATION_FAILED', 'data.termID'],
      ['/billing/terms/verify-term', verifyTermBody({ termID: 999999 }), 404, 'NOT_FOUND', 'data.termID'],
      ['/billing/terms/get-verification', getVerificationBody({ termID, limit: 0 }), 400, 'VALIDATION_FAILED', 'data.limit'],
    ];
    for (const [path, body, status, code, field] of cases) {
      const r = await h.post(path, body);
      assert.equal(r.status, status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, code);
      assert.ok(r.body.error.details.some((d: { path: string }) => d.path === field), JSON.stringify(r.body.error));
    }
    // A term whose run is not over cannot be verified.
    const draft = await makeTerm(h, { billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    const r = await h.post('/billing/terms/verify-term', verifyTermBody({ termID: draft }));
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, 'INVALID_STATE');
    assert.deepEqual((await termOf(h, { termID: draft })).verification.status, 'none');
    assert.deepEqual((await termOf(h, { termID })).verification, before.verification);
  });

  test('a term run again after its verification shows it outdated', async () => {
    await step(h, 'reverse-term', 'Reverse Term', { termID });
    const p = await step(h, 'process-term', 'Process Term', { termID });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await waitForStatus(h, termID, ['Processed']);
    assert.equal((await termOf(h, { termID })).verification.status, 'outdated');
    await h.post('/billing/terms/verify-term', verifyTermBody({ termID }));
    const v = await waitForVerification(['verified', 'mismatched']);
    // The new bills used the corrected reading (180 for the second subscription) and verify:
    // 80 m3 = water 10 x 50 + 20 x 70 + 50 x 90 = 6400.00, sewer 640.00, charges 7190.00,
    // VAT 1150.40, total 8340.40.
    assert.equal(v.status, 'verified');
    assert.equal(v.bills, 4);
    const r = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID, status: 'draft' } });
    const second = r.body.data.bills.find((x: { subscriptionID: number }) => x.subscriptionID === bills[1]!.subscriptionID);
    assert.equal(second.total, '8340.40');
    assert.equal((await verify({ billID: second.billID })).body.data.rerated.total, '8340.40');
  });
});
