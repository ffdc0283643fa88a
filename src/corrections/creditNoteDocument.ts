// A credit note's printable document (docs/corrections.md, "The credit note's document"):
// the cancelled bill's data as its invoice has it, plus the note (its number, date and
// reason, the rebill, the lines reversed and the totals credited), laid out by the same
// Liquid engine and pdfkit renderer as bills, and kept in credit_note_document with its
// checksum. Made at the first read and kept (a credit note never changes, and its PDF is
// dated with the note's date, so it is the same bytes whenever it is made): the
// cancellation of 100,000 bills writes no PDFs in its transaction.
import crypto from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { AppError, notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import { formatDate } from '../calendar/calendar.ts';
import { moneyText } from '../rating/money.ts';
import { readCreditNotes } from './store.ts';
import { loadDocumentData } from '../documents/billContext.ts';
import type { BillLineData, DocumentData } from '../documents/context.ts';
import { DEFAULT_CREDIT_NOTE_BODY } from '../documents/defaults.ts';
import { compileInvoice, invoiceBlocks } from '../documents/render.ts';
import { renderPdf, type PdfMeta } from '../documents/pdf.ts';

export type CreditNoteDocumentData = DocumentData & {
  creditNote: {
    id: string;
    number: string;
    date: string;
    reason: string;
    rebillNumber: string;
    charges: string;
    tax: string;
    amount: string;
    lines: BillLineData[];
  };
};

/** An amount as printed, credited: "150.00" is "-150.00", "-3.10" is "3.10", a zero stays as it is. */
export function credited(amount: string): string {
  if (/^-?[0.]*$/.test(amount)) return amount.replace(/^-/, '');
  return amount.startsWith('-') ? amount.slice(1) : `-${amount}`;
}

/** What the layout reads for one credit note of the app, or undefined when the app has no such note. */
export async function creditNoteData(db: Queryable, appCode: number, creditNoteId: number): Promise<CreditNoteDocumentData | undefined> {
  const [note] = await readCreditNotes(db, appCode, { creditNoteID: creditNoteId, limit: 1 }, 'cn.created_at::text');
  if (!note) return undefined;
  const [bill] = await loadDocumentData(db, appCode, [note.bill_id], false);
  if (!bill) return undefined;
  const m = (x: string) => moneyText(x, note.minor_units);
  return {
    ...bill.data,
    creditNote: {
      id: note.credit_note_id,
      number: note.credit_note_number,
      date: formatDate(note.credit_date),
      reason: note.reason,
      rebillNumber: note.rebill_number ?? '',
      // The note's own amounts are the bill's, stored as credited (positive): printed negative.
      charges: credited(m(note.charges)),
      tax: credited(m(note.tax)),
      amount: credited(m(note.amount)),
      lines: bill.data.bill.lines.map((l) => ({ ...l, amount: credited(l.amount) })),
    },
  };
}

let compiled: ReturnType<typeof compileInvoice> | undefined;

/** The credit note's layout blocks: its PDF's, and its pages in a print extract (documents/printExtract.ts). */
export async function creditNoteBlocks(data: CreditNoteDocumentData) {
  compiled ??= compileInvoice({ body: DEFAULT_CREDIT_NOTE_BODY });
  return invoiceBlocks(compiled, data);
}

/** The credit note's PDF from its data, dated with the note's date (the same bytes every time). */
export async function renderCreditNote(data: CreditNoteDocumentData): Promise<Buffer> {
  return renderPdf(await creditNoteBlocks(data), creditNoteMeta(data));
}

/** A credit note's PDF's title, author, date (the note's: the same bytes every time) and page footer. */
export function creditNoteMeta(data: CreditNoteDocumentData): PdfMeta {
  const [d, mo, y] = data.creditNote.date.split('/');
  return {
    title: `Credit note ${data.creditNote.number}`,
    author: data.app.name,
    footer: `Credit note ${data.creditNote.number}, account ${data.account.number}`,
    creationDate: new Date(`${y}-${mo}-${d}T00:00:00Z`),
  };
}

type Stored = { pdf: Buffer; sha256: string };

async function readStored(db: Queryable, appCode: number, creditNoteId: number): Promise<Stored | undefined> {
  const r = await db.query<Stored>('SELECT pdf, sha256 FROM credit_note_document WHERE app_code = $1 AND credit_note_id = $2', [appCode, creditNoteId]);
  return r.rows[0];
}

/**
 * The credit note's PDF: the stored one, or made now and kept (the first insert wins; two
 * first reads at once render the same bytes). Undefined when the app has no such note.
 * get-credit-note-document and the note's e-mail (delivery/sendDelivery.ts) both read it here.
 */
export async function creditNotePdf(db: Queryable, appCode: number, creditNoteId: number): Promise<Stored | undefined> {
  const stored = await readStored(db, appCode, creditNoteId);
  if (stored) return stored;
  const data = await creditNoteData(db, appCode, creditNoteId);
  if (!data) return undefined;
  const pdf = await renderCreditNote(data);
  const sha256 = crypto.createHash('sha256').update(pdf).digest('hex');
  await db.query(
    `INSERT INTO credit_note_document (credit_note_id, app_code, pdf, sha256, bytes) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (credit_note_id) DO NOTHING`,
    [creditNoteId, appCode, pdf, sha256, pdf.length],
  );
  return readStored(db, appCode, creditNoteId);
}

/** The stored PDF's bytes, checked against its checksum as they are read, like a bill's document. */
export function checkedPdf(stored: Stored, creditNoteId: number | string): Buffer {
  const sha256 = crypto.createHash('sha256').update(stored.pdf).digest('hex');
  if (sha256 !== stored.sha256) throw new AppError('INTERNAL', `The stored document of credit note ${creditNoteId} does not match its checksum.`);
  return stored.pdf;
}

/** get-credit-note-document: the stored PDF, made and kept at the first read. */
export async function getCreditNoteDocument(db: Queryable, appCode: number, creditNoteId: number, setHeader: (k: string, v: string) => void): Promise<RawAnswer> {
  const stored = await creditNotePdf(db, appCode, creditNoteId);
  if (!stored) throw notFound('credit note', 'data.creditNoteID');
  const pdf = checkedPdf(stored, creditNoteId);
  setHeader('x-billrun-document-sha256', stored.sha256);
  return { type: 'application/pdf', payload: pdf };
}
