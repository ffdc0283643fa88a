// What the customer reads on the standard bill and e-mail, and how a table is laid out
// over pages: an outside check of published bills (2026-11-26) found a refund printed as
// "Total due: -43.47 EUR" with "How to pay", the two prices of a tariff change as two
// undated lines each, a bank table's headings alone at the foot of a page, a table's
// rows on page 2 without their headings, and headings broken inside a word. The
// templates are filled and laid out by the product's own functions (render.ts, pdf.ts)
// and read back with poppler, page by page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE, type DocumentData } from '../../src/documents/context.ts';
import { DEFAULT_EMAIL_BODY, DEFAULT_EMAIL_SUBJECT, DEFAULT_INVOICE_BODY } from '../../src/documents/defaults.ts';
import { renderEmail, renderInvoice } from '../../src/documents/render.ts';
import { parseLayout, renderPdf, renderPdfStream } from '../../src/documents/pdf.ts';
import { PassThrough } from 'node:stream';
import { payableOf } from '../../src/documents/billContext.ts';
import { proratedWords } from '../../src/bills/explain.ts';
import { needsPoppler, pdfText } from './support.ts';

const withBill = (bill: Partial<DocumentData['bill']>): DocumentData => ({ ...SAMPLE, bill: { ...SAMPLE.bill, ...bill } });
const invoiceText = async (data: DocumentData) => pdfText(await renderInvoice({ body: DEFAULT_INVOICE_BODY }, data)).replace(/\s+/g, ' ');
const email = (data: DocumentData) => renderEmail({ subject: DEFAULT_EMAIL_SUBJECT, body: DEFAULT_EMAIL_BODY }, data);
const pages = async (markdown: string) => pdfText(await renderPdf(parseLayout(markdown), { title: 't', author: 'a', creationDate: new Date('2026-11-30T00:00:00Z') })).split('\f');

describe('payable or in credit, as the bill data says', () => {
  test('payableOf: above zero is to pay, below zero a credit, zero neither', () => {
    assert.deepEqual(payableOf('2191.80'), { payable: true, credit: '' });
    assert.deepEqual(payableOf('0.01'), { payable: true, credit: '' });
    assert.deepEqual(payableOf('-43.47'), { payable: false, credit: '43.47' });
    assert.deepEqual(payableOf('0.00'), { payable: false, credit: '' });
    assert.deepEqual(payableOf('0'), { payable: false, credit: '' });
    assert.deepEqual(payableOf('-0.00'), { payable: false, credit: '' });
  });
});

describe('the standard bill and e-mail', { skip: needsPoppler() }, () => {
  test('a bill to pay: the total due, its date and how to pay', async () => {
    const text = await invoiceText(SAMPLE);
    for (const e of ['Total due by 14/12/2026', 'Total due: 2191.80 KES by 14/12/2026', 'How to pay', 'Payment reference: RF40']) assert.ok(text.includes(e), `missing ${e} in ${text}`);
    const m = await email(SAMPLE);
    assert.equal(m.subject, 'Your Sample Water Co bill 1001: 2191.80 KES due 14/12/2026');
    assert.match(m.text, /Total due: 2191\.80 KES by 14\/12\/2026\./);
  });

  test('a bill that leaves the account in credit says there is nothing to pay, and asks for no payment', async () => {
    const credit = withBill({ total: '1096.53', balanceBroughtForward: '-1140.00', totalDue: '-43.47', payable: false, credit: '43.47' });
    const text = await invoiceText(credit);
    for (const e of ['In credit after this bill: nothing to pay', 'Nothing to pay: your account is 43.47 KES in credit']) assert.ok(text.includes(e), `missing ${e} in ${text}`);
    for (const e of ['Total due', 'How to pay', 'Payment reference', '-43.47']) assert.ok(!text.includes(e), `${e} printed on a bill in credit: ${text}`);
    const m = await email(credit);
    assert.equal(m.subject, 'Your Sample Water Co bill 1001: nothing to pay, 43.47 KES in credit');
    assert.match(m.text, /Nothing to pay: your account is 43\.47 KES in credit/);
    assert.doesNotMatch(m.text, /Payment reference|Total due/);
  });

  test('a bill that settles the account exactly: nothing to pay', async () => {
    const settled = withBill({ balanceBroughtForward: '-2151.80', totalDue: '0.00', payable: false, credit: '' });
    const text = await invoiceText(settled);
    assert.ok(text.includes('Nothing to pay.'), text);
    assert.ok(!text.includes('How to pay'), text);
    assert.equal((await email(settled)).subject, 'Your Sample Water Co bill 1001: nothing to pay');
  });

  test('the lines of a bill spanning a tariff change carry their dates', async () => {
    const split = withBill({
      lines: [
        { ...SAMPLE.bill.lines[0]!, amount: '75.00', periodStart: '01/11/2026', periodEnd: '15/11/2026', version: 1 },
        { ...SAMPLE.bill.lines[0]!, amount: '80.00', periodStart: '16/11/2026', periodEnd: '30/11/2026', version: 2 },
      ],
    });
    const text = await invoiceText(split);
    assert.ok(text.includes('Standing charge (01/11/2026 to 15/11/2026)'), text);
    assert.ok(text.includes('Standing charge (16/11/2026 to 30/11/2026)'), text);
    // A line outside any change prints as before, undated.
    assert.ok(!(await invoiceText(SAMPLE)).includes('Standing charge ('));
  });

  // A new user's walk: "Hot desk fee 1 x 250 = 137.10" did not add up to a customer.
  test('a line prorated by days says how many beside its name', async () => {
    const p = { activeDays: 17, termDays: 31, factor: '17/31', before: '250', after: '137.096774' };
    assert.equal(proratedWords(p), '17 of 31 days');
    assert.equal(proratedWords({ ...p, factor: '12/31', basis: 'billedDays' }), '12/31 of the days billed');
    assert.equal(proratedWords(undefined), '');
    const text = await invoiceText(withBill({ lines: [{ ...SAMPLE.bill.lines[0]!, name: 'Hot desk fee', rate: '250.00', amount: '137.10', prorated: proratedWords(p) }] }));
    assert.ok(text.includes('Hot desk fee (17 of 31 days) 1 250.00 137.10'), text);
  });

  test('a rebill e-mail says which bill it replaces', async () => {
    assert.match((await email(SAMPLE)).text, /It replaces bill 998 of 30\/11\/2026, which credit note 12 cancelled/);
    assert.doesNotMatch((await email(withBill({ replaces: null }))).text, /replaces/);
  });
});

// An officer's walk: page 2 of a two-page bill held "Your last bills" and "How to pay" with
// the payment reference, and nothing said whose bill it was.
describe('a document of more than one page names itself on each', { skip: needsPoppler() }, () => {
  const rendered = async (markdown: string, footer?: string) =>
    pdfText(await renderPdf(parseLayout(markdown), { title: 't', author: 'a', creationDate: new Date('2026-11-30T00:00:00Z'), ...(footer === undefined ? {} : { footer }) })).split('\f').filter((p) => p.trim() !== '');

  test('"Bill 10, account ACC-0004 · page 2 of 2" at the foot of every page; one page: nothing added', async () => {
    const long = `# Bill\n${Array.from({ length: 90 }, (_, i) => `Line ${i + 1} of the bill.`).join('\n')}`;
    const two = await rendered(long, 'Bill 10, account ACC-0004');
    assert.ok(two.length >= 2, `${two.length} page(s)`);
    two.forEach((p, i) => assert.match(p.replace(/\s+/g, ' '), new RegExp(`Bill 10, account ACC-0004 · page ${i + 1} of ${two.length}`), `page ${i + 1}`));
    // The footer sits in the margin: it adds no page.
    assert.equal(two.length, (await rendered(long)).length);
    const one = await rendered('# Bill\nOne line.', 'Bill 11, account ACC-0005');
    assert.equal(one.length, 1);
    assert.doesNotMatch(one[0]!, /page 1 of/);
  });

  test("a print house's file of many documents counts each one's pages on its own", async () => {
    const long = (n: number) => `# Bill ${n}\n${Array.from({ length: 90 }, (_, i) => `Line ${i + 1} of bill ${n}.`).join('\n')}`;
    async function* documents() {
      for (const n of [1, 2]) yield { blocks: parseLayout(long(n)), footer: `Bill ${n}, account A-${n}` };
    }
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((r) => out.on('end', r));
    await renderPdfStream(documents(), { title: 't', author: 'a', creationDate: new Date('2026-11-30T00:00:00Z') }, out);
    await ended;
    const text = pdfText(Buffer.concat(chunks)).split('\f').filter((p) => p.trim() !== '').map((p) => p.replace(/\s+/g, ' '));
    const footers = text.map((p) => /(Bill \d, account A-\d · page \d of \d)/.exec(p)?.[1]);
    assert.deepEqual(footers, ['Bill 1, account A-1 · page 1 of 2', 'Bill 1, account A-1 · page 2 of 2', 'Bill 2, account A-2 · page 1 of 2', 'Bill 2, account A-2 · page 2 of 2']);
  });

  test("the standard bill's PDF names the bill and the account", async () => {
    const history = Array.from({ length: 40 }, (_, i) => ({ ...SAMPLE.bill.history[0]!, number: String(100 + i) }));
    const data = withBill({ number: '10', history });
    const text = pdfText(await renderInvoice({ body: DEFAULT_INVOICE_BODY }, data)).split('\f').filter((p) => p.trim() !== '');
    assert.ok(text.length >= 2, `${text.length} page(s)`);
    for (const [i, p] of text.entries()) assert.match(p.replace(/\s+/g, ' '), new RegExp(`Bill 10, account ${SAMPLE.account.number} · page ${i + 1} of ${text.length}`));
  });
});

describe('tables over pages', { skip: needsPoppler() }, () => {
  const table = (rows: number) =>
    `| Bank | Account name | Account number |\n|---|---|--:|\n${Array.from({ length: rows }, (_, i) => `| Bank ${i + 1} | Holder ${i + 1} | ${100000 + i} |`).join('\n')}\n`;

  test("a table's headings are drawn again on every page it runs on to", async () => {
    const all = await pages(`## Banks\n${table(150)}`);
    const used = all.filter((p) => /Bank \d/.test(p));
    assert.ok(used.length >= 2, `150 rows should run over pages: ${used.length}`);
    for (const [i, p] of used.entries()) {
      // The first line of the table on each page (after the heading on the first) is its headings.
      const first = p.split('\n').find((l) => /^\s*Bank\b/.test(l))!;
      assert.match(first, /Bank\s+Account name\s+Account number/, `page ${i + 1}: the table starts with ${first}`);
    }
    // Every row once.
    const rows = used.join('\n').match(/Bank \d+ /g)!;
    assert.equal(rows.length, 150);
  });

  test('headings are never left alone at the foot of a page, wherever the table starts', async () => {
    for (let before = 40; before <= 75; before++) {
      const text = `${Array.from({ length: before }, (_, i) => `Line ${i + 1} of the letter.`).join('\n')}\n\n${table(2)}`;
      for (const p of await pages(text)) {
        if (!/Account name/.test(p)) continue;
        assert.match(p, /Bank \d+ /, `${before} lines before the table: its headings end a page without a row:\n${p.slice(-300)}`);
      }
    }
  });

  test('a heading is never left alone at the foot of a page: it goes over with its table', async () => {
    for (let before = 40; before <= 75; before++) {
      const text = `${Array.from({ length: before }, (_, i) => `Line ${i + 1} of the letter.`).join('\n')}\n\n## Your banks\n${table(2)}`;
      for (const p of await pages(text)) {
        if (!/Your banks/.test(p)) continue;
        assert.match(p, /Account name/, `${before} lines before: the heading ends a page without its table:\n${p.slice(-300)}`);
      }
    }
  });

  // A new user's walk: "How to pay" and its payment reference ended page 1, and the bank
  // table stood alone on page 2.
  test('a short section (a heading, its text and a small table) is kept on one page, wherever it starts', async () => {
    for (let before = 40; before <= 75; before++) {
      const text = `${Array.from({ length: before }, (_, i) => `Line ${i + 1} of the letter.`).join('\n')}\n\n## How to pay\n**Payment reference: RF20 0000 0000 03**\n> Please quote the payment reference with every payment.\n${table(2)}`;
      const on = (await pages(text)).filter((p) => /How to pay|Payment reference|Please quote|Account name|Bank \d/.test(p));
      assert.equal(on.length, 1, `${before} lines before: the section is split over pages`);
      for (const e of ['How to pay', 'Payment reference', 'Please quote', 'Account name', 'Bank 2 ']) assert.ok(on[0]!.includes(e), `${before} lines before: ${e} is not with its section`);
    }
    // A long section still starts where it is and runs on.
    const long = await pages(`${Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the letter.`).join('\n')}\n\n## Banks\n${table(150)}`);
    assert.match(long[0]!, /Banks[\s\S]*Bank 1 /);
  });

  test('a column is never narrower than its longest word: headings are not broken inside a word', async () => {
    const wide = `| Description of the charge in this period | Subscription | Consumption | Rate | Amount (KES) |\n|---|---|--:|--:|--:|\n| ${'A long description of a charge that needs the room '.repeat(3)}| 1234567 | 12345.678 kWh | 0.123456 | 1234567.89 |\n`;
    const text = (await pages(wide)).join('\n');
    for (const w of ['Subscription', 'Consumption', '1234567.89', '12345.678']) assert.ok(text.includes(w), `${w} broken in:\n${text}`);
  });
});
