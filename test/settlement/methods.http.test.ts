// Settlement methods end to end: templates made through HTTP with each
// paymentSettlementMethod, bills of them posted as the bill run posts them, payments through
// make-payment, and what get-payments, get-open-bills and check-ledger answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { waterService } from '../fixtures/tariffs.ts';
import { makeAccount, postBill, type TestAccount, type World } from './fixtures.ts';
import { inTransaction } from '../../src/db/pool.ts';
import { addBillReversalEntries } from '../../src/ledger/store.ts';
import { pairWholeReversals } from '../../src/settlement/pairReversals.ts';

const makeService = (service: unknown) => ({ method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
const listServices = (serviceCode: string) => ({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode });
const pay = (data: Record<string, unknown>) => ({ method: 'Create', action: 'Create Payment', apiVersion: 'v2', data });
const reverse = (data: Record<string, unknown>) => ({ method: 'Update', action: 'Reverse Payment', apiVersion: 'v2', data });
const payments = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Retrieve Payments', apiVersion: 'v2', data });
const openBills = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Retrieve Open Bills', apiVersion: 'v2', data });
const check = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Check Ledger', apiVersion: 'v2', data });

describe('settlement methods through HTTP', () => {
  let h: Harness;
  let n = 0;
  const worlds = new Map<string, World>();

  /** A template made through make-service with this method, and a batch for its bills. */
  const templateWith = async (code: string, method: string): Promise<World> => {
    const r = await h.post('/billing/services/make-service', makeService(waterService(code, { paymentSettlementMethod: method } as never)));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const listed = await h.post('/billing/services/get-services', listServices(code));
    assert.equal(listed.body.data.services[0].paymentSettlementMethod, method);
    const serviceId = r.headers.get('x-billrun-service-id')!;
    const v = await h.db.query<{ service_version_id: string }>(
      'SELECT v.service_version_id FROM service s JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version WHERE s.service_id = $1',
      [serviceId],
    );
    const b = await h.db.query<{ batch_id: string }>(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, $2, 'test') RETURNING batch_id`, [
      h.appCode,
      `${code}-B`,
    ]);
    return { appCode: h.appCode, serviceId, versionId: v.rows[0]!.service_version_id, batchId: b.rows[0]!.batch_id };
  };
  /** A second subscription of the account, to another template. */
  const subscribe = async (a: TestAccount, w: World): Promise<TestAccount> => {
    const s = await h.db.query<{ subscription_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       VALUES ($1, $2, $3, $4, '2000-01-01', 'test', 'test') RETURNING subscription_id`,
      [h.appCode, a.accountId, w.serviceId, w.batchId],
    );
    return { ...a, subscriptionId: s.rows[0]!.subscription_id };
  };
  /** January (charge 100.00, tax 16.00, due 15/01/2025) and February (charge 50.00, tax 8.00, due 15/02/2025). */
  const twoBills = async (w: World, a: TestAccount) => {
    const jan = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00', '16.00'], categories: ['charge', 'tax'] });
    const feb = await postBill(h.db, w, a, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['50.00', '8.00'], categories: ['charge', 'tax'] });
    return { jan: Number(jan.billId), feb: Number(feb.billId) };
  };
  const paymentOf = async (reference: string) => {
    const r = await h.post('/billing/payments/get-payments', payments({ reference }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.payments[0];
  };
  const allocations = (p: any) => p.allocations.map((x: any) => [x.billID, x.lineNo, x.amount, x.method, x.settlementMethod, x.releasedAt === null]);
  const dueByLine = async (a: TestAccount) => {
    const r = await h.post('/billing/ledger/get-open-bills', openBills({ accountNumber: a.accountNumber }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.bills.map((b: any) => [b.billID, b.due, b.lines.map((l: any) => l.due)]);
  };
  const ledgerOk = async () => {
    const r = await h.post('/billing/ledger/check-ledger', check(), h.tokens.viewer);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.check.problems, []);
    assert.equal(r.body.data.check.ok, true);
  };
  const payNow = async (a: TestAccount, amount: string, reference: string) => {
    const r = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount, paymentDate: '20/02/2025', reference, channel: 'bank' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };

  before(async () => {
    h = await startHarness();
    for (const [code, method] of [
      ['CHRONO', 'Chronology'],
      ['PRIORITY', 'Category Priority'],
      ['PRORATA', 'Proportional'],
    ] as const) {
      worlds.set(method, await templateWith(code, method));
    }
  });
  after(() => h.close());

  test('a template with an unknown settlement method is refused on that field, and nothing is made', async () => {
    const r = await h.post('/billing/services/make-service', makeService(waterService('RANDOM', { paymentSettlementMethod: 'Random' } as never)));
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    assert.ok(r.body.error.details.some((d: { path: string }) => d.path === 'service.paymentSettlementMethod'), JSON.stringify(r.body.error.details));
    const listed = await h.post('/billing/services/get-services', listServices('RANDOM'));
    assert.equal(listed.status, 404);
  });

  test('Chronology: 100.00 pays the January charge; both taxes and February stay due', async () => {
    const w = worlds.get('Chronology')!;
    const a = await makeAccount(h.db, w, `CH-${++n}`);
    const { jan, feb } = await twoBills(w, a);
    await payNow(a, '100.00', 'CH-P1');
    assert.deepEqual(allocations(await paymentOf('CH-P1')), [[jan, 1, '100.00', 'Chronology', 'Chronology', true]]);
    assert.deepEqual(await dueByLine(a), [
      [jan, '16.00', ['0.00', '16.00']],
      [feb, '58.00', ['50.00', '8.00']],
    ]);
    await ledgerOk();
  });

  test('Category Priority: 100.00 pays both taxes first, oldest first, then the January charge', async () => {
    const w = worlds.get('Category Priority')!;
    const a = await makeAccount(h.db, w, `CP-${++n}`);
    const { jan, feb } = await twoBills(w, a);
    await payNow(a, '100.00', 'CP-P1');
    assert.deepEqual(allocations(await paymentOf('CP-P1')), [
      [jan, 2, '16.00', 'Category Priority', 'Category Priority', true],
      [feb, 2, '8.00', 'Category Priority', 'Category Priority', true],
      [jan, 1, '76.00', 'Category Priority', 'Category Priority', true],
    ]);
    assert.deepEqual(await dueByLine(a), [
      [jan, '24.00', ['24.00', '0.00']],
      [feb, '50.00', ['50.00', '0.00']],
    ]);
    await ledgerOk();
  });

  test("a Post Account bill (no subscription of its own) is settled by its template's method too", async () => {
    // An attacker's finding: the template was found through the bill's subscription, and a
    // Post Account bill has none, so it was settled by Chronology whatever its template said.
    const w = worlds.get('Category Priority')!;
    const a = await makeAccount(h.db, w, `CPA-${++n}`);
    const { jan, feb } = await twoBills(w, { ...a, subscriptionId: null as unknown as string });
    await payNow(a, '100.00', 'CPA-P1');
    assert.deepEqual(allocations(await paymentOf('CPA-P1')), [
      [jan, 2, '16.00', 'Category Priority', 'Category Priority', true],
      [feb, 2, '8.00', 'Category Priority', 'Category Priority', true],
      [jan, 1, '76.00', 'Category Priority', 'Category Priority', true],
    ]);
    await ledgerOk();
  });

  test('Proportional: 100.00 split 66.67 / 33.33 over the bills, each share over its lines; the sum is the payment', async () => {
    const w = worlds.get('Proportional')!;
    const a = await makeAccount(h.db, w, `PR-${++n}`);
    const { jan, feb } = await twoBills(w, a);
    await payNow(a, '100.00', 'PR-P1');
    const p = await paymentOf('PR-P1');
    // Worked out in test/settlement/methods.test.ts: 66.67 = 57.47 + 9.20, 33.33 = 28.73 + 4.60.
    assert.deepEqual(allocations(p), [
      [jan, 1, '57.47', 'Proportional', 'Proportional', true],
      [jan, 2, '9.20', 'Proportional', 'Proportional', true],
      [feb, 1, '28.73', 'Proportional', 'Proportional', true],
      [feb, 2, '4.60', 'Proportional', 'Proportional', true],
    ]);
    assert.equal(p.applied, '100.00');
    assert.equal(p.unapplied, '0.00');
    assert.deepEqual(await dueByLine(a), [
      [jan, '49.33', ['42.53', '6.80']],
      [feb, '24.67', ['21.27', '3.40']],
    ]);
    await ledgerOk();

    // A second payment is split over what is then open: 49.33 + 24.67 = 74.00 owed, 74.00 paid: all of it.
    await payNow(a, '80.00', 'PR-P2');
    const p2 = await paymentOf('PR-P2');
    assert.equal(p2.applied, '74.00');
    assert.equal(p2.unapplied, '6.00');
    assert.deepEqual(await dueByLine(a), []);
    await ledgerOk();
  });

  test('reversing a Proportional payment releases its allocations (their method stays recorded) and reopens the bills', async () => {
    const w = worlds.get('Proportional')!;
    const a = await makeAccount(h.db, w, `PR-${++n}`);
    const { jan, feb } = await twoBills(w, a);
    await payNow(a, '100.00', 'PR-R1');
    const r = await h.post('/billing/payments/reverse-payment', reverse({ reference: 'PR-R1', reason: 'cheque bounced', reversalDate: '25/02/2025' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const p = await paymentOf('PR-R1');
    assert.equal(p.status, 'Reversed');
    assert.deepEqual(
      p.allocations.filter((x: any) => x.method !== 'Reversal').map((x: any) => [x.billID, x.amount, x.settlementMethod, x.releasedAt === null]),
      [
        [jan, '57.47', 'Proportional', false],
        [jan, '9.20', 'Proportional', false],
        [feb, '28.73', 'Proportional', false],
        [feb, '4.60', 'Proportional', false],
      ],
    );
    assert.deepEqual(await dueByLine(a), [
      [jan, '116.00', ['100.00', '16.00']],
      [feb, '58.00', ['50.00', '8.00']],
    ]);
    await ledgerOk();
  });

  test("bills of two templates: the method of the account's oldest open bill is in force, and is recorded", async () => {
    const chrono = worlds.get('Chronology')!;
    const prorata = worlds.get('Proportional')!;
    // The oldest bill is Proportional's: the payment is split over both bills.
    const a = await makeAccount(h.db, prorata, `MX-${++n}`);
    const a2 = await subscribe(a, chrono);
    const jan = await postBill(h.db, prorata, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['30.00'], categories: ['charge'] });
    const feb = await postBill(h.db, chrono, a2, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['10.00'], categories: ['charge'] });
    await payNow(a, '20.00', 'MX-P1');
    assert.deepEqual(allocations(await paymentOf('MX-P1')), [
      [Number(jan.billId), 1, '15.00', 'Proportional', 'Proportional', true],
      [Number(feb.billId), 1, '5.00', 'Proportional', 'Proportional', true],
    ]);
    // The other way round: the oldest bill is Chronology's, so the oldest is paid first.
    const b = await makeAccount(h.db, chrono, `MX-${++n}`);
    const b2 = await subscribe(b, prorata);
    const bJan = await postBill(h.db, chrono, b, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['30.00'], categories: ['charge'] });
    await postBill(h.db, prorata, b2, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['10.00'], categories: ['charge'] });
    await payNow(b, '20.00', 'MX-P2');
    assert.deepEqual(allocations(await paymentOf('MX-P2')), [[Number(bJan.billId), 1, '20.00', 'Chronology', 'Chronology', true]]);
    await ledgerOk();
  });

  test("update-service changing the method applies to the next payment; earlier allocations keep theirs", async () => {
    const w = await templateWith('SWITCH', 'Chronology');
    const a = await makeAccount(h.db, w, `SW-${++n}`);
    const { jan, feb } = await twoBills(w, a);
    await payNow(a, '10.00', 'SW-P1');
    const upd = await h.post('/billing/services/update-service', {
      method: 'Update',
      action: 'Update Package',
      apiVersion: 'v2',
      service: waterService('SWITCH', { paymentSettlementMethod: 'Category Priority' } as never),
    });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    await payNow(a, '30.00', 'SW-P2');
    assert.deepEqual(allocations(await paymentOf('SW-P1')), [[jan, 1, '10.00', 'Chronology', 'Chronology', true]]);
    assert.deepEqual(allocations(await paymentOf('SW-P2')), [
      [jan, 2, '16.00', 'Category Priority', 'Category Priority', true],
      [feb, 2, '8.00', 'Category Priority', 'Category Priority', true],
      [jan, 1, '6.00', 'Category Priority', 'Category Priority', true],
    ]);
    assert.deepEqual(await dueByLine(a), [
      [jan, '84.00', ['84.00', '0.00']],
      [feb, '50.00', ['50.00', '0.00']],
    ]);
    await ledgerOk();
  });

  test("a cancelled unpaid bill paired with its reversal records the bill's template method", async () => {
    const w = worlds.get('Proportional')!;
    const a = await makeAccount(h.db, w, `RV-${++n}`);
    const bill = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00', '16.00'], categories: ['charge', 'tax'] });
    const paired = await inTransaction(h.db, async (tx) => {
      const entries = await addBillReversalEntries(tx, { billIds: [bill.billId], descriptions: ['Credit note'], date: '2025-01-20', by: 'test' });
      return pairWholeReversals(tx, h.appCode, [...entries.values()], 'test');
    });
    assert.equal(paired.size, 1);
    const rows = await h.db.query('SELECT bill_id, amount, method, settlement_method FROM allocation WHERE account_id = $1', [a.accountId]);
    assert.deepEqual(rows.rows, [{ bill_id: bill.billId, amount: '116.0000', method: 'Reversal', settlement_method: 'Proportional' }]);
    assert.deepEqual(await dueByLine(a), []);
    await ledgerOk();
  });

  test('credit waiting settles a newly posted bill by its template method (the bill run path)', async () => {
    const w = worlds.get('Category Priority')!;
    const a = await makeAccount(h.db, w, `CW-${++n}`);
    await payNow(a, '20.00', 'CW-P1');
    const bill = await postBill(h.db, w, a, { billDate: '2025-03-01', dueDate: '2025-03-15', lines: ['100.00', '16.00'], categories: ['charge', 'tax'] });
    assert.deepEqual(allocations(await paymentOf('CW-P1')), [
      [Number(bill.billId), 2, '16.00', 'Category Priority', 'Category Priority', true],
      [Number(bill.billId), 1, '4.00', 'Category Priority', 'Category Priority', true],
    ]);
    assert.deepEqual(await dueByLine(a), [[Number(bill.billId), '96.00', ['96.00', '0.00']]]);
    await ledgerOk();
  });
});
