// Corrections after posting, end to end through HTTP with a worker running the bill run:
// a posted term cancelled and rebilled after a reading is corrected, with payments made
// against the old bills; an estimated bill replaced after the actual reading arrives.
// Amounts by hand from the shared water tariff (test/fixtures/tariffs.ts): standing 150;
// water 10 m3 at 50, the next 20 at 70, then 90; sewer 10% of water; VAT 16% of all three.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { paymentsSinceLastBill } from '../../src/ledger/billingSummary.ts';
import { makeTerm, startRun, subscriptions, tariff } from '../terms/fixtures.ts';
import { correctionCalls, envelope } from './support.ts';

describe('corrections after posting', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
  });
  after(() => close());

  const { ok, postedTerm, billsOf, accountNumberOf, statementOf, ledgerOk, correctReading } = correctionCalls(() => h);

  test('a posted term cancelled and rebilled after a reading is corrected: credit notes, new bills, payments moved, the statement shows all three', async () => {
    const [paid, part] = await subscriptions(h, { n: 2, readings: [['2026-10-31', 100], ['2026-11-30', 120]] });
    const termID = await postedTerm({ billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    // 20 m3: water 500 + 700 = 1200, sewer 120, VAT 16% of 1470 = 235.20: 1705.20.
    let bills = await billsOf({ termID });
    assert.deepEqual(
      bills.map((b: any) => [b.subscriptionID, b.total, b.status, b.creditNote, b.correctsBillID]),
      [
        [Number(paid!.subscriptionId), '1705.20', 'posted', null, null],
        [Number(part!.subscriptionId), '1705.20', 'posted', null, null],
      ],
    );
    const [oldPaid, oldPart] = bills;
    await ok('/billing/payments/make-payment', envelope('Create', 'Create Payment', { accountNumber: await accountNumberOf(paid!), amount: '1705.20', paymentDate: '10/12/2026', reference: 'COR-1', channel: 'bank' }));
    await ok('/billing/payments/make-payment', envelope('Create', 'Create Payment', { accountNumber: await accountNumberOf(part!), amount: '1000.00', paymentDate: '10/12/2026', reference: 'COR-2', channel: 'bank' }));

    // The meter was misread: 115, not 120, on 30/11 (both subscriptions).
    for (const s of [paid!, part!]) await correctReading(s, '2026-11-30', '115');
    // A viewer may not; a biller may.
    const viewer = await h.post('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID, reason: 'misread meters' }), h.tokens.viewer);
    assert.equal(viewer.status, 403);
    // As every term route takes it, with operation "schedule" (the viewer's call above shows it may be left out).
    const done = await ok('/billing/terms/cancel-and-rebill', { ...envelope('Update', 'Cancel And Rebill Term', { termID, reason: 'misread meters', rebill: true }), operation: 'schedule' });
    // 15 m3: water 500 + 350 = 850, sewer 85, VAT 16% of 1085 = 173.60: 1258.60.
    assert.deepEqual(
      { cancelled: done.cancelled, rebilled: done.rebilled, credited: done.credited, rebilledAmount: done.rebilledAmount, change: done.change },
      { cancelled: 2, rebilled: 2, credited: '3410.40', rebilledAmount: '2517.20', change: '-893.20' },
    );
    const firstNote = done.creditNotes[0].creditNoteNumber;
    assert.deepEqual(
      done.creditNotes.map((c: any) => [c.creditNoteNumber - firstNote, c.billID, c.amount, c.rebillAmount]),
      [
        [0, oldPaid.billID, '1705.20', '1258.60'],
        [1, oldPart.billID, '1705.20', '1258.60'],
      ],
    );

    bills = await billsOf({ termID });
    assert.equal(bills.length, 4);
    // The term keeps the run's counts and totals, and says what the correction changed: the
    // two bills cancelled, two rebills, and the totals of the bills in force (2 x 1258.60).
    const term = (await ok('/billing/terms/get-terms', { ...envelope('Retrieve', 'Retrieve Terms', { termID }), operation: 'schedule' }, h.tokens.viewer)).terms[0];
    assert.deepEqual([term.counts.bills, term.totals.total], [2, '3410.40']);
    assert.deepEqual(
      [term.corrections.cancelled, term.corrections.rebills, term.corrections.totals.charges, term.corrections.totals.tax, term.corrections.totals.total],
      [2, 2, '2170.00', '347.20', '2517.20'],
    );
    const [cPaid, cPart, nPaid, nPart] = bills;
    for (const [old, cancelled, rebill, note] of [
      [oldPaid, cPaid, nPaid, done.creditNotes[0]],
      [oldPart, cPart, nPart, done.creditNotes[1]],
    ]) {
      assert.equal(cancelled.billID, old.billID);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal(cancelled.total, '1705.20', 'a cancelled bill keeps its amounts');
      assert.deepEqual(cancelled.creditNote, { creditNoteID: note.creditNoteID, creditNoteNumber: note.creditNoteNumber, creditDate: '31/01/2027', amount: '1705.20', reason: 'misread meters', rebillID: rebill.billID });
      assert.equal(rebill.status, 'posted');
      assert.equal(rebill.correctsBillID, old.billID);
      assert.equal(rebill.total, '1258.60');
      assert.equal(rebill.dueDate, old.dueDate);
      assert.ok(rebill.billNumber > old.billNumber);
      assert.equal(rebill.lines.find((l: any) => l.componentCode === 'WATER').quantity, '15');
    }
    // A rebill records what it was rated from, as a run's bill: verify-bill rates it again from
    // that (it was verified from its trace alone before: no source).
    for (const rebill of [nPaid]) {
      const v = await ok('/billing/bills/verify-bill', envelope('Retrieve', 'Verify Bill', { billID: rebill.billID }), h.tokens.viewer);
      assert.deepEqual([v.matches, v.basis], [true, 'recorded'], JSON.stringify(v));
    }
    // Brought forward: the balance after the credit note, the payment in it.
    assert.equal(nPaid.balanceBroughtForward, '-1705.20');
    assert.equal(nPaid.totalDue, '-446.60');
    assert.equal(nPart.balanceBroughtForward, '-1000.00');
    assert.equal(nPart.totalDue, '258.60');

    // The credit note is linked to both bills.
    const notes = (await ok('/billing/bills/get-credit-notes', envelope('Retrieve', 'Retrieve Credit Notes', { billID: nPaid.billID }), h.tokens.viewer)).creditNotes;
    assert.equal(notes.length, 1);
    assert.deepEqual(
      [notes[0].billID, notes[0].rebillID, notes[0].billNumber, notes[0].rebillNumber, notes[0].charges, notes[0].tax, notes[0].amount, notes[0].origin],
      [oldPaid.billID, nPaid.billID, oldPaid.billNumber, nPaid.billNumber, '1470.00', '235.20', '1705.20', 'cancel-and-rebill'],
    );

    // Settlement followed: the payment that had paid the old bill pays the new one, the rest is credit.
    const p1 = (await ok('/billing/payments/get-payments', envelope('Retrieve', 'Retrieve Payments', { reference: 'COR-1' }), h.tokens.viewer)).payments[0];
    assert.equal(p1.applied, '1258.60');
    assert.equal(p1.unapplied, '446.60');
    // What had paid the old bill is released (kept, with why), what pays the new one is live.
    assert.ok(p1.allocations.filter((a: any) => a.releasedAt === null).every((a: any) => a.billID === nPaid.billID && a.method === 'Chronology'));
    assert.ok(p1.allocations.filter((a: any) => a.releasedAt !== null).every((a: any) => a.billID === oldPaid.billID));
    assert.ok(p1.allocations.some((a: any) => a.releasedAt !== null));
    const p2 = (await ok('/billing/payments/get-payments', envelope('Retrieve', 'Retrieve Payments', { reference: 'COR-2' }), h.tokens.viewer)).payments[0];
    assert.equal(p2.applied, '1000.00');
    assert.ok(p2.allocations.filter((a: any) => a.releasedAt === null).every((a: any) => a.billID === nPart.billID));
    const open = (await ok('/billing/ledger/get-open-bills', envelope('Retrieve', 'Retrieve Open Bills', { accountNumber: await accountNumberOf(part!) }), h.tokens.viewer)).bills;
    assert.deepEqual(open.map((b: any) => [b.billID, b.due]), [[nPart.billID, '258.60']]);

    // The statement: the old bill, the payment, the credit note, the new bill.
    const st = await statementOf(paid!);
    assert.deepEqual(
      st.entries.map((e: any) => [e.kind, e.amount, e.billID]),
      // by date: the payment of 10/12/2026, then the bill (dated the run's day, the tests' today), the credit note and the rebill
      [
        ['payment', '-1705.20', null],
        ['bill', '1705.20', oldPaid.billID],
        ['bill_reversal', '-1705.20', oldPaid.billID],
        ['bill', '1258.60', nPaid.billID],
      ],
    );
    assert.match(st.entries[2].description, new RegExp(`^Credit note ${done.creditNotes[0].creditNoteNumber} cancelling bill ${oldPaid.billNumber}$`));
    // The credit note's number is a field of its own on its entry, not only in the description.
    assert.deepEqual(
      st.entries.map((e: any) => [e.creditNoteID, e.creditNoteNumber]),
      [[null, null], [null, null], [done.creditNotes[0].creditNoteID, done.creditNotes[0].creditNoteNumber], [null, null]],
    );
    assert.equal(st.closingBalance, '-446.60');
    await ledgerOk();

    // A cancelled bill cannot be cancelled again.
    const again = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: oldPaid.billID, reason: 'twice' }), h.tokens.biller);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.error.code, 'INVALID_STATE');
    assert.equal(again.body.error.details[0].path, 'data.billID');
    assert.match(again.body.message, /cancelled already, by credit note/);

    // A dry run says what the correction would be and writes nothing: nothing changed since the
    // bill, so its rebill is the same amount (an officer rebilled before correcting the reading).
    const notesBefore = await h.db.query('SELECT count(*)::int AS n FROM credit_note WHERE app_code = $1', [h.appCode]);
    const dry = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: nPart.billID, reason: 'just looking', dryRun: true }), h.tokens.biller);
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual([dry.body.data.cancelled, dry.body.data.rebilled, dry.body.data.credited, dry.body.data.rebilledAmount, dry.body.data.change], [1, 1, nPart.total, nPart.total, '0.00']);
    assert.equal((await h.db.query('SELECT status FROM bill WHERE bill_id = $1', [nPart.billID])).rows[0].status, 'posted');
    assert.deepEqual((await h.db.query('SELECT count(*)::int AS n FROM credit_note WHERE app_code = $1', [h.appCode])).rows, notesBefore.rows);
    await ledgerOk();

    // Two cancels of one bill at once: one credit note.
    const both = await Promise.all(
      [1, 2].map(() => h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: nPart.billID, reason: 'at once', rebill: false }), h.tokens.biller)),
    );
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    const count = await h.db.query('SELECT count(*)::int AS n FROM credit_note WHERE bill_id = $1', [nPart.billID]);
    assert.equal(count.rows[0].n, 1);
    // Cancelled without a rebill: the account owes nothing; its payment is credit again.
    const partBills = await billsOf({ accountID: Number(part!.accountId) });
    assert.deepEqual(partBills.map((b: any) => b.status), ['cancelled', 'cancelled']);
    assert.equal(partBills[1].creditNote.rebillID, null);
    const partSt = await statementOf(part!);
    assert.equal(partSt.closingBalance, '-1000.00');
    // The billing summary counts the credit note made since the last bill among the adjustments.
    const since = (await paymentsSinceLastBill(h.db, h.appCode, [part!.accountId])).get(part!.accountId)!;
    assert.deepEqual([since.payments, since.adjustments, since.balance], ['0', '-1258.6000', '-1000.0000']);
    await ledgerOk();
    // Credit-note numbers run without gaps.
    const numbers = await h.db.query('SELECT credit_note_number::int AS n FROM credit_note WHERE app_code = $1 ORDER BY 1', [h.appCode]);
    assert.deepEqual(numbers.rows.map((r) => r.n), numbers.rows.map((_, i) => i + 1));
  });

  test('bad requests: missing bill, unposted term, blank reason: 4xx, nothing changed', async () => {
    const missing = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: 987654321, reason: 'x' }), h.tokens.biller);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.details[0].path, 'data.billID');
    const termID = await makeTerm(h, { billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026', batchCode: 'ZONE-B' });
    const draft = await h.post('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID, reason: 'x' }), h.tokens.biller);
    assert.equal(draft.status, 409);
    assert.match(draft.body.message, /is Draft; only a posted term/);
    const blank = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: 1, reason: '   ' }), h.tokens.biller);
    assert.equal(blank.status, 400);
    assert.equal(blank.body.error.details[0].path, 'data.reason');
    await ledgerOk();
  });

  test('an estimated bill replaced after the actual reading arrives: the consumption spread by days, both bills rebilled in one step', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z1', readings: [['2026-08-31', 100]] });
    const capture = (date: string, value: number, kind: string) =>
      ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(s!.subscriptionId), inputCode: 'METER', readingDate: date, value, kind }] }));
    await capture('30/09/2026', 120, 'estimated');
    const sep = await postedTerm({ batchCode: 'Z1', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    await capture('31/10/2026', 140, 'estimated');
    const oct = await postedTerm({ batchCode: 'Z1', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    const before = await billsOf({ accountID: Number(s!.accountId) });
    assert.deepEqual(before.map((b: any) => [b.termID, b.estimated, b.total]), [[sep, true, '1705.20'], [oct, true, '1705.20']]);
    // Each bill says which of its readings was an estimate, in its trace and in words.
    const water = (b: any) => b.lines.find((l: any) => l.componentCode === 'WATER');
    assert.deepEqual(
      before.map((b: any) => [water(b).trace.reading.previous.estimated, water(b).trace.reading.current.estimated]),
      [[undefined, true], [true, true]],
    );
    assert.match(water(before[0]).explanation, /METER read 100 on 31\/08\/2026 and estimated at 120 on 30\/09\/2026: 20 used \(estimated\)/);
    assert.match(water(before[1]).explanation, /METER estimated at 120 on 30\/09\/2026 and 140 on 31\/10\/2026: 20 used \(estimated\)/);
    const { loadDocumentData } = await import('../../src/documents/billContext.ts');
    const docs = await loadDocumentData(h.db, h.appCode, before.map((b: any) => String(b.billID)));
    assert.deepEqual(
      docs.map((d) => d.data.bill.readings.map((r) => [r.previousEstimated, r.currentEstimated])),
      [[[false, true]], [[true, true]]],
    );

    // Nothing to spread before an actual reading arrives after them.
    const none = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: Number(s!.subscriptionId) }), h.tokens.viewer);
    assert.deepEqual(none.bills, []);

    // The actual reading of 30/11: 190. 90 m3 over 91 days from 31/08: 30/09 is day 30
    // (100 + 90 x 30/91 = 129.67, 129 on a meter of whole m3), 31/10 day 61 (160.33, 160).
    await capture('30/11/2026', 190, 'actual');
    const listed = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: Number(s!.subscriptionId) }), h.tokens.viewer);
    assert.equal(listed.meters.length, 1);
    const m = listed.meters[0];
    // Values as get-readings writes them: exact decimal text without trailing zeros.
    assert.deepEqual([m.lastActual.readingDate, m.lastActual.value, m.previousActual.readingDate, m.problem], ['30/11/2026', '190', '31/08/2026', null]);
    assert.match(m.previousActual.value, /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
    assert.deepEqual(m.estimates.map((e: any) => [e.readingDate, e.spreadValue]), [['30/09/2026', '129'], ['31/10/2026', '160']]);
    for (const e of m.estimates) assert.match(e.value, /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/, `estimate ${JSON.stringify(e)}`);
    assert.deepEqual(listed.bills.map((b: any) => [b.billID, b.periodStart]), [[before[0].billID, '01/09/2026'], [before[1].billID, '01/10/2026']]);

    const done = await ok('/billing/bills/rebill-estimates', envelope('Update', 'Rebill Estimates', { subscriptionID: Number(s!.subscriptionId), reason: 'actual reading of 30/11' }));
    // September 29 m3: water 500 + 19 x 70 = 1830, sewer 183, VAT 16% of 2163 = 346.08: 2509.08.
    // October 31 m3: water 500 + 1400 + 90 = 1990, sewer 199, VAT 16% of 2339 = 374.24: 2713.24.
    assert.deepEqual(
      [done.cancelled, done.rebilled, done.spreadReadings, done.credited, done.rebilledAmount, done.change],
      [2, 2, 2, '3410.40', '5222.32', '1811.92'],
    );
    const after = await billsOf({ accountID: Number(s!.accountId) });
    assert.deepEqual(
      after.map((b: any) => [b.termID, b.status, b.total, b.correctsBillID]),
      [
        [sep, 'cancelled', '1705.20', null],
        [oct, 'cancelled', '1705.20', null],
        [sep, 'posted', '2509.08', before[0].billID],
        [oct, 'posted', '2713.24', before[1].billID],
      ],
    );
    assert.equal(after[2].lines.find((l: any) => l.componentCode === 'WATER').quantity, '29');
    // September's rebill brings forward what September's bill did, not October's bill
    // that the same step cancels; October's rebill brings forward September's rebill.
    assert.equal(after[2].balanceBroughtForward, before[0].balanceBroughtForward);
    assert.equal(after[2].totalDue, '2509.08');
    assert.equal(after[3].balanceBroughtForward, '2509.08');
    // Each rebill verifies from what it recorded: the spread readings, by their ids.
    for (const rebill of after.slice(2)) {
      const v = await ok('/billing/bills/verify-bill', envelope('Retrieve', 'Verify Bill', { billID: rebill.billID }), h.tokens.viewer);
      assert.deepEqual([v.matches, v.basis], [true, 'recorded'], JSON.stringify(v));
    }
    const readings = (await ok('/billing/readings/get-readings', envelope('Retrieve', 'Retrieve Readings', { subscriptionID: Number(s!.subscriptionId) }), h.tokens.viewer)).readings;
    const spread = readings.filter((r: any) => r.source === 'spread');
    assert.deepEqual(spread.map((r: any) => [r.readingDate, r.value, r.kind]), [['30/09/2026', '129', 'estimated'], ['31/10/2026', '160', 'estimated']]);
    // Done once: the rebills are not listed again.
    const again = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: Number(s!.subscriptionId) }), h.tokens.viewer);
    assert.deepEqual(again.bills, []);
    const twice = await h.post('/billing/bills/rebill-estimates', envelope('Update', 'Rebill Estimates', { subscriptionID: Number(s!.subscriptionId), reason: 'again' }), h.tokens.biller);
    assert.equal(twice.status, 409);
    await ledgerOk();
  });

  test('a reading an approved term reads is not corrected until the run is done; then the bill is cancelled and rebilled', async () => {
    // A new user's walk: 8411 corrected to 8410 inside an approved term was taken; the bill
    // read 8411 and the next term would have started from 8410, billing 1 m3 twice.
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z4', readings: [['2026-08-31', 100], ['2026-09-30', 120]] });
    const ids = (await h.db.query('SELECT reading_id FROM reading WHERE subscription_id = $1 ORDER BY reading_date', [s!.subscriptionId])).rows.map((r) => Number(r.reading_id));
    const correct = (readingID: number, value: string) =>
      h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID, value, note: 'misread' }), h.tokens.biller);
    const termID = await makeTerm(h, { batchCode: 'Z4', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    for (const [name, action] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term']] as const) {
      assert.equal((await h.post(`/billing/terms/${name}`, { ...envelope('Update', action, { termID }), operation: 'schedule' })).status, 200);
    }
    // Validated: taken, and the term must be validated again.
    assert.equal((await correct(ids[1]!, '119')).status, 200);
    assert.equal((await h.db.query('SELECT status FROM term WHERE term_id = $1', [termID])).rows[0].status, 'Loaded');
    const current = Number((await h.db.query('SELECT reading_id FROM reading WHERE corrects_reading_id = $1', [ids[1]])).rows[0].reading_id);
    for (const [name, action] of [['validate-term', 'Validate Term'], ['approve-term', 'Approve Term']] as const) {
      assert.equal((await h.post(`/billing/terms/${name}`, { ...envelope('Update', action, { termID }), operation: 'schedule' })).status, 200);
    }
    // Approved: neither its current reading nor the one before it.
    for (const id of [current, ids[0]!]) {
      const r = await correct(id, '118');
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.deepEqual(r.body.error.details.map((d: any) => d.path), ['data.readingID']);
      assert.match(r.body.message, new RegExp(`Term ${termID} \\(to 30/09/2026\\) is Approved`));
    }
    // Billed and posted: corrected, then cancelled and rebilled (docs/corrections.md).
    assert.equal((await h.post('/billing/terms/process-term', { ...envelope('Update', 'Process Term', { termID }), operation: 'schedule' })).status, 200);
    const { waitForStatus } = await import('../terms/fixtures.ts');
    await waitForStatus(h, termID, ['Processed']);
    assert.equal((await h.post('/billing/terms/post-term', { ...envelope('Update', 'Post Term', { termID }), operation: 'schedule' })).status, 200);
    assert.equal((await correct(current, '118')).status, 200);
  });

  test('an over-estimate: the actual reading below the estimate is taken, and the cascade spreads it', async () => {
    // An attacker's case: 150 estimated on 30/09 after 100 read on 31/08, then 130 read on
    // 31/10. The actual was refused as lower than the estimate, so rebill-estimates could not run.
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z3', readings: [['2026-08-31', 100]] });
    const id = Number(s!.subscriptionId);
    const capture = (date: string, value: number, kind: string) =>
      h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: id, inputCode: 'METER', readingDate: date, value, kind }] }), h.tokens.biller);
    assert.equal((await capture('30/09/2026', 150, 'estimated')).status, 200);
    const sep = await postedTerm({ batchCode: 'Z3', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    // Below the actual before the estimate: still refused, against that actual.
    const low = await capture('31/10/2026', 90, 'actual');
    assert.equal(low.status, 400);
    assert.match(low.body.error.details[0].message, /90 is lower than the reading before it \(100 on 31\/08\/2026\)/);
    // An estimate below the estimate: refused too.
    assert.equal((await capture('31/10/2026', 130, 'estimated')).status, 400);
    const actual = await capture('31/10/2026', 130, 'actual');
    assert.equal(actual.status, 200, JSON.stringify(actual.body));
    // 30 m3 over 61 days from 31/08: 30/09 is day 30, 100 + 30 x 30/61 = 114.75, 114 on a meter of whole m3.
    const listed = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: id }), h.tokens.viewer);
    assert.deepEqual(listed.meters[0].estimates.map((e: any) => [e.readingDate, e.value, e.spreadValue]), [['30/09/2026', '150', '114']]);
    const done = await ok('/billing/bills/rebill-estimates', envelope('Update', 'Rebill Estimates', { subscriptionID: id, reason: 'actual reading of 31/10' }));
    assert.deepEqual([done.cancelled, done.rebilled, done.spreadReadings], [1, 1, 1]);
    // 14 m3: water 500 + 4 x 70 = 780, sewer 78, VAT 16% of 1008 = 161.28: 1169.28.
    const after = await billsOf({ termID: sep });
    assert.deepEqual(after.filter((b: any) => b.subscriptionID === id).map((b: any) => [b.status, b.total]), [['cancelled', '4895.20'], ['posted', '1169.28']]);
    await ledgerOk();
  });

  test("a bill made after the actual reading arrived, from the last estimate, is rebilled with the others: the meter's whole consumption billed once", async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z2', readings: [['2026-08-31', 100]] });
    const id = Number(s!.subscriptionId);
    const capture = (date: string, value: number, kind: string) =>
      ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: id, inputCode: 'METER', readingDate: date, value, kind }] }));
    await capture('30/09/2026', 120, 'estimated');
    const sep = await postedTerm({ batchCode: 'Z2', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    await capture('31/10/2026', 140, 'estimated');
    const oct = await postedTerm({ batchCode: 'Z2', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    // The actual reading arrives, then November is billed as usual: 140 (the estimate) to 190, 50 m3.
    await capture('30/11/2026', 190, 'actual');
    const nov = await postedTerm({ batchCode: 'Z2', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const before = await billsOf({ accountID: Number(s!.accountId) });
    assert.deepEqual(before.map((b: any) => [b.termID, b.estimated, b.lines.find((l: any) => l.componentCode === 'WATER').quantity]), [[sep, true, '20'], [oct, true, '20'], [nov, true, '50']]);

    const listed = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: id }), h.tokens.viewer);
    assert.deepEqual(listed.bills.map((b: any) => b.termID), [sep, oct, nov]);
    const done = await ok('/billing/bills/rebill-estimates', envelope('Update', 'Rebill Estimates', { subscriptionID: id, reason: 'actual reading of 30/11' }));
    assert.deepEqual([done.cancelled, done.rebilled], [3, 3]);
    // Spread as in the test above: 129 and 160. November 160 to 190, 30 m3: standing 150, water
    // 500 + 20 x 70 = 1900, sewer 190, VAT 16% of 2240 = 358.40: 2598.40. 29 + 31 + 30 = 90 m3, what the meter measured.
    const rebills = (await billsOf({ accountID: Number(s!.accountId) })).filter((b: any) => b.status === 'posted');
    assert.deepEqual(
      rebills.map((b: any) => [b.termID, b.lines.find((l: any) => l.componentCode === 'WATER').quantity, b.total]),
      [
        [sep, '29', '2509.08'],
        [oct, '31', '2713.24'],
        [nov, '30', '2598.40'],
      ],
    );
    // Done once: the rebills read the spread values, which spread again to the same.
    const again = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: id }), h.tokens.viewer);
    assert.deepEqual(again.bills, []);
    await ledgerOk();
  });
});
