// SQL for delivery: queued at posting, claimed ('sending') before a message leaves,
// then sent or failed; listed and resent.
import type { Queryable } from '../db/pool.ts';

export const DELIVERY_TASK = 'delivery-send';

/** Whether an account's bills (and credit notes) go by e-mail: its preference, and an address to send to. */
const TAKES_EMAIL = `ac.delivery_preference IN ('email', 'both') AND ac.email IS NOT NULL`;

/**
 * One delivery per posted bill of the term whose account takes e-mail and has an
 * address, and its send job, in the caller's transaction (the posting's). A bill that
 * has one already gets none: posting twice never sends twice. A rebill's e-mail carries
 * the credit note that cancelled the bill it replaces (credit_note_id; migration 098),
 * found only for a bill that corrects one, so a term's posting pays no lookup a bill.
 */
export async function queueTermDeliveries(db: Queryable, termId: string, by: string): Promise<number> {
  const r = await db.query<{ delivery_id: string }>(
    `INSERT INTO delivery (app_code, bill_id, account_id, term_id, recipient, message_id, created_by, credit_note_id)
     SELECT b.app_code, b.bill_id, b.account_id, b.term_id, ac.email,
            '<bill-' || b.bill_id || '.' || replace(gen_random_uuid()::text, '-', '') || '@billrun>', $2,
            CASE WHEN b.corrects_bill_id IS NOT NULL THEN (SELECT n.credit_note_id FROM credit_note n WHERE n.rebill_id = b.bill_id) END
       FROM bill b JOIN account ac ON ac.account_id = b.account_id
      WHERE b.term_id = $1 AND b.status = 'posted' AND ${TAKES_EMAIL}
     ON CONFLICT (bill_id) WHERE resend_of IS NULL AND document = 'bill' DO NOTHING
     RETURNING delivery_id`,
    [termId, by],
  );
  await addSendJobs(db, r.rows.map((x) => x.delivery_id));
  return r.rowCount ?? 0;
}

/**
 * The e-mail of each of these credit notes whose bill was cancelled without a rebill (a
 * rebill's own e-mail carries its note), to an account that takes e-mail, with its send
 * job, in the correction's transaction. A note that has one already gets none.
 */
export async function queueCreditNoteDeliveries(db: Queryable, creditNoteIds: readonly string[], by: string): Promise<number> {
  if (creditNoteIds.length === 0) return 0;
  const r = await db.query<{ delivery_id: string }>(
    `INSERT INTO delivery (app_code, bill_id, account_id, term_id, recipient, message_id, created_by, document, credit_note_id)
     SELECT n.app_code, n.bill_id, n.account_id, n.term_id, ac.email,
            '<credit-note-' || n.credit_note_id || '.' || replace(gen_random_uuid()::text, '-', '') || '@billrun>', $2, 'credit note', n.credit_note_id
       FROM credit_note n JOIN account ac ON ac.account_id = n.account_id
      WHERE n.credit_note_id = ANY($1::bigint[]) AND n.rebill_id IS NULL AND ${TAKES_EMAIL}
     ON CONFLICT (credit_note_id) WHERE resend_of IS NULL AND document = 'credit note' DO NOTHING
     RETURNING delivery_id`,
    [creditNoteIds, by],
  );
  await addSendJobs(db, r.rows.map((x) => x.delivery_id));
  return r.rowCount ?? 0;
}

// graphile-worker retries a failed send with its exponential backoff (e^attempt
// seconds: 3 s, 7 s, 20 s ... about an hour and a half in all).
export const MAX_ATTEMPTS = 10;
// After bill-run work (priority 0), before documents (documents/jobs.ts).
const DELIVERY_PRIORITY = 5;

export async function addSendJobs(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('deliveryId', d), job_key := 'delivery:' || d, max_attempts := $3, priority := $4)
       FROM unnest($2::text[]) d`,
    [DELIVERY_TASK, ids, MAX_ATTEMPTS, DELIVERY_PRIORITY],
  );
}

export type DeliveryRow = {
  delivery_id: string;
  app_code: number;
  bill_id: string;
  account_id: string;
  term_id: string;
  /** 'bill', or 'credit note': the e-mail of a note whose bill was not rebilled (bill_id is the cancelled bill). */
  document: 'bill' | 'credit note';
  /** The credit note the e-mail is of, or carries beside a rebill; null for any other bill's e-mail. */
  credit_note_id: string | null;
  recipient: string;
  status: 'queued' | 'sending' | 'sent' | 'failed';
  message_id: string;
  attempts: number;
  last_error: string | null;
  resend_of: string | null;
  transport: string | null;
  queued_at: string;
  sent_at: string | null;
};

/** What names a delivery and whom it went to, as the API lists it and its events carry it (get-deliveries, bill.delivered, ...). */
export const deliveryIds = (d: DeliveryRow) => ({
  deliveryID: Number(d.delivery_id),
  document: d.document,
  billID: Number(d.bill_id),
  creditNoteID: d.credit_note_id === null ? null : Number(d.credit_note_id),
  termID: Number(d.term_id),
  accountID: Number(d.account_id),
  recipient: d.recipient,
  resendOf: d.resend_of === null ? null : Number(d.resend_of),
});

/**
 * Claims a delivery for an attempt: queued or failed (or sending, when the attempt
 * before died mid-send) becomes sending, committed before the message leaves. A sent
 * one is answered as is and never claimed again.
 */
export async function claimDelivery(db: Queryable, deliveryId: string): Promise<{ row: DeliveryRow; resumed: boolean } | undefined> {
  const r = await db.query<DeliveryRow & { was: string }>(
    `UPDATE delivery d SET status = 'sending', attempts = d.attempts + 1, sending_at = now()
       FROM (SELECT delivery_id, status AS was FROM delivery WHERE delivery_id = $1 FOR UPDATE) old
      WHERE d.delivery_id = old.delivery_id AND old.was <> 'sent'
      RETURNING d.*, old.was`,
    [deliveryId],
  );
  const row = r.rows[0];
  return row ? { row, resumed: row.was === 'sending' } : undefined;
}

export async function markSent(db: Queryable, deliveryId: string, transport: string): Promise<void> {
  await db.query(`UPDATE delivery SET status = 'sent', sent_at = now(), transport = $2, last_error = NULL WHERE delivery_id = $1`, [deliveryId, transport]);
}

export async function markFailed(db: Queryable, deliveryId: string, reason: string): Promise<void> {
  await db.query(`UPDATE delivery SET status = 'failed', failed_at = now(), last_error = $2 WHERE delivery_id = $1 AND status <> 'sent'`, [
    deliveryId,
    reason.slice(0, 1000),
  ]);
}

export async function listDeliveries(
  db: Queryable,
  appCode: number,
  f: { termID?: number; billID?: number; creditNoteID?: number; accountID?: number; deliveryID?: number; status?: string; afterDeliveryID?: number; limit?: number },
): Promise<(DeliveryRow & { queued_text: string; sent_text: string | null })[]> {
  const r = await db.query<DeliveryRow & { queued_text: string; sent_text: string | null }>(
    `SELECT d.*, to_char(d.queued_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS queued_text,
            to_char(d.sent_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS sent_text
       FROM delivery d JOIN app a ON a.app_code = d.app_code
      WHERE d.app_code = $1 AND ($2::bigint IS NULL OR d.term_id = $2) AND ($3::bigint IS NULL OR d.bill_id = $3)
        AND ($4::bigint IS NULL OR d.delivery_id = $4) AND ($5::text IS NULL OR d.status = $5) AND d.delivery_id > $6
        AND ($8::bigint IS NULL OR d.credit_note_id = $8) AND ($9::bigint IS NULL OR d.account_id = $9)
      ORDER BY d.delivery_id LIMIT $7`,
    [appCode, f.termID ?? null, f.billID ?? null, f.deliveryID ?? null, f.status ?? null, f.afterDeliveryID ?? 0, f.limit ?? 1000, f.creditNoteID ?? null, f.accountID ?? null],
  );
  return r.rows;
}

/** A new delivery of the same bill or credit note (a person's decision, so it may send again), with its job. */
export async function insertResend(db: Queryable, appCode: number, deliveryId: number, recipient: string | null, by: string): Promise<string | undefined> {
  const r = await db.query<{ delivery_id: string }>(
    `INSERT INTO delivery (app_code, bill_id, account_id, term_id, recipient, message_id, resend_of, created_by, document, credit_note_id)
     SELECT d.app_code, d.bill_id, d.account_id, d.term_id, coalesce($3, ac.email, d.recipient),
            CASE d.document WHEN 'bill' THEN '<bill-' || d.bill_id ELSE '<credit-note-' || d.credit_note_id END
              || '.' || replace(gen_random_uuid()::text, '-', '') || '@billrun>', d.delivery_id, $4, d.document, d.credit_note_id
       FROM delivery d JOIN account ac ON ac.account_id = d.account_id
      WHERE d.app_code = $1 AND d.delivery_id = $2
     RETURNING delivery_id`,
    [appCode, deliveryId, recipient, by],
  );
  const id = r.rows[0]?.delivery_id;
  if (id) await addSendJobs(db, [id]);
  return id;
}
