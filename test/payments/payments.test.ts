// Payments end to end: HTTP on a real PostgreSQL, bills posted as the bill run posts them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeAccount, makeWorld, postBill, type TestAccount, type World } from '../settlement/fixtures.ts';

const pay = (data: Record<string, unknown>) => ({ method: 'Create', action: 'Create Payment', apiVersion: 'v2', data });
const importing = (data: Record<string, unknown>) => ({ method: 'Create', action: 'Import Payments', apiVersion: 'v2', data });
const reverse = (data: Record<string, unknown>) => ({ method: 'Update', action: 'Reverse Payment', apiVersion: 'v2', data });
const payments = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Retrieve Payments', apiVersion: 'v2', data });
const openBills = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Retrieve Open Bills', apiVersion: 'v2', data });
const check = (data: Record<string, unknown> = {}) => ({ method: 'Retrieve', action: 'Check Ledger', apiVersion: 'v2', data });

describe('payments', () => {
  let h: Harness;
  let w: World;
  let n = 0;
  const account = () => makeAccount(h.db, w, `ACC-${++n}`);
  const balance = async (a: TestAccount) => (await h.db.query('SELECT balance FROM account WHERE account_id = $1', [a.accountId])).rows[0].balance as string;
  const paymentOf = async (reference: string) => {
    const r = await h.post('/billing/payments/get-payments', payments({ reference }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.payments[0];
  };
  const billsOf = async (a: TestAccount) => {
    const r = await h.post('/billing/ledger/get-open-bills', openBills({ accountNumber: a.accountNumber }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data;
  };
  const ledgerOk = async () => {
    const r = await h.post('/billing/ledger/check-ledger', check(), h.tokens.viewer);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.check.problems, []);
    assert.equal(r.body.data.check.ok, true);
  };

  before(async () => {
    h = await startHarness();
    w = await makeWorld(h.db, h.appCode);
  });
  after(() => h.close());

  test('a partial payment pays the oldest bill line by line; the bill shows what is still due', async () => {
    const a = await account();
    const { billId } = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00', '50.00', '20.00'] });
    const r = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '120.00', paymentDate: '20/01/2025', reference: 'P-1', channel: 'bank', cashAccountID: 3 }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, {});
    assert.match(r.headers.get('x-billrun-payment-id') ?? '', /^\d+$/);
    assert.equal(await balance(a), '50.0000');
    const p = await paymentOf('P-1');
    assert.equal(p.amount, '120.00');
    assert.equal(p.paymentDate, '20/01/2025');
    assert.equal(p.status, 'Posted');
    assert.equal(p.cashAccountID, 3);
    assert.equal(p.applied, '120.00');
    assert.equal(p.unapplied, '0.00');
    assert.deepEqual(
      p.allocations.map((x: any) => [x.billID, x.lineNo, x.componentCode, x.amount, x.method]),
      [
        [Number(billId), 1, 'C1', '100.00', 'Chronology'],
        [Number(billId), 2, 'C2', '20.00', 'Chronology'],
      ],
    );
    const open = await billsOf(a);
    assert.equal(open.bills.length, 1);
    assert.equal(open.bills[0].due, '50.00');
    assert.equal(open.bills[0].paid, '120.00');
    assert.equal(open.bills[0].settledBy, 'line');
    assert.deepEqual(open.bills[0].lines.map((l: any) => l.due), ['0.00', '30.00', '20.00']);
    await ledgerOk();
  });

  test('an overpayment settles several bills oldest due first and keeps the rest as credit for the next bill', async () => {
    const a = await account();
    const later = await postBill(h.db, w, a, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['80.00'] });
    const older = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['60.00'] });
    await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: 200, paymentDate: '20/02/2025', reference: 'P-2', channel: 'cash' }), h.tokens.biller);
    const p = await paymentOf('P-2');
    assert.deepEqual(p.allocations.map((x: any) => [x.billID, x.amount]), [
      [Number(older.billId), '60.00'],
      [Number(later.billId), '80.00'],
    ]);
    assert.equal(p.unapplied, '60.00');
    assert.equal(await balance(a), '-60.0000');
    assert.equal((await billsOf(a)).bills.length, 0);
    // The next bill is paid from the credit when it is posted.
    const next = await postBill(h.db, w, a, { billDate: '2025-03-01', dueDate: '2025-03-15', lines: ['40.00', '30.00'] });
    const open = await billsOf(a);
    assert.equal(open.bills.length, 1);
    assert.equal(open.bills[0].billID, Number(next.billId));
    assert.equal(open.bills[0].due, '10.00');
    assert.deepEqual(open.bills[0].lines.map((l: any) => l.due), ['0.00', '10.00']);
    assert.equal((await paymentOf('P-2')).unapplied, '0.00');
    await ledgerOk();
  });

  test('a payment that arrives before any bill waits as credit', async () => {
    const a = await account();
    await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '75.50', paymentDate: '01/01/2025', reference: 'P-3', channel: 'mobile' }), h.tokens.biller);
    assert.equal((await paymentOf('P-3')).unapplied, '75.50');
    const open = await billsOf(a);
    assert.deepEqual(open.otherItems.map((o: any) => [o.kind, o.open]), [['payment', '-75.50']]);
    await postBill(h.db, w, a, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['100.00'] });
    const after = await billsOf(a);
    assert.equal(after.bills[0].due, '24.50');
    assert.deepEqual(after.otherItems, []);
    assert.equal(await balance(a), '24.5000');
  });

  test('a reversal after settlement reopens the bills it paid, keeps its reason, and only once', async () => {
    const a = await account();
    const b1 = await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00'] });
    const b2 = await postBill(h.db, w, a, { billDate: '2025-02-01', dueDate: '2025-02-15', lines: ['50.00'] });
    await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '120', paymentDate: '16/02/2025', reference: 'CHQ-1', channel: 'cheque' }), h.tokens.biller);
    await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '50', paymentDate: '17/02/2025', reference: 'P-4', channel: 'bank' }), h.tokens.biller);
    assert.equal(await balance(a), '-20.0000');
    assert.equal((await paymentOf('P-4')).unapplied, '20.00');

    const r = await h.post('/billing/payments/reverse-payment', reverse({ reference: 'CHQ-1', reason: 'cheque bounced', reversalDate: '20/02/2025' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await balance(a), '100.0000');
    const chq = await paymentOf('CHQ-1');
    assert.equal(chq.status, 'Reversed');
    assert.equal(chq.reversal.reason, 'cheque bounced');
    assert.equal(chq.reversal.reversalDate, '20/02/2025');
    assert.equal(chq.applied, '0.00');
    assert.equal(chq.unapplied, '0.00');
    assert.ok(chq.allocations.filter((x: any) => x.method === 'Chronology').every((x: any) => x.releasedAt !== null));
    // The other payment keeps what it paid, and its credit now pays the oldest reopened bill.
    const p4 = await paymentOf('P-4');
    assert.equal(p4.unapplied, '0.00');
    assert.deepEqual(p4.allocations.filter((x: any) => x.releasedAt === null).map((x: any) => [x.billID, x.amount]), [
      [Number(b2.billId), '30.00'],
      [Number(b1.billId), '20.00'],
    ]);
    const open = await billsOf(a);
    assert.deepEqual(open.bills.map((b: any) => [b.billID, b.due]), [
      [Number(b1.billId), '80.00'],
      [Number(b2.billId), '20.00'],
    ]);
    const again = await h.post('/billing/payments/reverse-payment', reverse({ reference: 'CHQ-1', reason: 'again' }), h.tokens.biller);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'INVALID_STATE');
    assert.equal(again.body.error.details[0].path, 'data.reference');
    const missing = await h.post('/billing/payments/reverse-payment', reverse({ reference: 'NOPE', reason: 'x' }), h.tokens.biller);
    assert.equal(missing.status, 404);
    await ledgerOk();
  });

  // An officer typed 1,000.50 in the console and read the amount's regular expression.
  test('an amount written with a thousands separator is refused in words, naming the field', async () => {
    const a = await account();
    const r = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '1,000.50', paymentDate: '20/01/2025', reference: 'SEP-1', channel: 'bank' }), h.tokens.biller);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.error.details, [{ path: 'data.amount', message: 'must be an amount such as 1250.50: up to 15 digits, a point and up to 4 decimals, no sign, spaces or thousands separators' }]);
  });

  test('payments that would take a balance past 16 digits are refused, not a 500, and change nothing', async () => {
    const a = await account();
    const huge = (i: number) => pay({ accountNumber: a.accountNumber, amount: '999999999999999.99', paymentDate: '20/01/2025', reference: `HUGE-${i}`, channel: 'bank' });
    for (let i = 1; i <= 10; i++) assert.equal((await h.post('/billing/payments/make-payment', huge(i), h.tokens.biller)).status, 200);
    const before = await balance(a);
    const r = await h.post('/billing/payments/make-payment', huge(11), h.tokens.biller);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    assert.equal(r.body.error.details[0].path, 'data');
    assert.equal(await balance(a), before);
    assert.equal(await paymentOf('HUGE-11'), undefined);
    await ledgerOk();
  });

  test('payments sent at once on one account are all recorded and settled, none refused', async () => {
    // An attacker's finding: 7 of 20 answered 500 (deadlock detected): each payment's row
    // referenced the account (a key-share lock) before its settlement locked it for update.
    const a = await account();
    await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00'] });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '10.00', paymentDate: '02/01/2025', reference: `AT-ONCE-${n}-${i}`, channel: 'bank' }))),
    );
    assert.deepEqual(answers.map((r) => r.status), answers.map(() => 200), JSON.stringify(answers.find((r) => r.status !== 200)?.body));
    assert.equal(await balance(a), '-100.0000');
    assert.deepEqual((await billsOf(a)).bills, []);
    await ledgerOk();
  });

  test('two identifiers that name different records are refused, and a reversal is not dated before its payment', async () => {
    // An attacker's findings: the second identifier was ignored, so a reversal meant for one
    // payment took another back, and a payment meant for one account was recorded on another;
    // a reversal dated 2020 put the payment back on the statement years before it was made.
    const [a, b] = [await account(), await account()];
    const first = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '5.00', paymentDate: '10/01/2025', reference: `ID-${n}-1`, channel: 'bank' }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '6.00', paymentDate: '10/01/2025', reference: `ID-${n}-2`, channel: 'bank' }));
    const wrongAccount = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, accountID: Number(b.accountId), amount: '7.00', paymentDate: '10/01/2025', reference: `ID-${n}-3`, channel: 'bank' }));
    assert.equal(wrongAccount.status, 400, JSON.stringify(wrongAccount.body));
    assert.deepEqual(wrongAccount.body.error.details.map((d: any) => d.path), ['data.accountID']);
    const sameAccount = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, accountID: Number(a.accountId), amount: '7.00', paymentDate: '10/01/2025', reference: `ID-${n}-4`, channel: 'bank' }));
    assert.equal(sameAccount.status, 200, JSON.stringify(sameAccount.body));
    const firstID = Number(first.headers.get('x-billrun-payment-id'));
    const mixed = await h.post('/billing/payments/reverse-payment', reverse({ paymentID: Number(second.headers.get('x-billrun-payment-id')), reference: `ID-${n}-1`, reason: 'bounced' }));
    assert.equal(mixed.status, 400, JSON.stringify(mixed.body));
    assert.deepEqual(mixed.body.error.details.map((d: any) => d.path), ['data.reference']);
    const early = await h.post('/billing/payments/reverse-payment', reverse({ paymentID: firstID, reason: 'bounced', reversalDate: '01/01/2020' }));
    assert.equal(early.status, 400, JSON.stringify(early.body));
    assert.deepEqual(early.body.error.details.map((d: any) => d.path), ['data.reversalDate']);
    assert.equal((await paymentOf(`ID-${n}-1`)).reversal, null);
    const ok = await h.post('/billing/payments/reverse-payment', reverse({ paymentID: firstID, reference: `ID-${n}-1`, reason: 'bounced', reversalDate: '10/01/2025' }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    await ledgerOk();
  });

  test('the same reference twice is refused, not doubled', async () => {
    const a = await account();
    const body = pay({ accountNumber: a.accountNumber, amount: '10.00', paymentDate: '01/03/2025', reference: 'DUP-1', channel: 'bank' });
    assert.equal((await h.post('/billing/payments/make-payment', body, h.tokens.biller)).status, 200);
    const dup = await h.post('/billing/payments/make-payment', body, h.tokens.biller);
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'CONFLICT');
    assert.equal(dup.body.error.details[0].path, 'data.reference');
    assert.equal(await balance(a), '-10.0000');
  });

  test('bad payments are refused with the failing field', async () => {
    const a = await account();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ amount: '0' }, 400, 'data.amount'],
      [{ amount: '-5' }, 400, 'data.amount'],
      [{ amount: '1.005' }, 400, 'data.amount'],
      [{ paymentDate: '31/02/2025' }, 400, 'data.paymentDate'],
      // Not received yet: settled at once, it made the balance and the statement to today disagree.
      [{ paymentDate: '01/01/2999' }, 400, 'data.paymentDate'],
      [{ accountNumber: 'NO-SUCH' }, 404, 'data.accountNumber'],
      [{ reference: undefined }, 400, 'data.reference'],
    ];
    for (const [change, status, path] of cases) {
      const data: Record<string, unknown> = { accountNumber: a.accountNumber, amount: '5', paymentDate: '01/03/2025', reference: `BAD-${path}-${status}`, channel: 'bank', ...change };
      if ('reference' in change && change.reference === undefined) delete data.reference;
      const r = await h.post('/billing/payments/make-payment', pay(data), h.tokens.biller);
      assert.equal(r.status, status, `${JSON.stringify(change)}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.error.details.some((d: any) => d.path === path), `${path} in ${JSON.stringify(r.body.error.details)}`);
    }
    assert.equal(await balance(a), '0.0000');
  });

  test('roles and apps: a viewer reads but may not pay; another app sees nothing', async () => {
    const a = await account();
    const r = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '5', reference: 'V-1', channel: 'bank' }), h.tokens.viewer);
    assert.equal(r.status, 403);
    const other = await h.post('/billing/payments/make-payment', pay({ accountNumber: a.accountNumber, amount: '5', reference: 'V-2', channel: 'bank' }), h.tokens.otherAdmin);
    assert.equal(other.status, 404);
    assert.equal(other.body.error.details[0].path, 'data.accountNumber');
    const list = await h.post('/billing/payments/get-payments', payments({ reference: 'P-1' }), h.tokens.otherAdmin);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.payments, []);
  });

  test('a bank statement (CSV) is imported all or nothing, and the same file twice doubles nothing', async () => {
    const a = await account();
    const b = await account();
    await postBill(h.db, w, a, { billDate: '2025-01-01', dueDate: '2025-01-15', lines: ['100.00'] });
    const csv = [
      'accountNumber,amount,paymentDate,reference,channel,cashAccountID,description',
      `${a.accountNumber},60.00,05/01/2025,STM-1,bank,2,first`,
      `${b.accountNumber},25.50,05/01/2025,STM-2,bank,2,`,
      `${a.accountNumber},40,06/01/2025,STM-3,bank,,"with, comma"`,
    ].join('\n');
    const r = await h.post('/billing/payments/import-payments', importing({ fileName: 'jan.csv', csv }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers.get('x-billrun-payments-recorded'), '3');
    assert.equal(await balance(a), '0.0000');
    assert.equal(await balance(b), '-25.5000');
    const importId = Number(r.headers.get('x-billrun-payment-import-id'));
    const listed = await h.post('/billing/payments/get-payments', payments({ importID: importId }), h.tokens.viewer);
    assert.equal(listed.body.data.payments.length, 3);
    assert.equal(listed.body.data.payments.find((p: any) => p.reference === 'STM-3').description, 'with, comma');

    const again = await h.post('/billing/payments/import-payments', importing({ fileName: 'jan.csv', csv }), h.tokens.biller);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    // Named as the same file, on data.csv (it was each row's reference: an attacker's finding).
    assert.deepEqual(again.body.error.details.map((d: any) => d.path), ['data.csv']);
    assert.match(again.body.message, /This file was imported already \(import \d+ at/);
    assert.equal(await balance(a), '0.0000');
    assert.equal(await balance(b), '-25.5000');
    // The same rows in another file (other spacing) are refused by reference, row by row.
    const reworded = await h.post('/billing/payments/import-payments', importing({ csv: csv + '\n' }), h.tokens.biller);
    assert.equal(reworded.status, 409);
    assert.deepEqual(reworded.body.error.details.map((d: any) => d.path), ['data.rows[1].reference', 'data.rows[2].reference', 'data.rows[3].reference']);
    // An overlapping statement with skipRecorded: known rows skipped, the new one recorded.
    const overlap = [csv.split('\n')[0], csv.split('\n')[3], `${b.accountNumber},4.50,07/01/2025,STM-4,bank,,`].join('\n');
    const skipped = await h.post('/billing/payments/import-payments', importing({ csv: overlap, skipRecorded: true }), h.tokens.biller);
    assert.equal(skipped.status, 200, JSON.stringify(skipped.body));
    assert.equal(skipped.headers.get('x-billrun-payments-recorded'), '1');
    assert.equal(skipped.headers.get('x-billrun-payments-skipped'), '1');
    assert.equal(await balance(b), '-30.0000');
    await ledgerOk();
  });

  test('a statement with bad rows records nothing and names every bad row', async () => {
    const a = await account();
    const csv = [
      'accountNumber,amount,paymentDate,reference,channel',
      `${a.accountNumber},10.00,05/01/2025,BAD-1,bank`,
      `NO-SUCH-ACCOUNT,10.00,05/01/2025,BAD-2,bank`,
      `${a.accountNumber},ten,05/01/2025,BAD-3,bank`,
      `${a.accountNumber},10.00,2025-01-05,BAD-4,bank`,
      `${a.accountNumber},10.00,05/01/2025,BAD-1,bank`,
      `${a.accountNumber},10.00,05/01/2025,BAD-6,`,
      `${a.accountNumber},10.00,05/01/2999,BAD-7,bank`,
      // make-payment's rule for a reference (an import took a zero-width space: an attacker's finding).
      `${a.accountNumber},10.00,05/01/2025,BAD\u200b-8,bank`,
    ].join('\n');
    const r = await h.post('/billing/payments/import-payments', importing({ csv }), h.tokens.biller);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(r.body.error.details.map((d: any) => d.path).sort(), [
      'data.rows[2].accountNumber',
      'data.rows[3].amount',
      'data.rows[4].paymentDate',
      'data.rows[5].reference',
      'data.rows[6].channel',
      'data.rows[7].paymentDate',
      'data.rows[8].reference',
    ]);
    assert.equal(await balance(a), '0.0000');
    const none = await h.post('/billing/payments/get-payments', payments({ reference: 'BAD-1' }), h.tokens.viewer);
    assert.deepEqual(none.body.data.payments, []);

    const header = await h.post('/billing/payments/import-payments', importing({ csv: 'accountNumber,amount,when\nX,1,2' }), h.tokens.biller);
    assert.equal(header.status, 400);
    assert.ok(header.body.error.details.some((d: any) => d.path === 'data.csv.header[2]'));
    const json = await h.post(
      '/billing/payments/import-payments',
      importing({ payments: [{ accountNumber: a.accountNumber, amount: 5, paymentDate: '05/01/2025', reference: 'J-1', channel: 'bank' }, { accountNumber: a.accountNumber, amount: 5, paymentDate: '05/01/2025', channel: 'bank' }] }),
      h.tokens.biller,
    );
    assert.equal(json.status, 400);
    assert.deepEqual(json.body.error.details, [{ path: 'data.payments[1].reference', message: 'is required' }]);
    // A number where text belongs is refused on its field, not turned into text (1e21 was the reference "1e+21").
    const numbers = await h.post(
      '/billing/payments/import-payments',
      importing({ payments: [{ accountNumber: a.accountNumber, amount: 5, paymentDate: '05/01/2025', reference: 1e21, channel: 7, cashAccountID: 3 }] }),
      h.tokens.biller,
    );
    assert.equal(numbers.status, 400);
    assert.deepEqual(numbers.body.error.details, [
      { path: 'data.payments[0].reference', message: 'must be text (a JSON string)' },
      { path: 'data.payments[0].channel', message: 'must be text (a JSON string)' },
    ]);
  });
});
