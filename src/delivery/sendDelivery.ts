// Sends one delivery: claim it (committed), build the message (the e-mail template's
// subject and body, the bill's PDF attached), send, record. What is guaranteed is in
// docs/documents.md: the product's own retries never send a delivery that is recorded
// as sent, every attempt carries the same Message-ID, and an attempt that died
// mid-send is finished by the next one.
import type pg from 'pg';
import type { Config } from '../config.ts';
import { loadDocumentData } from '../documents/billContext.ts';
import { readDocument } from '../documents/documentStore.ts';
import { resolveTemplate } from '../documents/resolveTemplate.ts';
import { renderEmail, renderInvoice } from '../documents/render.ts';
import { claimDelivery, markFailed, markSent, MAX_ATTEMPTS, type DeliveryRow } from './store.ts';
import { inTransaction } from '../db/pool.ts';
import { recordEvent } from '../events/record.ts';
import { PermanentFailure, sendMessage } from './mailer.ts';

export type SendOutcome = 'sent' | 'already sent' | 'failed' | 'missing';

export async function sendDelivery(db: pg.Pool, config: Pick<Config, 'smtpUrl' | 'mailDir' | 'mailFrom'>, deliveryId: string): Promise<SendOutcome> {
  const claimed = await claimDelivery(db, deliveryId);
  if (!claimed) {
    const r = await db.query('SELECT 1 FROM delivery WHERE delivery_id = $1', [deliveryId]);
    return r.rowCount === 0 ? 'missing' : 'already sent';
  }
  const d = claimed.row;
  try {
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
    const sent = await sendMessage(config, {
      from: config.mailFrom,
      to: d.recipient,
      subject: mail.subject,
      text: mail.text,
      messageId: d.message_id,
      date: new Date(d.queued_at),
      attachments: [{ filename: `bill-${source.data.bill.number}.pdf`, content: pdf, contentType: 'application/pdf' }],
    });
    await inTransaction(db, async (tx) => {
      await markSent(tx, deliveryId, sent.transport);
      await recordEvent(tx, d.app_code, 'bill.delivered', `bill:${d.bill_id}`, { ...deliveryData(d), transport: sent.transport });
    });
    return 'sent';
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // bill.delivery_failed when no attempt is left: a permanent refusal, or the last retry.
    const final = err instanceof PermanentFailure || d.attempts >= MAX_ATTEMPTS;
    await inTransaction(db, async (tx) => {
      await markFailed(tx, deliveryId, reason);
      if (final) await recordEvent(tx, d.app_code, 'bill.delivery_failed', `bill:${d.bill_id}`, { ...deliveryData(d), attempts: d.attempts, reason: reason.slice(0, 1000) });
    });
    if (err instanceof PermanentFailure) return 'failed';
    throw err; // the queue retries it with backoff
  }
}

/** What a bill.delivered or bill.delivery_failed event says of the delivery. */
function deliveryData(d: DeliveryRow): Record<string, unknown> {
  return { deliveryID: Number(d.delivery_id), billID: Number(d.bill_id), termID: Number(d.term_id), accountID: Number(d.account_id), recipient: d.recipient, resendOf: d.resend_of === null ? null : Number(d.resend_of) };
}
