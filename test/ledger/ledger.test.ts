// Adjustments and the ledger's reads end to end: HTTP on a real PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeAccount, makeWorld, postBill, type World } from '../settlement/fixtures.ts';

const env = (method: string, action: string, data: Record<string, unknown>) => ({ method, action, apiVersion: 'v2', data });
const adjust = (data: Record<string, unknown>) => env('Create', 'Create Adjustment', data);
const pay = (data: Record<string, unknown>) => env('Create', 'Create Payment', data);

describe('ledger', () => {
  let h: Harness;
  let w: World;
  before(async () => {
    h = await startHarness();
    w = await makeWorld(h.db, h.appCode);
  });
  after(() => h.close());

  test('credit and debit notes: a credit note tied to a bill pays it first; the statement runs the balance', async () => {
    const a = await makeAccount(h.db, w, 'L-1');
    const b1 = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00'] });
    const b2 = await postBill(h.db, w, a, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['60.00', '40.00'] });
    const credit = await h.post('/billing/ledger/make-adjustment', adjust({ accountNumber: 'L-1', kind: 'credit', amount: '30.00', reason: 'meter misread', adjustmentDate: '05/02/2025', billID: Number(b2.billId) }), h.tokens.biller);
    assert.equal(credit.status, 200, JSON.stringify(credit.body));
    assert.match(credit.headers.get('x-billrun-adjustment-id') ?? '', /^\d+$/);
    const debit = await h.post('/billing/ledger/make-adjustment', adjust({ accountNumber: 'L-1', kind: 'debit', amount: '12.50', reason: 'reconnection fee', adjustmentDate: '06/02/2025' }), h.tokens.biller);
    assert.equal(debit.status, 200);
    await h.post('/billing/payments/make-payment', pay({ accountNumber: 'L-1', amount: '150', paymentDate: '10/02/2025', reference: 'L-P1', channel: 'bank' }), h.tokens.biller);

    const open = await h.post('/billing/ledger/get-open-bills', env('Retrieve', 'Retrieve Open Bills', { accountNumber: 'L-1' }), h.tokens.viewer);
    assert.equal(open.status, 200, JSON.stringify(open.body));
    // b2 got 30 from its credit note (line 1); then 150 paid, oldest due first: b1 (100),
    // the debit note due 06/02 (12.50), and 37.50 of b2 (30 on line 1, 7.50 on line 2).
    assert.deepEqual(open.body.data.bills.map((b: any) => [b.billID, b.due, b.lines.map((l: any) => l.due)]), [[Number(b2.billId), '32.50', ['0.00', '32.50']]]);
    assert.deepEqual(open.body.data.otherItems, []);
    // A page of a bills list asks which of its bills are open: b1 is paid, so only b2 answers.
    const page = await h.post('/billing/ledger/get-open-bills', env('Retrieve', 'Retrieve Open Bills', { billIDs: [Number(b1.billId), Number(b2.billId)] }), h.tokens.viewer);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(page.body.data.bills.map((b: any) => [b.billID, b.paid, b.due]), [[Number(b2.billId), '67.50', '32.50']]);
    const tooMany = await h.post('/billing/ledger/get-open-bills', env('Retrieve', 'Retrieve Open Bills', { billIDs: Array.from({ length: 101 }, (_, i) => i + 1) }), h.tokens.viewer);
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.details[0].path, 'data.billIDs');

    const st = await h.post('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'L-1', fromDate: '01/02/2025', toDate: '28/02/2025' }), h.tokens.viewer);
    assert.equal(st.status, 200, JSON.stringify(st.body));
    const s = st.body.data.statement;
    assert.equal(s.openingBalance, '100.00');
    assert.deepEqual(s.entries.map((e: any) => [e.date, e.kind, e.amount, e.balance]), [
      ['01/02/2025', 'bill', '100.00', '200.00'],
      ['05/02/2025', 'adjustment', '-30.00', '170.00'],
      ['06/02/2025', 'adjustment', '12.50', '182.50'],
      ['10/02/2025', 'payment', '-150.00', '32.50'],
    ]);
    assert.equal(s.entries[3].reference, 'L-P1');
    assert.equal(s.debits, '112.50');
    assert.equal(s.credits, '180.00');
    assert.equal(s.closingBalance, '32.50');
    assert.equal(s.balance, '32.50');
    const paid = await h.post('/billing/payments/get-payments', env('Retrieve', 'Retrieve Payments', { reference: 'L-P1' }), h.tokens.viewer);
    assert.deepEqual(paid.body.data.payments[0].allocations.map((x: any) => [x.kind, x.billID, x.amount]), [
      ['bill', Number(b1.billId), '100.00'],
      ['adjustment', null, '12.50'],
      ['bill', Number(b2.billId), '30.00'],
      ['bill', Number(b2.billId), '7.50'],
    ]);
  });

  test('adjustments are checked: reason, amount, the bill, the role', async () => {
    const a = await makeAccount(h.db, w, 'L-2');
    const other = await makeAccount(h.db, w, 'L-3');
    const b = await postBill(h.db, w, other, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['10.00'] });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ reason: '  ' }, 400, 'data.reason'],
      [{ amount: '0.001' }, 400, 'data.amount'],
      [{ billID: Number(b.billId) }, 400, 'data.billID'],
      [{ billID: 999999 }, 404, 'data.billID'],
      [{ kind: 'refund' }, 400, 'data.kind'],
    ];
    for (const [change, status, path] of cases) {
      const r = await h.post('/billing/ledger/make-adjustment', adjust({ accountNumber: a.accountNumber, kind: 'credit', amount: '5', reason: 'x', ...change }), h.tokens.biller);
      assert.equal(r.status, status, `${JSON.stringify(change)} ${JSON.stringify(r.body)}`);
      assert.ok(r.body.error.details.some((d: any) => d.path === path), JSON.stringify(r.body.error));
    }
    const viewer = await h.post('/billing/ledger/make-adjustment', adjust({ accountNumber: a.accountNumber, kind: 'credit', amount: '5', reason: 'x' }), h.tokens.viewer);
    assert.equal(viewer.status, 403);
    const otherApp = await h.post('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: a.accountNumber }), h.tokens.otherAdmin);
    assert.equal(otherApp.status, 404);
  });

  test('ageing buckets what is owed by days past due, with credit apart', async () => {
    const x = await makeAccount(h.db, w, 'AGE-1');
    const y = await makeAccount(h.db, w, 'AGE-2');
    await postBill(h.db, w, x, { billDate: '2025-05-01', dueDate: '2025-06-10', lines: ['10.00'] }); // not yet due on 01/06
    await postBill(h.db, w, x, { billDate: '2025-04-01', dueDate: '2025-05-20', lines: ['20.00'] }); // 12 days
    await postBill(h.db, w, x, { billDate: '2025-03-01', dueDate: '2025-04-01', lines: ['30.00'] }); // 61 days
    await postBill(h.db, w, x, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['40.00'] }); // 137 days
    await h.post('/billing/payments/make-payment', pay({ accountNumber: 'AGE-2', amount: '5', paymentDate: '01/05/2025', reference: 'AGE-P', channel: 'bank' }), h.tokens.biller);
    const r = await h.post('/billing/ledger/get-ageing', env('Retrieve', 'Retrieve Ageing', { asOf: '01/06/2025', accountNumber: 'AGE-1' }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { asOf, accountCount, ...buckets } = r.body.data.ageing;
    assert.equal(asOf, '01/06/2025');
    assert.equal(accountCount, 1);
    assert.deepEqual(buckets, { current: '10.00', days30: '20.00', days60: '0.00', days90: '30.00', over90: '40.00', credit: '0.00', balance: '100.00' });
    const credit = await h.post('/billing/ledger/get-ageing', env('Retrieve', 'Retrieve Ageing', { accountNumber: y.accountNumber }), h.tokens.viewer);
    assert.equal(credit.body.data.ageing.credit, '5.00');
    assert.equal(credit.body.data.ageing.balance, '-5.00');
    const all = await h.post('/billing/ledger/get-ageing', env('Retrieve', 'Retrieve Ageing', { asOf: '01/06/2025' }), h.tokens.viewer);
    assert.equal(all.status, 200);
    assert.ok(all.body.data.accounts.length >= 2);
  });

  test('check-ledger proves every account, and finds a balance that does not add up', async () => {
    const ok = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', {}), h.tokens.viewer);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.check.ok, true, JSON.stringify(ok.body.data.check.problems));
    assert.ok(ok.body.data.check.entries > 0);
    // Corrupt one balance behind the ledger's back (the trigger's job) and ask again.
    const a = await makeAccount(h.db, w, 'BROKEN');
    await h.db.query('UPDATE account SET balance = 1 WHERE account_id = $1', [a.accountId]);
    const bad = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', {}), h.tokens.viewer);
    assert.equal(bad.body.data.check.ok, false);
    assert.deepEqual(bad.body.data.check.problems.map((p: any) => [p.accountID, p.problem]), [[Number(a.accountId), 'balance is not the sum of the entries']]);
  });
});
