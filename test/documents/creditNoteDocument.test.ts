// A credit note's PDF, end to end through HTTP: a posted bill cancelled and rebilled after
// its reading is corrected (cancel-bill), then get-credit-note-document read back with
// pdftotext. Amounts by hand from the shared water tariff (test/fixtures/tariffs.ts):
// standing 150; water 10 m3 at 50, the next 20 at 70; sewer 10% of water; VAT 16%.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, waitForStatus } from '../terms/fixtures.ts';
import { docEnv, fetchFile, needsPoppler, pdfText } from './support.ts';

describe("a credit note's document", { skip: needsPoppler() }, () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
  });
  after(() => close());

  async function ok(path: string, body: unknown, token = h.tokens.biller) {
    const r = await h.post(path, body, token);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    return r.body.data;
  }
  const pdfOf = (creditNoteID: number, token = h.tokens.viewer) =>
    fetchFile(h, '/billing/documents/get-credit-note-document', docEnv('Retrieve', 'Retrieve Credit Note Document', { creditNoteID }), token);

  test('cancel-bill makes a credit note whose PDF names its number, the bill it cancels, the rebill, the lines reversed and the totals', async () => {
    const [sub] = await subscriptions(h, { n: 1, readings: [['2026-10-31', 100], ['2026-11-30', 120]] });
    const termID = await makeTerm(h, { billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    const [bill] = (await ok('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer)).bills;
    // 20 m3: water 500 + 700 = 1200, sewer 120, charges 1470, VAT 16% = 235.20, total 1705.20.
    assert.equal(bill.total, '1705.20');

    // The meter was misread: 115, not 120; the bill is cancelled and rebilled.
    const r = await h.db.query("SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-11-30'", [sub!.subscriptionId]);
    await ok('/billing/readings/correct-reading', docEnv('Update', 'Correct Reading', { readingID: Number(r.rows[0].reading_id), value: '115', note: 'misread' }));
    // An address of three lines (a window envelope's), which printed as one.
    await h.db.query(`UPDATE account SET address = E'Flat 4\\n12 River Lane\\nNairobi 00100' WHERE account_id = (SELECT account_id FROM subscription WHERE subscription_id = $1)`, [sub!.subscriptionId]);
    const done = await ok('/billing/bills/cancel-bill', docEnv('Update', 'Cancel Bill', { billID: bill.billID, reason: 'misread meter' }));
    const note = done.creditNotes[0];
    assert.equal(note.billID, bill.billID);
    const rebill = (await ok('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer)).bills.find((b: any) => b.correctsBillID === bill.billID);
    // 15 m3: water 500 + 350 = 850, sewer 85, VAT 16% of 1085 = 173.60: 1258.60.
    assert.equal(rebill.total, '1258.60');

    const pdf = await pdfOf(note.creditNoteID);
    assert.equal(pdf.status, 200, pdf.bytes.toString());
    assert.equal(pdf.type, 'application/pdf');
    assert.equal(pdf.headers.get('x-billrun-document-sha256'), crypto.createHash('sha256').update(pdf.bytes).digest('hex'));
    const text = pdfText(pdf.bytes);
    for (const expected of [
      `Credit note ${note.creditNoteNumber}`,
      '31/01/2027',
      `Cancels bill`,
      `${bill.billNumber} of ${bill.billDate}`,
      `Replaced by bill`,
      String(rebill.billNumber),
      'Reason: misread meter',
      'Standing charge',
      '-150.00',
      '-1200.00',
      'Sewer',
      '-120.00',
      'VAT',
      '-235.20',
      'Charges credited',
      '-1470.00',
      'Tax credited',
      'Total credited: -1705.20',
    ]) {
      assert.ok(text.includes(expected), `the PDF holds "${expected}":\n${text}`);
    }
    // The lines reversed are the cancelled bill's (20 m3, not the rebill's 15).
    assert.match(text, /Water\s+20 m3/);
    assert.match(text, /Flat 4\n12 River Lane\nNairobi 00100/, text);

    // The rebill's own document says what it replaces (a new user's walk: it did not).
    let rebillPdf = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: rebill.billID }), h.tokens.viewer);
    for (let i = 0; i < 100 && rebillPdf.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rebillPdf = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: rebill.billID }), h.tokens.viewer);
    }
    assert.equal(rebillPdf.status, 200, rebillPdf.bytes.toString());
    const rebillText = pdfText(rebillPdf.bytes);
    assert.match(rebillText, new RegExp(`This bill replaces bill ${bill.billNumber} of ${bill.billDate.replace(/\//g, '\\/')}, cancelled by credit note ${note.creditNoteNumber}\\.`), rebillText);
    assert.match(rebillText, /Flat 4\n12 River Lane\nNairobi 00100/);
    assert.match(rebillText, /Flat 4, 12 River Lane, Nairobi 00100/);
    // What moved the account since its last bill (here the credit note), adding up to the balance brought forward.
    const activity = rebillText.slice(rebillText.indexOf('Since your last bill'));
    assert.ok(rebillText.includes('Since your last bill'), rebillText);
    const previous = Number(/Balance after your last bill\s+(-?[\d.]+)/.exec(activity)![1]);
    const credit = Number(new RegExp(`Credit note ${note.creditNoteNumber} cancelling bill ${bill.billNumber}\\s+(-?[\\d.]+)`).exec(activity)![1]);
    const forward = Number(/Balance brought forward\s+(-?[\d.]+)/.exec(activity)![1]);
    assert.equal(credit, -1705.2);
    assert.equal(Math.round((previous + credit) * 100), Math.round(forward * 100));
    assert.equal(forward.toFixed(2), rebill.balanceBroughtForward);

    // Kept: a second read is the same bytes; another app's caller cannot read it; an unknown note is 404.
    const again = await pdfOf(note.creditNoteID);
    assert.deepEqual(again.bytes, pdf.bytes);
    assert.equal((await pdfOf(note.creditNoteID, h.tokens.otherAdmin)).status, 404);
    const missing = await pdfOf(987654321);
    assert.equal(missing.status, 404);
    assert.match(missing.bytes.toString(), /data\.creditNoteID/);
  });
  // A print-only customer's credit note reached nobody: e-mailed only to accounts that take
  // e-mail, and the term's print extract holds bills. The print house gets them by date.
  test('the credit notes of a span of days for a print house: CSV, JSON lines and one PDF, print-only accounts when asked', async () => {
    const extract = (data: Record<string, unknown>, token = h.tokens.biller) =>
      fetchFile(h, '/billing/documents/get-credit-note-extract', docEnv('Retrieve', 'Retrieve Credit Note Extract', data), token);
    const [note] = (await ok('/billing/bills/get-credit-notes', docEnv('Retrieve', 'Retrieve Credit Notes', {}), h.tokens.viewer)).creditNotes;
    assert.ok(note, 'the test before made a credit note');
    const january = { from: '01/01/2027', to: '31/01/2027' };

    const csv = await extract({ ...january, format: 'csv' });
    assert.equal(csv.status, 200, csv.bytes.toString());
    assert.match(csv.type, /^text\/csv/);
    const rows = csv.bytes.toString().trimEnd().split('\r\n');
    assert.equal(rows[0], 'creditNoteID,creditNoteNumber,creditNoteDate,billNumber,rebillNumber,accountNumber,accountName,address,email,deliveryPreference,charges,tax,amount,currency,reason');
    assert.equal(rows.length, 2, csv.bytes.toString());
    assert.ok(rows[1]!.startsWith(`${note.creditNoteID},${note.creditNoteNumber},31/01/2027,`), rows[1]);
    assert.ok(rows[1]!.endsWith(',print,-1470.00,-235.20,-1705.20,KES,misread meter'), rows[1]);

    const jsonl = await extract({ ...january, format: 'jsonl' });
    const [rec] = jsonl.bytes.toString().trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([rec.creditNoteNumber, rec.amount, rec.reason, rec.lines.map((l: any) => l.amount)], [note.creditNoteNumber, '-1705.20', 'misread meter', ['-150.00', '-1200.00', '-120.00', '-235.20']]);
    assert.equal(typeof note.rebillNumber, 'number');
    assert.equal(rec.rebillNumber, note.rebillNumber);

    const pdf = await extract({ ...january, format: 'pdf' });
    assert.equal(pdf.type, 'application/pdf');
    const text = pdfText(pdf.bytes);
    assert.ok(text.includes(`Credit note ${note.creditNoteNumber}`) && text.includes('Total credited: -1705.20'), text);

    // only: 'print' leaves out an account that takes e-mail only; another span, another app: nothing.
    await h.db.query(`UPDATE account SET delivery_preference = 'email', email = 'c@a.test' WHERE account_id = $1`, [note.accountID]);
    assert.equal((await extract({ ...january, format: 'csv', only: 'print' })).bytes.toString().trimEnd().split('\r\n').length, 1);
    assert.equal((await extract({ ...january, format: 'csv' })).bytes.toString().trimEnd().split('\r\n').length, 2);
    assert.equal((await extract({ from: '01/12/2026', to: '31/12/2026', format: 'csv' })).bytes.toString().trimEnd().split('\r\n').length, 1);
    assert.equal((await extract({ ...january, format: 'csv' }, h.tokens.otherAdmin)).bytes.toString().trimEnd().split('\r\n').length, 1);
    await h.db.query(`UPDATE account SET delivery_preference = 'print' WHERE account_id = $1`, [note.accountID]);

    // Refused on their fields: a span that runs backwards or past a year, a date that is not one; a viewer.
    const backwards = await extract({ from: '31/01/2027', to: '01/01/2027', format: 'csv' });
    assert.equal(backwards.status, 400);
    assert.match(backwards.bytes.toString(), /data\.to/);
    assert.match((await extract({ from: '01/01/2025', to: '31/01/2027', format: 'csv' })).bytes.toString(), /at most 366 days/);
    assert.match((await extract({ from: '31/02/2027', to: '31/03/2027', format: 'csv' })).bytes.toString(), /data\.from/);
    assert.equal((await extract({ ...january, format: 'csv' }, h.tokens.viewer)).status, 403);
  });

  // A reviewer's case: a payment made while a term waited to be posted fell into neither
  // bill's window (the window ran from the earlier bill's posting, not its rating).
  test("the next bill lists what moved the account since the last one, a payment made before that one was posted included", async () => {
    await subscriptions(h, { n: 1, batchCode: 'Z1', readings: [['2026-08-31', 100], ['2026-09-30', 120], ['2026-10-31', 130]] });
    const run = async (billingPeriodID: number, startDate: string, endDate: string) => {
      const termID = await makeTerm(h, { batchCode: 'Z1', billingPeriodID, startDate, endDate });
      assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
      assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
      return termID;
    };
    const september = await run(202609, '01/09/2026', '30/09/2026');
    const [first] = (await ok('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID: september }), h.tokens.viewer)).bills;
    // Paid while the term is Processed, before it is posted.
    await ok('/billing/payments/make-payment', docEnv('Create', 'Create Payment', { accountNumber: first.accountNumber, amount: '100.00', paymentDate: '15/10/2026', reference: 'EARLY-1', channel: 'bank' }));
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: september })).status, 200);
    const october = await run(202610, '01/10/2026', '31/10/2026');
    const [second] = (await ok('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID: october }), h.tokens.viewer)).bills;
    assert.equal(second.balanceBroughtForward, (Number(first.totalDue) - 100).toFixed(2));
    let doc = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: second.billID }), h.tokens.viewer);
    for (let i = 0; i < 100 && doc.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 100));
      doc = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: second.billID }), h.tokens.viewer);
    }
    assert.equal(doc.status, 200);
    const text = pdfText(doc.bytes);
    const activity = text.slice(text.indexOf('Since your last bill'));
    assert.ok(text.includes('Since your last bill'), text);
    assert.match(activity, new RegExp(`Balance after your last bill\\s+${first.totalDue.replace('.', '\\.')}`));
    assert.match(activity, /15\/10\/2026 Payment EARLY-1\s+-100\.00/);
    assert.match(activity, new RegExp(`Balance brought forward\\s+${second.balanceBroughtForward.replace('.', '\\.')}`));
    // The last bill itself is the balance it starts from, not a line of it.
    assert.doesNotMatch(activity, new RegExp(`Bill ${first.billNumber}\\s`));
  });
});
