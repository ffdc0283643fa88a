// A term's print extract for a print house: every bill's printable fields as one
// streamed CSV or JSON-lines file, or all its documents as one PDF. Read a page of
// bills at a time, so a term of a million bills streams in flat memory. And the credit
// notes of a span of days, the same way (get-credit-note-extract).
import { PassThrough, Readable } from 'node:stream';
import type pg from 'pg';
import { notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import { loadDocumentData, type BillDocumentSource } from './billContext.ts';
import { resolveTemplate } from './resolveTemplate.ts';
import { compileInvoice, invoiceBlocks, pdfMeta } from './render.ts';
import { renderPdfStream, type Block } from './pdf.ts';
import { csvLine } from '../csv.ts';
import { creditNoteBlocks, creditNoteData, creditNoteMeta, type CreditNoteDocumentData } from '../corrections/creditNoteDocument.ts';

const PAGE = 1000;

export const EXTRACT_COLUMNS = [
  'billID', 'billNumber', 'billDate', 'dueDate', 'periodStart', 'periodEnd', 'accountNumber', 'accountName', 'address', 'email',
  'deliveryPreference', 'charges', 'tax', 'total', 'balanceBroughtForward', 'totalDue', 'currency', 'estimated', 'paymentReference',
] as const;


/**
 * Who gets paper: accounts printing their bills, and one taking them by e-mail with no address
 * (kept from before accounts.rules refused it): e-mail cannot reach it, so paper does.
 */
const ON_PAPER = `(ac.delivery_preference IN ('print', 'both') OR (ac.delivery_preference = 'email' AND ac.email IS NULL))`;

export type ExtractOptions = { termID: number; format: 'csv' | 'jsonl' | 'pdf'; only?: 'print' };

/** The term's bills (not withdrawn), a page of document data at a time, in bill id order. */
async function* pages(db: pg.Pool, appCode: number, termId: number, o: ExtractOptions, withHistory: boolean): AsyncGenerator<BillDocumentSource[]> {
  let after = '0';
  for (;;) {
    const ids = await db.query<{ bill_id: string }>(
      `SELECT b.bill_id FROM bill b JOIN account ac ON ac.account_id = b.account_id
        WHERE b.app_code = $1 AND b.term_id = $2 AND b.status NOT IN ('withdrawn', 'cancelled') AND b.bill_id > $3
          AND (NOT $5 OR ${ON_PAPER})
        ORDER BY b.bill_id LIMIT $4`,
      [appCode, termId, after, PAGE, o.only === 'print'],
    );
    if (ids.rows.length === 0) return;
    after = ids.rows.at(-1)!.bill_id;
    yield await loadDocumentData(db, appCode, ids.rows.map((r) => r.bill_id), withHistory);
  }
}

export function printRecord(s: BillDocumentSource) {
  const { bill, account, app } = s.data;
  return {
    billID: Number(s.billId),
    billNumber: Number(bill.number),
    billDate: bill.date,
    dueDate: bill.dueDate,
    periodStart: bill.periodStart,
    periodEnd: bill.periodEnd,
    accountNumber: account.number,
    accountName: account.name,
    address: account.address,
    email: account.email,
    deliveryPreference: s.deliveryPreference,
    charges: bill.charges,
    tax: bill.tax,
    total: bill.total,
    balanceBroughtForward: bill.balanceBroughtForward,
    totalDue: bill.totalDue,
    currency: app.currency,
    estimated: bill.estimated,
    paymentReference: bill.paymentReference,
  };
}

export async function printExtract(db: pg.Pool, appCode: number, o: ExtractOptions): Promise<RawAnswer> {
  const term = await db.query<{ template_id: number }>(
    `SELECT coalesce((v.definition->'invoiceTemplate'->>'templateID')::int, 0) AS template_id
       FROM term t JOIN service_version v ON v.service_version_id = t.service_version_id WHERE t.app_code = $1 AND t.term_id = $2`,
    [appCode, o.termID],
  );
  if (!term.rows[0]) throw notFound('term', 'data.termID');
  if (o.format === 'pdf') {
    const template = await resolveTemplate(db, appCode, 'invoice', term.rows[0].template_id);
    const compiled = compileInvoice({ body: template.body });
    return extractPdf(pages(db, appCode, o.termID, o, true), (s) => invoiceBlocks(compiled, s.data), (s) => pdfMeta(s.data).footer, `Term ${o.termID}`);
  }
  return extractText(o.format, EXTRACT_COLUMNS, pages(db, appCode, o.termID, o, false), printRecord, (s) => ({
    lines: s.data.bill.lines.map(({ explanation: _, ...l }) => l),
    readings: s.data.bill.readings,
  }));
}

/** One PDF of every document of the pages, each from a new page, written as pages end. */
function extractPdf<T>(pagesOf: AsyncGenerator<T[]>, blocksOf: (item: T) => Promise<Block[]>, footerOf: (item: T) => string | undefined, title: string): RawAnswer {
  const out = new PassThrough();
  async function* documents() {
    for await (const page of pagesOf) for (const item of page) yield { blocks: await blocksOf(item), footer: footerOf(item) };
  }
  renderPdfStream(documents(), { ...EXTRACT_META, title }, out).catch((err) => out.destroy(err));
  return { type: 'application/pdf', payload: out };
}

/** The pages' printable fields as CSV (a header, then a row each) or JSON lines (the fields and what `more` adds). */
function extractText<T, C extends string>(
  format: 'csv' | 'jsonl',
  columns: readonly C[],
  pagesOf: AsyncGenerator<T[]>,
  record: (item: T) => Record<C, unknown>,
  more: (item: T) => object,
): RawAnswer {
  async function* lines() {
    if (format === 'csv') yield csvLine(columns);
    for await (const page of pagesOf) {
      let chunk = '';
      for (const item of page) {
        const rec = record(item);
        if (format === 'csv') chunk += csvLine(columns.map((c) => rec[c]));
        else chunk += JSON.stringify({ ...rec, ...more(item) }) + '\n';
      }
      yield chunk;
    }
  }
  return { type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8', payload: Readable.from(lines()) };
}

// The extract's own creation date is fixed like a bill's: the same term gives the same file.
const EXTRACT_META = { author: 'billrun', creationDate: new Date('2000-01-01T00:00:00Z') };

export const CREDIT_NOTE_COLUMNS = [
  'creditNoteID', 'creditNoteNumber', 'creditNoteDate', 'billNumber', 'rebillNumber', 'accountNumber', 'accountName', 'address', 'email',
  'deliveryPreference', 'charges', 'tax', 'amount', 'currency', 'reason',
] as const;

export type CreditNoteExtractOptions = { from: string; to: string; format: 'csv' | 'jsonl' | 'pdf'; only?: 'print' };

/**
 * The credit notes dated from `from` to `to` (both included), a page at a time in number
 * order, each with what its document prints. A print-only customer's credit note reached
 * nobody: it is e-mailed to accounts that take e-mail (docs/corrections.md), and the term's
 * extract holds bills only (an earlier session's note).
 */
async function* creditNotePages(db: pg.Pool, appCode: number, o: CreditNoteExtractOptions): AsyncGenerator<{ id: string; data: CreditNoteDocumentData; deliveryPreference: string }[]> {
  let after = '0';
  for (;;) {
    const ids = await db.query<{ credit_note_id: string; delivery_preference: string }>(
      `SELECT cn.credit_note_id, ac.delivery_preference FROM credit_note cn JOIN account ac ON ac.account_id = cn.account_id
        WHERE cn.app_code = $1 AND cn.credit_date BETWEEN $2::date AND $3::date AND cn.credit_note_id > $4
          AND (NOT $6 OR ${ON_PAPER})
        ORDER BY cn.credit_note_id LIMIT $5`,
      [appCode, o.from, o.to, after, PAGE, o.only === 'print'],
    );
    if (ids.rows.length === 0) return;
    after = ids.rows.at(-1)!.credit_note_id;
    const page = [];
    for (const r of ids.rows) {
      const data = await creditNoteData(db, appCode, Number(r.credit_note_id));
      if (data) page.push({ id: r.credit_note_id, data, deliveryPreference: r.delivery_preference });
    }
    yield page;
  }
}

function creditNoteRecord(n: { id: string; data: CreditNoteDocumentData; deliveryPreference: string }) {
  const { creditNote, bill, account, app } = n.data;
  return {
    creditNoteID: Number(n.id),
    creditNoteNumber: Number(creditNote.number),
    creditNoteDate: creditNote.date,
    billNumber: Number(bill.number),
    rebillNumber: creditNote.rebillNumber === '' ? null : Number(creditNote.rebillNumber),
    accountNumber: account.number,
    accountName: account.name,
    address: account.address,
    email: account.email,
    deliveryPreference: n.deliveryPreference,
    charges: creditNote.charges,
    tax: creditNote.tax,
    amount: creditNote.amount,
    currency: app.currency,
    reason: creditNote.reason,
  };
}

/** get-credit-note-extract: the credit notes of a span of days for a print house, as the term's extract gives its bills. */
export function creditNoteExtract(db: pg.Pool, appCode: number, o: CreditNoteExtractOptions): RawAnswer {
  if (o.format === 'pdf') return extractPdf(creditNotePages(db, appCode, o), (n) => creditNoteBlocks(n.data), (n) => creditNoteMeta(n.data).footer, `Credit notes ${o.from} to ${o.to}`);
  return extractText(o.format, CREDIT_NOTE_COLUMNS, creditNotePages(db, appCode, o), creditNoteRecord, (n) => ({
    lines: n.data.creditNote.lines.map(({ explanation: _, ...l }) => l),
  }));
}
