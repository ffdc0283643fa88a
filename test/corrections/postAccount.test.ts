// Rebilling a Post Account bill (issue 12): a posted account bill cancelled by its credit
// note and rebilled whole, every roster subscription of the account rated again with the
// readings as they are now, one new account bill linked to the one it corrects; a term's
// account bills the same way in cancel-and-rebill. Before this, rebilling an account bill
// was refused (VALIDATION_FAILED, nothing cancelled).
// Amounts by hand from the shared water tariff (test/fixtures/tariffs.ts), per subscription:
//   25 m3: standing 150, water 500 + 15 x 70 = 1550, sewer 155: charges 1855.00, VAT 296.80, total 2151.80
//   20 m3: standing 150, water 500 + 10 x 70 = 1200, sewer 120: charges 1470.00, VAT 235.20, total 1705.20
//    5 m3: standing 150, water 250, sewer 25:                    charges  425.00, VAT  68.00, total  493.00
//   40 m3: standing 150, water 500 + 1400 + 900 = 2800, sewer 280: charges 3230.00, VAT 516.80, total 3746.80
// Account A (25 and 5 m3): 2644.80; with the first meter's reading corrected to 20 m3: 1705.20 + 493.00 = 2198.20
// (charges 1895.00, tax 303.20). Account B (40 m3): 3746.80, the same when rated again. Each has an opening
// balance of 40.00.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { postAccountCustomer, startRun, tariff } from '../terms/fixtures.ts';
import { eventually } from '../documents/support.ts';
import { correctionCalls, envelope } from './support.ts';

describe('rebilling a Post Account bill', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER', { postType: 'Post Account' })]));
  });
  after(() => close());
  const { ok, postedTerm, billsOf, statementOf, ledgerOk, correctReading } = correctionCalls(() => h);
  const groups = (b: any) => b.subscriptions.map((g: any) => [g.subscriptionID, g.charges, g.tax, g.total]);

  test("a posted term's account bills cancelled and rebilled whole: credit notes, new account bills, the payment moved", async () => {
    const a = await postAccountCustomer(h, 'PA-A', [25, 5]);
    const b = await postAccountCustomer(h, 'PA-B', [40]);
    const termID = await postedTerm({ billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const [oldA, oldB] = await billsOf({ termID });
    assert.deepEqual([oldA.postType, oldA.subscriptionID, oldA.total, oldA.totalDue, oldB.total], ['Post Account', null, '2644.80', '2684.80', '3746.80']);
    // Account A pays 1000.00: 40.00 of its opening balance (older), 960.00 of its bill.
    await ok('/billing/payments/make-payment', envelope('Create', 'Create Payment', { accountNumber: 'PA-A', amount: '1000.00', paymentDate: '31/01/2027', reference: 'PA-1', channel: 'bank' }));

    // A's first meter was misread: 120, not 125, on 30/11.
    await correctReading({ subscriptionId: a.subs[0]! }, '2026-11-30', '120');
    const done = await ok('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID, reason: 'misread meter' }));
    assert.deepEqual(
      [done.cancelled, done.rebilled, done.credited, done.rebilledAmount, done.change],
      [2, 2, '6391.60', '5945.00', '-446.60'],
    );

    const bills = await billsOf({ termID });
    assert.equal(bills.length, 4);
    const [cA, cB, newA, newB] = bills;
    assert.deepEqual([cA.billID, cA.status, cA.total, cB.billID, cB.status], [oldA.billID, 'cancelled', '2644.80', oldB.billID, 'cancelled']);
    // One new account bill per account, its groups rated again with the readings as they are now.
    assert.deepEqual(
      [newA.accountID, newA.postType, newA.subscriptionID, newA.status, newA.correctsBillID, newA.charges, newA.tax, newA.total],
      [Number(a.accountId), 'Post Account', null, 'posted', oldA.billID, '1895.00', '303.20', '2198.20'],
    );
    assert.deepEqual(groups(newA), [
      [Number(a.subs[0]), '1470.00', '235.20', '1705.20'],
      [Number(a.subs[1]), '425.00', '68.00', '493.00'],
    ]);
    assert.equal(newA.lines.find((l: any) => l.subscriptionID === Number(a.subs[0]) && l.componentCode === 'WATER').quantity, '20');
    assert.equal(newA.dueDate, oldA.dueDate);
    // Brought forward: the balance after the credit note, the payment in it: 40 + 2644.80 - 1000 - 2644.80.
    assert.deepEqual([newA.balanceBroughtForward, newA.totalDue], ['-960.00', '1238.20']);
    assert.deepEqual([newB.correctsBillID, newB.total, newB.balanceBroughtForward, newB.totalDue], [oldB.billID, '3746.80', '40.00', '3786.80']);
    assert.deepEqual(groups(newB), [[Number(b.subs[0]), '3230.00', '516.80', '3746.80']]);

    // The credit note is linked to both bills.
    const notes = (await ok('/billing/bills/get-credit-notes', envelope('Retrieve', 'Retrieve Credit Notes', { billID: newA.billID }), h.tokens.viewer)).creditNotes;
    assert.deepEqual(
      notes.map((n: any) => [n.billID, n.rebillID, n.charges, n.tax, n.amount, n.origin]),
      [[oldA.billID, newA.billID, '2280.00', '364.80', '2644.80', 'cancel-and-rebill']],
    );
    assert.deepEqual(cA.creditNote.rebillID, newA.billID);

    // Settlement followed: what had paid the old bill pays the new one (Chronology).
    const p = (await ok('/billing/payments/get-payments', envelope('Retrieve', 'Retrieve Payments', { reference: 'PA-1' }), h.tokens.viewer)).payments[0];
    assert.deepEqual([p.applied, p.unapplied], ['1000.00', '0.00']);
    const live = p.allocations.filter((x: any) => x.releasedAt === null && x.billID !== null);
    assert.deepEqual(live.map((x: any) => [x.billID, x.method]), live.map(() => [newA.billID, 'Chronology']));
    assert.ok(p.allocations.some((x: any) => x.releasedAt !== null && x.billID === oldA.billID), 'what paid the old bill is released');
    const open = (await ok('/billing/ledger/get-open-bills', envelope('Retrieve', 'Retrieve Open Bills', { accountNumber: 'PA-A' }), h.tokens.viewer)).bills;
    assert.deepEqual(open.map((x: any) => [x.billID, x.due]), [[newA.billID, '1238.20']]);
    const st = await statementOf(a);
    assert.deepEqual(
      st.entries.map((e: any) => [e.kind, e.amount, e.billID]),
      [
        ['opening_balance', '40.00', null],
        ['bill', '2644.80', oldA.billID],
        ['payment', '-1000.00', null],
        ['bill_reversal', '-2644.80', oldA.billID],
        ['bill', '2198.20', newA.billID],
      ],
    );
    assert.equal(st.closingBalance, '1238.20');

    // The rebill is verified as any account bill (its source recorded), and its document made.
    const v = await ok('/billing/bills/verify-bill', envelope('Retrieve', 'Verify Bill', { billID: newA.billID }), h.tokens.viewer);
    assert.equal(v.matches, true, JSON.stringify(v));
    await eventually(async () => {
      const d = await h.db.query(`SELECT status FROM bill_document WHERE bill_id = $1`, [newA.billID]);
      return d.rows[0]?.status === 'rendered' ? true : undefined;
    }, "the rebill's document rendered");

    // One account bill alone (cancel-bill): a correction of the correction, rebilled the same.
    const again = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: newA.billID, reason: 'checked again' }));
    assert.deepEqual([again.cancelled, again.rebilled, again.credited, again.rebilledAmount], [1, 1, '2198.20', '2198.20']);
    const third = (await billsOf({ accountID: Number(a.accountId) })).at(-1);
    assert.deepEqual([third.correctsBillID, third.total, groups(third).length], [newA.billID, '2198.20', 2]);

    // Bill numbers and credit-note numbers run without gaps.
    const numbers = await h.db.query('SELECT bill_number::int AS n FROM bill WHERE app_code = $1 ORDER BY 1', [h.appCode]);
    assert.deepEqual(numbers.rows.map((r) => r.n), numbers.rows.map((_, i) => i + 1));
    const noteNumbers = await h.db.query('SELECT credit_note_number::int AS n FROM credit_note WHERE app_code = $1 ORDER BY 1', [h.appCode]);
    assert.deepEqual(noteNumbers.rows.map((r) => r.n), [1, 2, 3]);
    await ledgerOk();
  });
});
