// Security deposits end to end through HTTP on a real PostgreSQL: charged when a
// subscription is connected (make-subscription, an import, a move onto a template asking
// for more), paid like a bill item, held apart from the balance, applied to the
// subscription's open bills once its final bill is out and the rest refunded for a payment
// run. Here the bills are posted by a fixture, so a termination finds its final bill out
// already (released at once) or waits for one that never comes (release-deposits);
// finalBill.test.ts runs the final term itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertError, env, makeAccount, makeSubscription, makeTemplate, waterTemplate } from '../subscriptions/fixtures.ts';
import { postBill, type World } from '../settlement/fixtures.ts';

const TODAY = '31/01/2027'; // the tests' pinned today: deposit entries are dated the day they are made

describe('security deposits', () => {
  let h: Harness;
  let n = 0;

  const statement = async (accountNumber: string) => {
    const r = await h.post('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.statement;
  };
  const deposits = async (data: Record<string, unknown>) => {
    const r = await h.post('/billing/deposits/get-deposits', env('Retrieve', 'Retrieve Deposits', data), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.deposits;
  };
  const pay = async (accountNumber: string, amount: string) => {
    const r = await h.post(
      '/billing/payments/make-payment',
      env('Create', 'Create Payment', { accountNumber, amount, reference: `PAY-${++n}`, channel: 'bank' }),
      h.tokens.biller,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  const terminate = async (subscriptionID: number, endDate = '31/12/2026') => {
    const r = await h.post('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  const release = (subscriptionID: number, token = h.tokens.biller) =>
    h.post('/billing/deposits/release-deposits', env('Update', 'Release Deposits', { subscriptionID }), token);
  const openBills = async (accountNumber: string) => {
    const r = await h.post('/billing/ledger/get-open-bills', env('Retrieve', 'Retrieve Open Bills', { accountNumber }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data;
  };
  const ledgerOk = async () => {
    const r = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', {}), h.tokens.viewer);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.check.problems, []);
    assert.equal(r.body.data.check.ok, true);
  };
  /** A posted bill of the subscription, written as the bill run posts it, in a Posted term of `period`. */
  const bill = async (subscriptionId: number, b: { billDate: string; dueDate: string; lines: string[]; period: { start: string; end: string } }) => {
    const s = await h.db.query(
      `SELECT s.account_id, a.account_number, s.service_id, s.batch_id, v.service_version_id
         FROM subscription s JOIN account a ON a.account_id = s.account_id
         JOIN service sv ON sv.service_id = s.service_id JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
        WHERE s.subscription_id = $1`,
      [subscriptionId],
    );
    const x = s.rows[0];
    const w: World = { appCode: h.appCode, serviceId: x.service_id, versionId: x.service_version_id, batchId: x.batch_id };
    return postBill(h.db, w, { accountId: x.account_id, accountNumber: x.account_number, subscriptionId: String(subscriptionId) }, b);
  };

  before(async () => {
    h = await startHarness();
    await makeTemplate(h, { ...waterTemplate('WATER'), securityDeposit: '500.00' });
    await makeTemplate(h, { ...waterTemplate('SEWER'), securityDeposit: 700 });
    await makeTemplate(h, waterTemplate('PLAIN'));
  });
  after(() => h.close());

  test('charged at connection, paid like a bill item, held apart from the balance; terminated once its final bill is posted: applied to the open bills and the rest refunded at once', async () => {
    await makeAccount(h, 'D-1');
    const sub = await makeSubscription(h, 'D-1');
    // Charged: a deposit entry of 500, owed like a bill item (category deposit), nothing held yet.
    let st = await statement('D-1');
    assert.deepEqual(st.entries.map((e: any) => [e.kind, e.amount, e.date]), [['deposit', '500.00', TODAY]]);
    assert.equal(st.balance, '500.00');
    assert.equal(st.heldDeposit, '0.00');
    assert.deepEqual((await openBills('D-1')).otherItems.map((o: any) => [o.kind, o.open]), [['deposit', '500.00']]);
    let [d] = await deposits({ accountNumber: 'D-1' });
    assert.deepEqual([d.status, d.amount, d.held, d.due, d.subscriptionID], ['Held', '500.00', '0.00', '500.00', sub]);

    // Paid in two parts: held grows, the balance falls to 0, never to -500 (not credit).
    await pay('D-1', '200.00');
    st = await statement('D-1');
    assert.deepEqual([st.balance, st.heldDeposit], ['300.00', '200.00']);
    await pay('D-1', '300.00');
    st = await statement('D-1');
    assert.deepEqual([st.balance, st.heldDeposit], ['0.00', '500.00']);
    [d] = await deposits({ accountNumber: 'D-1' });
    assert.deepEqual([d.held, d.due], ['500.00', '0.00']);

    // October's bill of 100 + 50: owed on its own; the deposit stays held while the subscription lives.
    const b = await bill(sub, { billDate: '2026-11-01', dueDate: '2026-11-15', lines: ['100.00', '50.00'], period: { start: '2026-10-01', end: '2026-10-31' } });
    st = await statement('D-1');
    assert.deepEqual([st.balance, st.heldDeposit], ['150.00', '500.00']);

    // Terminated on 31 October, whose term is posted already (its final bill is out): 150
    // applied to the open bill, 500 - 150 = 350 refunded; balance 150 - 500 + 350 = 0.
    await terminate(sub, '31/10/2026');
    st = await statement('D-1');
    assert.deepEqual(st.entries.slice(-2).map((e: any) => [e.kind, e.amount, e.balance]), [
      ['deposit_release', '-500.00', '-350.00'],
      ['deposit_refund', '350.00', '0.00'],
    ]);
    assert.deepEqual([st.balance, st.heldDeposit], ['0.00', '0.00']);
    const open = await openBills('D-1');
    assert.deepEqual([open.bills, open.otherItems], [[], []]);
    [d] = await deposits({ accountNumber: 'D-1' });
    assert.deepEqual([d.status, d.releasedOn, d.unpaid, d.held, d.applied, d.refunded, d.refundPaidOn], ['Released', TODAY, '0.00', '500.00', '150.00', '350.00', null]);
    const alloc = await h.db.query('SELECT line_no, amount, method FROM allocation WHERE bill_id = $1 AND released_at IS NULL ORDER BY line_no', [b.billId]);
    assert.deepEqual(alloc.rows.map((r) => [r.line_no, r.amount, r.method]), [[1, '100.0000', 'Deposit'], [2, '50.0000', 'Deposit']]);

    // Not paid out before the refund was made (an attacker's paidDate of 01/01/2000 was taken).
    const early = await h.post('/billing/deposits/pay-refunds', env('Update', 'Pay Deposit Refunds', { depositIDs: [d.depositID], reference: 'RUN-OLD', paidDate: '01/01/2000' }), h.tokens.biller);
    assertError(early, 400, 'VALIDATION_FAILED', 'data.paidDate');
    // A payment run lists the refund due, pays it out, and it is due no more.
    const due = await deposits({ refundDue: true });
    assert.deepEqual(due.map((x: any) => [x.depositID, x.accountNumber, x.refunded]), [[d.depositID, 'D-1', '350.00']]);
    const paid = await h.post(
      '/billing/deposits/pay-refunds',
      env('Update', 'Pay Deposit Refunds', { depositIDs: [d.depositID], reference: 'RUN-2027-01', paidDate: '31/01/2027' }),
      h.tokens.biller,
    );
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.deepEqual(paid.body.data, { recorded: 1 });
    assert.deepEqual(await deposits({ refundDue: true }), []);
    [d] = await deposits({ accountNumber: 'D-1' });
    assert.deepEqual([d.refundPaidOn, d.refundPaidReference], [TODAY, 'RUN-2027-01']);
    const again = await h.post('/billing/deposits/pay-refunds', env('Update', 'Pay Deposit Refunds', { depositIDs: [d.depositID], reference: 'RUN-2' }), h.tokens.biller);
    assertError(again, 409, 'CONFLICT', 'data.depositIDs[0]');
    await ledgerOk();

    // The journal: the deposit moves through 'deposits held' and 'deposit refunds', every day balanced.
    const j = await h.post('/billing/journal/get-journal', env('Retrieve', 'Retrieve Journal', { from: TODAY }), h.tokens.viewer);
    assert.equal(j.status, 200, JSON.stringify(j.body));
    const gl = (name: string) => j.body.data.lines.filter((l: any) => l.glAccount === name).map((l: any) => [l.debit, l.credit]);
    // deposits held: credited 500 when charged, debited 500 when released; deposit refunds: credited 350.
    assert.deepEqual(gl('deposits held'), [['500.00', '500.00']]);
    assert.deepEqual(gl('deposit refunds'), [['0.00', '350.00']]);
    assert.ok(j.body.data.days.every((x: any) => x.balanced));
  });

  test('partly paid at termination: what is held pays the bill, the unpaid part is cancelled, nothing refunded', async () => {
    await makeAccount(h, 'D-2');
    const sub = await makeSubscription(h, 'D-2');
    await pay('D-2', '200.00');
    await bill(sub, { billDate: '2026-12-01', dueDate: '2026-12-15', lines: ['300.00'], period: { start: '2026-11-01', end: '2026-11-30' } });
    let st = await statement('D-2');
    assert.deepEqual([st.balance, st.heldDeposit], ['600.00', '200.00']); // 300 of deposit + 300 of bill owed
    await terminate(sub, '30/11/2026');
    st = await statement('D-2');
    // 500 - 200 + 300 - 500 = 100: what the held 200 did not cover of the bill.
    assert.deepEqual([st.balance, st.heldDeposit], ['100.00', '0.00']);
    const open = await openBills('D-2');
    assert.deepEqual(open.bills.map((b: any) => b.due), ['100.00']);
    assert.deepEqual(open.otherItems, []);
    const [d] = await deposits({ accountNumber: 'D-2' });
    assert.deepEqual([d.unpaid, d.held, d.applied, d.refunded, d.refundEntryID], ['300.00', '200.00', '200.00', '0.00', null]);
    assert.equal(st.entries.some((e: any) => e.kind === 'deposit_refund'), false);
    assert.deepEqual((await deposits({ refundDue: true })).filter((x: any) => x.accountNumber === 'D-2'), []);
    const refused = await h.post('/billing/deposits/pay-refunds', env('Update', 'Pay Deposit Refunds', { depositIDs: [d.depositID], reference: 'RUN-3' }), h.tokens.biller);
    assertError(refused, 400, 'VALIDATION_FAILED', 'data.depositIDs[0]');
    await ledgerOk();
  });

  test('waiting credit pays the deposit when it is charged', async () => {
    await makeAccount(h, 'D-3');
    await pay('D-3', '650.00');
    await makeSubscription(h, 'D-3');
    const st = await statement('D-3');
    assert.deepEqual([st.balance, st.heldDeposit], ['-150.00', '500.00']);
    await ledgerOk();
  });

  test('a move carries the held deposit to the new subscription and charges the top-up the new template asks for', async () => {
    await makeAccount(h, 'D-4');
    const sub = await makeSubscription(h, 'D-4');
    await pay('D-4', '500.00');
    const r = await h.post('/billing/subscriptions/move-subscription', env('Update', 'Move Subscription', { subscriptionID: sub, date: '01/06/2026', serviceCode: 'SEWER' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const moved = Number(r.headers.get('x-billrun-subscription-id'));
    assert.ok(moved > sub);
    const list = await deposits({ accountNumber: 'D-4' });
    // Newest first: the top-up of 700 - 500 = 200, then the carried 500, both held by the new subscription.
    assert.deepEqual(list.map((x: any) => [x.amount, x.subscriptionID, x.chargedSubscriptionID, x.held, x.due]), [
      ['200.00', moved, moved, '0.00', '200.00'],
      ['500.00', moved, sub, '500.00', '0.00'],
    ]);
    let st = await statement('D-4');
    assert.deepEqual([st.balance, st.heldDeposit], ['200.00', '500.00']);
    // Moving back to the smaller deposit refunds nothing: the 700 stays until termination.
    const back = await h.post('/billing/subscriptions/move-subscription', env('Update', 'Move Subscription', { subscriptionID: moved, date: '01/07/2026', serviceCode: 'PLAIN' }), h.tokens.biller);
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const last = Number(back.headers.get('x-billrun-subscription-id'));
    assert.equal((await deposits({ accountNumber: 'D-4' })).length, 2);
    // Terminated with no term of PLAIN to bill its end date: both stay held, waiting for
    // the final bill; no term will come, so they are released by hand.
    await terminate(last);
    st = await statement('D-4');
    assert.deepEqual([st.balance, st.heldDeposit], ['200.00', '500.00']);
    assert.deepEqual((await deposits({ accountNumber: 'D-4' })).map((x: any) => [x.status, x.endedOn, x.subscriptionID]), [
      ['Held', '31/12/2026', last],
      ['Held', '31/12/2026', last],
    ]);
    const r2 = await release(last);
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
    assert.deepEqual(r2.body.data, { released: 2, unpaid: '200.00', applied: '0.00', refunded: '500.00' });
    st = await statement('D-4');
    // 500 held, no bills: all 500 refunded; the unpaid top-up (200) cancelled.
    assert.deepEqual([st.balance, st.heldDeposit], ['0.00', '0.00']);
    const after = await deposits({ accountNumber: 'D-4' });
    assert.deepEqual(after.map((x: any) => [x.status, x.unpaid, x.applied, x.refunded, x.endedOn]), [
      ['Released', '200.00', '0.00', '0.00', null],
      ['Released', '0.00', '0.00', '500.00', null],
    ]);
    // Released once: again there is nothing to release.
    assertError(await release(last), 409, 'INVALID_STATE', 'data.subscriptionID');
    await ledgerOk();
  });

  test('an import that makes subscriptions charges their deposits; a template without one charges nothing', async () => {
    const r = await h.post(
      '/billing/imports/make-import',
      env('Create', 'Create Import', {
        kind: 'accounts',
        rows: [
          { accountNumber: 'I-1', name: 'Imported One', serviceCode: 'SEWER', batchCode: 'ZONE-A', startDate: '01/01/2025', connectionInputs: { METER_NO: 'IM1' }, unmeteredInputs: { ROOMS: 1 } },
          { accountNumber: 'I-2', name: 'Imported Two', serviceCode: 'PLAIN', batchCode: 'ZONE-A', startDate: '01/01/2025', connectionInputs: { METER_NO: 'IM2' }, unmeteredInputs: { ROOMS: 1 } },
        ],
      }),
      h.tokens.biller,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((await statement('I-1')).entries.map((e: any) => [e.kind, e.amount]), [['deposit', '700.00']]);
    assert.deepEqual((await statement('I-2')).entries, []);
    assert.deepEqual((await deposits({ accountNumber: 'I-2' })), []);
    await ledgerOk();
  });

  test('the billing summary shows the deposits since the last bill and what is held', async () => {
    const { paymentsSinceLastBill } = await import('../../src/ledger/billingSummary.ts');
    await makeAccount(h, 'D-5');
    await makeSubscription(h, 'D-5');
    await pay('D-5', '125.00');
    const a = await h.db.query('SELECT account_id FROM account WHERE app_code = $1 AND account_number = $2', [h.appCode, 'D-5']);
    const s = (await paymentsSinceLastBill(h.db, h.appCode, [a.rows[0].account_id])).get(a.rows[0].account_id)!;
    assert.deepEqual([s.balance, s.payments, s.deposits, s.heldDeposit], ['375.0000', '125.0000', '500.0000', '125.0000']);
  });

  test('subscriptions made at once on one account each charge their deposit, without a deadlock', async () => {
    await makeAccount(h, 'D-6');
    const make = (i: number) =>
      h.post(
        '/billing/subscriptions/make-subscription',
        env('Create', 'Create Subscription', { accountNumber: 'D-6', serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/01/2025', connectionInputs: { METER_NO: `M-D6-${i}` }, unmeteredInputs: { ROOMS: 1 } }),
        h.tokens.biller,
      );
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(make));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const st = await statement('D-6');
    assert.equal(st.balance, '3000.00');
    assert.equal((await deposits({ accountNumber: 'D-6' })).length, 6);
    await ledgerOk();
  });

  test('a bill the deposit paid, cancelled later, gives that part back as credit; the ledger holds', async () => {
    await makeAccount(h, 'D-7');
    const sub = await makeSubscription(h, 'D-7');
    await pay('D-7', '500.00');
    const b = await bill(sub, { billDate: '2026-10-01', dueDate: '2026-10-15', lines: ['100.00'], period: { start: '2026-09-01', end: '2026-09-30' } });
    await terminate(sub, '30/09/2026');
    assert.equal((await statement('D-7')).balance, '0.00'); // 100 applied, 400 refunded
    const r = await h.post('/billing/bills/cancel-bill', env('Update', 'Cancel Bill', { billID: Number(b.billId), reason: 'wrong meter', rebill: false }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const st = await statement('D-7');
    assert.equal(st.balance, '-100.00');
    assert.deepEqual((await openBills('D-7')).otherItems.map((o: any) => [o.kind, o.open]), [['deposit_release', '-100.00']]);
    await ledgerOk();
  });

  test('terminated on a day no term holds, a later term posted already: no bill run will bill that day, released at once', async () => {
    await makeAccount(h, 'D-8');
    const sub = await makeSubscription(h, 'D-8');
    await pay('D-8', '500.00');
    await bill(sub, { billDate: '2027-01-01', dueDate: '2027-01-15', lines: ['80.00'], period: { start: '2026-12-01', end: '2026-12-31' } });
    await terminate(sub, '15/11/2026');
    const [d] = await deposits({ accountNumber: 'D-8' });
    assert.deepEqual([d.status, d.endedOn, d.applied, d.refunded], ['Released', null, '80.00', '420.00']);
    assert.equal((await statement('D-8')).balance, '0.00');
    await ledgerOk();
  });

  test('release-deposits: a live subscription, one holding nothing, another app\'s, a viewer are refused', async () => {
    await makeAccount(h, 'D-9');
    const sub = await makeSubscription(h, 'D-9');
    assertError(await release(sub), 409, 'INVALID_STATE', 'data.subscriptionID');
    assertError(await release(sub, h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await release(sub, h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.subscriptionID');
    assertError(await release(987654321), 404, 'NOT_FOUND', 'data.subscriptionID');
    const plain = await makeSubscription(h, 'D-9', { serviceCode: 'PLAIN', connectionInputs: { METER_NO: 'M-D9-P' } });
    await terminate(plain);
    assertError(await release(plain), 409, 'INVALID_STATE', 'data.subscriptionID');
    // Still held: nothing was written by the refusals.
    assert.deepEqual((await deposits({ accountNumber: 'D-9' })).map((x: any) => [x.status, x.endedOn]), [['Held', null]]);
  });

  test('check-ledger finds a deposit whose record disagrees with its entries', async () => {
    const [d] = await deposits({ accountNumber: 'D-1' });
    await h.db.query('UPDATE deposit SET applied = applied + 1, refunded = refunded - 1 WHERE deposit_id = $1', [d.depositID]);
    const r = await h.post('/billing/ledger/check-ledger', env('Retrieve', 'Check Ledger', { accountNumber: 'D-1' }), h.tokens.viewer);
    assert.equal(r.body.data.check.ok, false);
    assert.deepEqual(r.body.data.check.problems.map((p: any) => [p.problem, p.expected, p.actual]), [
      ['the deposit release does not settle its unpaid part and its refund', '0.0000 / 349.0000', '0 / 350.0000'],
      ['the deposit refund entry is not its refund', '349.0000', '350.0000'],
    ]);
    await h.db.query('UPDATE deposit SET applied = applied - 1, refunded = refunded + 1 WHERE deposit_id = $1', [d.depositID]);
    await ledgerOk();
  });

  test('bad requests: unknown or another app\'s deposit, roles, a deposit listed twice', async () => {
    const mine = (await deposits({ accountNumber: 'D-1' }))[0].depositID;
    const payRefunds = (data: unknown, token = h.tokens.biller) => h.post('/billing/deposits/pay-refunds', env('Update', 'Pay Deposit Refunds', data), token);
    assertError(await payRefunds({ depositIDs: [999999], reference: 'X' }), 404, 'NOT_FOUND', 'data.depositIDs[0]');
    assertError(await payRefunds({ depositIDs: [mine], reference: 'X' }, h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.depositIDs[0]');
    assertError(await payRefunds({ depositIDs: [mine], reference: 'X' }, h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await payRefunds({ depositIDs: [mine, mine], reference: 'X' }), 400, 'VALIDATION_FAILED', 'data.depositIDs');
    assertError(await payRefunds({ depositIDs: [mine], reference: 'X', paidDate: '31/02/2027' }), 400, 'VALIDATION_FAILED', 'data.paidDate');
    assertError(await payRefunds({ depositIDs: [], reference: 'X' }), 400, 'VALIDATION_FAILED');
    const other = await h.post('/billing/deposits/get-deposits', env('Retrieve', 'Retrieve Deposits', {}), h.tokens.otherAdmin);
    assert.deepEqual(other.body.data.deposits, []);
  });
});
