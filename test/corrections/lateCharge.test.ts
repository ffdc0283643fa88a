// A late charge on a cancelled bill (issue 12): the charge goes with the bill it was
// charged on. A credit note reverses it in the correction's transaction, and the rebill,
// a new debt, is charged by the daily job when it is late in its turn: one debt never
// carries two live late charges. Before this, the cancelled bill kept its charge and the
// job charged the rebill again.
// Amounts by hand from the shared water tariff (test/fixtures/tariffs.ts) with a late
// charge of 2%, minimum 5, after 10 days of grace:
//   20 m3: water 500 + 700 = 1200, sewer 120, VAT 16% of 1470 = 235.20: 1705.20; late charge 34.104 -> 34.10
//   15 m3 (the corrected reading): water 500 + 350 = 850, sewer 85, VAT 16% of 1085 = 173.60: 1258.60; late charge 25.172 -> 25.17
// The term of November 2026 is due on 14/12/2026 (30/11 + 14 days); the run makes its bills
// on the tests' today, 31/01/2027, when their grace (to 24/12/2026) is long over. The rebill
// keeps that due date (docs/corrections.md, "Dates": the bill gave no days after its date),
// so the job charges it on its next run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, subscriptions, tariff } from '../terms/fixtures.ts';
import { lateCharges, runOnce } from '../lateCharges/support.ts';
import { correctionCalls, envelope } from './support.ts';

describe('a late charge on a cancelled bill', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER', { lateCharge: { graceDays: 10, percentage: '2', minimum: '5' } })]));
  });
  after(() => close());
  const { ok, postedTerm, billsOf, accountNumberOf, statementOf, ledgerOk, correctReading } = correctionCalls(() => h);
  /** The account's late charges that stand (not reversed with their bill). */
  const standing = async (accountID: string) => (await lateCharges(h, { accountID: Number(accountID) })).filter((c) => c.reversed === null);

  test('charged late, cancelled and rebilled, the job run again: the debt carries one late charge', async () => {
    const [late, paid, dropped] = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100], ['2026-11-30', 120]] });
    const termID = await postedTerm({ billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const [oldLate, oldPaid, oldDropped] = await billsOf({ termID });
    assert.deepEqual([oldLate.total, oldLate.dueDate], ['1705.20', '14/12/2026']);

    await runOnce(h);
    for (const b of [oldLate, oldPaid, oldDropped]) assert.deepEqual((await lateCharges(h, { billID: b.billID })).map((c) => c.amount), ['34.10']);
    // One customer pays the bill and its late charge; the others do not.
    await ok('/billing/payments/make-payment', envelope('Create', 'Create Payment', { accountNumber: await accountNumberOf(paid!), amount: '1739.30', paymentDate: '31/01/2027', reference: 'LCC-1', channel: 'bank' }));

    // One bill cancelled without a rebill: its late charge goes with it, the account owes nothing.
    const gone = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: oldDropped.billID, reason: 'not our customer', rebill: false }));

    // The meter was misread (115, not 120): the term's other bills cancelled and rebilled.
    for (const s of [late!, paid!]) await correctReading(s, '2026-11-30', '115');
    const done = await ok('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID, reason: 'misread meters' }));
    const [, , , newLate, newPaid] = await billsOf({ termID });
    assert.deepEqual([newLate.correctsBillID, newLate.total, newLate.dueDate], [oldLate.billID, '1258.60', '14/12/2026']);
    // The charge is reversed before the rebill is made: it brings forward no reversed charge.
    assert.deepEqual([newLate.balanceBroughtForward, newLate.totalDue], ['0.00', '1258.60']);
    assert.deepEqual([newPaid.balanceBroughtForward, newPaid.totalDue], ['-1739.30', '-480.70']);

    // The job run again (twice): the rebill, unpaid past its grace, is charged; the
    // cancelled bill's charge was reversed, so the debt carries one.
    await runOnce(h);
    await runOnce(h);
    const st = await statementOf(late!);
    assert.deepEqual(
      st.entries.map((e: any) => [e.kind, e.amount, e.billID, e.reversesEntryID !== null]),
      [
        ['bill', '1705.20', oldLate.billID, false],
        ['adjustment', '34.10', oldLate.billID, false],
        ['bill_reversal', '-1705.20', oldLate.billID, true],
        ['adjustment', '-34.10', oldLate.billID, true],
        ['bill', '1258.60', newLate.billID, false],
        ['adjustment', '25.17', newLate.billID, false],
      ],
    );
    assert.equal(st.closingBalance, '1283.77');
    assert.deepEqual((await standing(late!.accountId)).map((c) => [c.billID, c.overdue, c.amount]), [[newLate.billID, '1258.60', '25.17']]);
    const noteLate = done.creditNotes.find((c: any) => c.billID === oldLate.billID);
    assert.equal(st.entries[3].description, `Late payment charge on bill ${oldLate.billNumber} reversed by credit note ${noteLate.creditNoteNumber}`);
    assert.equal(st.entries[3].reversesEntryID, st.entries[1].entryID);
    // Both entries the credit note made name it in fields of their own.
    assert.deepEqual(
      st.entries.map((e: any) => e.creditNoteNumber),
      [null, null, noteLate.creditNoteNumber, noteLate.creditNoteNumber, null, null],
    );

    // The correction's answer and get-late-charges show the reversal and its credit note.
    assert.deepEqual([done.cancelled, done.rebilled, done.credited, done.rebilledAmount, done.change, done.lateChargesReversed], [2, 2, '3410.40', '2517.20', '-893.20', '68.20']);
    assert.deepEqual(done.creditNotes.map((c: any) => c.lateChargeReversed), ['34.10', '34.10']);
    const old = (await lateCharges(h, { billID: oldLate.billID }))[0];
    assert.deepEqual(old.reversed, { entryID: st.entries[3].entryID, creditNoteID: noteLate.creditNoteID, creditNoteNumber: noteLate.creditNoteNumber, date: '31/01/2027' });

    // Settlement followed: what paid the bill and its late charge pays the rebill; the rest
    // is credit, and a paid rebill is not charged.
    assert.deepEqual(await standing(paid!.accountId), []);
    const p = (await ok('/billing/payments/get-payments', envelope('Retrieve', 'Retrieve Payments', { reference: 'LCC-1' }), h.tokens.viewer)).payments[0];
    assert.deepEqual([p.applied, p.unapplied], ['1258.60', '480.70']);
    assert.ok(p.allocations.filter((a: any) => a.releasedAt === null).every((a: any) => a.billID === newPaid.billID));
    assert.equal((await statementOf(paid!)).closingBalance, '-480.70');
    // The bill cancelled without a rebill took its late charge with it: the account owes nothing.
    assert.equal((await statementOf(dropped!)).closingBalance, '0.00');
    assert.deepEqual([gone.credited, gone.lateChargesReversed, gone.creditNotes[0].lateChargeReversed], ['1705.20', '34.10', '34.10']);
    assert.deepEqual(await standing(dropped!.accountId), []);
    await ledgerOk();
  });
});
