// Sends one delivery: claim it (committed), build the message (the e-mail template's
// subject and body, the bill's PDF attached; a credit note's: docs/corrections.md), send, record. What is guaranteed is in
// docs/documents.md: the product's own retries never send a delivery that is recorded
// as sent, every attempt carries the same Message-ID, and an attempt that died
// mid-send is finished by the next one.
import type pg from 'pg';
import type { Config } from '../config.ts';
import { loadDocumentData } from '../documents/billContext.ts';
import { readDocument } from '../documents/documentStore.ts';
import { resolveTemplate } from '../documents/resolveTemplate.ts';
import { renderEmail, renderInvoice } from '../documents/render.ts';
import { claimDelivery, deliveryIds, markFailed, markSent, MAX_ATTEMPTS, type DeliveryRow } from './store.ts';
import { inTransaction } from '../db/pool.ts';
import { recordEvent } from '../events/record.ts';
import { PermanentFailure, sendMessage } from './mailer.ts';
import { checkedPdf, creditNoteData, creditNotePdf } from '../corrections/creditNoteDocument.ts';
import { DEFAULT_CREDIT_NOTE_EMAIL_BODY, DEFAULT_CREDIT_NOTE_EMAIL_SUBJECT } from '../documents/defaults.ts';

export type SendOutcome = 'sent' | 'already sent' | 'failed' | 'missing';

export async function sendDelivery(db: pg.Pool, config: Pick<Config, 'smtpUrl' | 'mailDir' | 'mailFrom'>, deliveryId: string): Promise<SendOutcome> {
  const claimed = await claimDelivery(db, deliveryId);
  if (!claimed) {
    const r = await db.query('SELECT 1 FROM delivery WHERE delivery_id = $1', [deliveryId]);
    return r.rowCount === 0 ? 'missing' : 'already sent';
  }
  const d = claimed.row;
  try {
    const message = d.document === 'credit note' ? await creditNoteMessage(db, d) : await billMessage(db, d);
    const sent = await sendMessage(config, {
      from: config.mailFrom,
      to: d.recipient,
      subject: message.subject,
      text: message.text,
      messageId: d.message_id,
      date: new Date(d.queued_at),
      attachments: message.attachments,
    });
    await inTransaction(db, async (tx) => {
      await markSent(tx, deliveryId, sent.transport);
      await recordEvent(tx, d.app_code, delivered(d), `bill:${d.bill_id}`, { ...deliveryIds(d), transport: sent.transport });
    });
    return 'sent';
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // bill.delivery_failed when no attempt is left: a permanent refusal, or the last retry.
    const final = err instanceof PermanentFailure || d.attempts >= MAX_ATTEMPTS;
    await inTransaction(db, async (tx) => {
      await markFailed(tx, deliveryId, reason);
      if (final) await recordEvent(tx, d.app_code, deliveryFailed(d), `bill:${d.bill_id}`, { ...deliveryIds(d), attempts: d.attempts, reason: reason.slice(0, 1000) });
    });
    if (err instanceof PermanentFailure) return 'failed';
    throw err; // the queue retries it with backoff
  }
}

type Message = { subject: string; text: string; attachments: { filename: string; content: Buffer; contentType: string }[] };

const pdfFile = (filename: string, content: Buffer) => ({ filename, content, contentType: 'application/pdf' });

/**
 * A bill's e-mail: its template's subject and body, its PDF (the stored one, or rendered now
 * to the same bytes), and on a rebill the PDF of the credit note that cancelled the bill it
 * replaces (the delivery's credit_note_id; a rebill's delivery queued before that column
 * finds its note by the rebill).
 */
async function billMessage(db: pg.Pool, d: DeliveryRow): Promise<Message> {
  // Two reads at once: a message waits on the database, not on the CPU (docs/documents.md, "Speed").
  const [[source], stored] = await Promise.all([loadDocumentData(db, d.app_code, [d.bill_id]), readDocument(db, d.app_code, Number(d.bill_id))]);
  if (!source) throw new PermanentFailure('the bill was not found');
  let pdf = stored?.status === 'rendered' ? stored.pdf : null;
  if (!pdf) {
    // Not rendered yet: rendered now with the term's template, to the bytes the
    // document job will store (rendering is deterministic).
    const invoice = await resolveTemplate(db, d.app_code, 'invoice', source.invoiceTemplateId);
    pdf = await renderInvoice({ body: invoice.body }, source.data);
  }
  const email = await resolveTemplate(db, d.app_code, 'email', source.emailTemplateId);
  const mail = await renderEmail({ subject: email.subject ?? '', body: email.body }, source.data);
  const attachments = [pdfFile(`bill-${source.data.bill.number}.pdf`, pdf)];
  if (source.data.bill.replaces) {
    const noteId = d.credit_note_id ?? (await db.query<{ id: string }>('SELECT credit_note_id AS id FROM credit_note WHERE rebill_id = $1', [d.bill_id])).rows[0]?.id;
    if (noteId !== undefined) attachments.push(await creditNoteFile(db, d.app_code, noteId, source.data.bill.replaces.creditNoteNumber));
  }
  return { ...mail, attachments };
}

/** A credit note's own e-mail (its bill cancelled without a rebill): the product's subject and body, the note's PDF. */
async function creditNoteMessage(db: pg.Pool, d: DeliveryRow): Promise<Message> {
  const data = await creditNoteData(db, d.app_code, Number(d.credit_note_id));
  if (!data) throw new PermanentFailure('the credit note was not found');
  const mail = await renderEmail({ subject: DEFAULT_CREDIT_NOTE_EMAIL_SUBJECT, body: DEFAULT_CREDIT_NOTE_EMAIL_BODY }, data);
  return { ...mail, attachments: [await creditNoteFile(db, d.app_code, d.credit_note_id!, data.creditNote.number)] };
}

async function creditNoteFile(db: pg.Pool, appCode: number, creditNoteId: string, number: string) {
  const stored = await creditNotePdf(db, appCode, Number(creditNoteId));
  if (!stored) throw new PermanentFailure(`credit note ${creditNoteId} was not found`);
  return pdfFile(`credit-note-${number}.pdf`, checkedPdf(stored, creditNoteId));
}

const delivered = (d: DeliveryRow) => (d.document === 'credit note' ? 'credit_note.delivered' : 'bill.delivered');
const deliveryFailed = (d: DeliveryRow) => (d.document === 'credit note' ? 'credit_note.delivery_failed' : 'bill.delivery_failed');

