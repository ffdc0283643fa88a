// SQL of corrections: the bills a correction locks, the credit-note numbers and rows,
// the rebills' posting and links, and the reads of credit notes. Ledger entries are
// written by ledger/store.ts, bills by bills/store.ts, readings by readings/write.ts.
import type { Queryable } from '../db/pool.ts';

export type LockedBill = {
  bill_id: string;
  bill_number: string;
  term_id: string;
  /** null: a Post Account bill (migration 060). */
  subscription_id: string | null;
  account_id: string;
  status: string;
  charges: string;
  tax: string;
  total: string;
  bill_date: string;
  due_date: string;
  /** The rebill's due date: the bill's own, or as many days after today as the bill gave when that has passed. */
  rebill_due: string;
  credit_note_number: string | null;
};

/** The app's bills of these ids, locked (in id order), with the credit note that cancelled each, if any. */
export async function lockBills(db: Queryable, appCode: number, billIds: readonly string[], today: string): Promise<LockedBill[]> {
  const r = await db.query<LockedBill>(
    `SELECT b.bill_id, b.bill_number, b.term_id, b.subscription_id, b.account_id, b.status, b.charges, b.tax, b.total,
            b.bill_date, b.due_date, greatest(b.due_date, $3::date + (b.due_date - b.bill_date)) AS rebill_due, cn.credit_note_number
       FROM bill b LEFT JOIN credit_note cn ON cn.bill_id = b.bill_id
      WHERE b.app_code = $1 AND b.bill_id = ANY($2::bigint[])
      ORDER BY b.bill_id FOR UPDATE OF b`,
    [appCode, billIds, today],
  );
  return r.rows;
}

/** The posted bills of a term (ids), in id order. */
export async function postedBillIds(db: Queryable, termId: string): Promise<string[]> {
  const r = await db.query<{ bill_id: string }>(`SELECT bill_id FROM bill WHERE term_id = $1 AND status = 'posted' ORDER BY bill_id`, [termId]);
  return r.rows.map((x) => x.bill_id);
}

/** The first of the next `count` credit-note numbers of the app, taken in the caller's transaction. */
export async function takeCreditNoteNumbers(db: Queryable, appCode: number, count: number): Promise<bigint> {
  const r = await db.query<{ last_number: string }>(
    `INSERT INTO credit_note_number_counter AS c (app_code, last_number) VALUES ($1, $2)
     ON CONFLICT (app_code) DO UPDATE SET last_number = c.last_number + EXCLUDED.last_number
     RETURNING last_number`,
    [appCode, count],
  );
  return BigInt(r.rows[0]!.last_number) - BigInt(count) + 1n;
}

export type NewCreditNote = {
  number: string;
  accountId: string;
  termId: string;
  billId: string;
  rebillId: string | null;
  charges: string;
  tax: string;
  amount: string;
  entryId: string;
};

/** The bills cancelled (status, time), in the correction's transaction. */
export async function markCancelled(db: Queryable, billIds: readonly string[]): Promise<void> {
  await db.query(`UPDATE bill SET status = 'cancelled', cancelled_at = now() WHERE bill_id = ANY($1::bigint[]) AND status = 'posted'`, [billIds]);
}

/**
 * What a correction changed of its terms (migration 102): the bills it cancelled and the
 * rebills it made, counted, and their amounts (the rebills' less the cancelled bills') added
 * to each term's corrected totals, in one statement in the correction's transaction.
 */
export async function recordTermCorrections(db: Queryable, cancelledIds: readonly string[], rebillIds: readonly string[]): Promise<void> {
  await db.query(
    `UPDATE term t
        SET bills_cancelled = t.bills_cancelled + x.cancelled, bills_rebilled = t.bills_rebilled + x.rebilled,
            corrected_charges = t.corrected_charges + x.charges, corrected_tax = t.corrected_tax + x.tax,
            corrected_amount = t.corrected_amount + x.amount, corrected_brought_forward = t.corrected_brought_forward + x.brought_forward,
            corrected_due = t.corrected_due + x.due
       FROM (SELECT term_id, count(*) FILTER (WHERE s < 0) AS cancelled, count(*) FILTER (WHERE s > 0) AS rebilled,
                    sum(s * charges) AS charges, sum(s * tax) AS tax, sum(s * total) AS amount,
                    sum(s * balance_brought_forward) AS brought_forward, sum(s * total_due) AS due
               FROM (SELECT b.*, CASE WHEN b.bill_id = ANY($2::bigint[]) THEN 1 ELSE -1 END AS s
                       FROM bill b WHERE b.bill_id = ANY($1::bigint[]) OR b.bill_id = ANY($2::bigint[])) b
              GROUP BY term_id) x
      WHERE t.term_id = x.term_id`,
    [cancelledIds, rebillIds],
  );
}

/** now() of the transaction, as text PostgreSQL reads back (a COPY's posted_at). */
export async function transactionTime(db: Queryable): Promise<string> {
  return (await db.query<{ t: string }>('SELECT now()::text AS t')).rows[0]!.t;
}

/** The rebills of these cancelled bills (a term's), by the bill each corrects. */
export async function rebillsOf(db: Queryable, termId: string, cancelledIds: readonly string[]): Promise<Map<string, { billId: string; billNumber: string }>> {
  const r = await db.query<{ bill_id: string; bill_number: string; corrects_bill_id: string }>(
    `SELECT bill_id, bill_number, corrects_bill_id FROM bill WHERE corrects_bill_id = ANY($2::bigint[]) AND term_id = $1 AND status = 'posted'`,
    [termId, cancelledIds],
  );
  return new Map(r.rows.map((x) => [x.corrects_bill_id, { billId: x.bill_id, billNumber: x.bill_number }]));
}

/** Writes the credit notes (their bills cancelled already, their rebills written). Answers each credit note's id by bill. */
export async function insertCreditNotes(
  db: Queryable,
  appCode: number,
  notes: readonly NewCreditNote[],
  o: { date: string; reason: string; origin: string; by: string },
): Promise<Map<string, string>> {
  const col = <K extends keyof NewCreditNote>(k: K) => notes.map((n) => n[k]);
  const r = await db.query<{ credit_note_id: string; bill_id: string }>(
    `INSERT INTO credit_note (app_code, credit_note_number, account_id, term_id, bill_id, rebill_id, credit_date, charges, tax, amount, reason, origin, entry_id, created_by)
     SELECT $1, t.num, t.account_id, t.term_id, t.bill_id, t.rebill_id, $11, t.charges, t.tax, t.amount, $12, $13, t.entry_id, $14
       FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::numeric[], $8::numeric[], $9::numeric[], $10::bigint[])
            WITH ORDINALITY AS t(num, account_id, term_id, bill_id, rebill_id, charges, tax, amount, entry_id, n)
      ORDER BY t.n
     RETURNING credit_note_id, bill_id`,
    [appCode, col('number'), col('accountId'), col('termId'), col('billId'), col('rebillId'), col('charges'), col('tax'), col('amount'), col('entryId'), o.date, o.reason, o.origin, o.by],
  );
  return new Map(r.rows.map((x) => [x.bill_id, x.credit_note_id]));
}

export type CreditNoteRow = {
  credit_note_id: string;
  credit_note_number: string;
  account_id: string;
  account_number: string;
  term_id: string;
  bill_id: string;
  bill_number: string;
  rebill_id: string | null;
  rebill_number: string | null;
  credit_date: string;
  charges: string;
  tax: string;
  amount: string;
  reason: string;
  origin: string;
  entry_id: string;
  created_at: string;
  created_by: string;
  minor_units: number;
};

export type CreditNoteFilter = {
  creditNoteID?: number;
  creditNoteNumber?: number;
  billID?: number;
  accountID?: number;
  termID?: number;
  afterCreditNoteID?: number;
  limit?: number;
};

/** Credit notes of the app, by any of the filter's fields, in id order. */
export async function readCreditNotes(db: Queryable, appCode: number, f: CreditNoteFilter, localCreatedAt: string): Promise<CreditNoteRow[]> {
  const r = await db.query<CreditNoteRow>(
    `SELECT cn.credit_note_id, cn.credit_note_number, cn.account_id, ac.account_number, cn.term_id, cn.bill_id, b.bill_number,
            cn.rebill_id, nb.bill_number AS rebill_number, cn.credit_date, cn.charges, cn.tax, cn.amount, cn.reason, cn.origin,
            cn.entry_id, ${localCreatedAt} AS created_at, cn.created_by, a.minor_units
       FROM credit_note cn
       JOIN app a ON a.app_code = cn.app_code
       JOIN account ac ON ac.account_id = cn.account_id
       JOIN bill b ON b.bill_id = cn.bill_id
       LEFT JOIN bill nb ON nb.bill_id = cn.rebill_id
      WHERE cn.app_code = $1 AND ($2::bigint IS NULL OR cn.credit_note_id = $2) AND ($3::bigint IS NULL OR cn.credit_note_number = $3)
        AND ($4::bigint IS NULL OR cn.bill_id = $4 OR cn.rebill_id = $4) AND ($5::bigint IS NULL OR cn.account_id = $5)
        AND ($6::bigint IS NULL OR cn.term_id = $6) AND cn.credit_note_id > $7
      ORDER BY cn.credit_note_id LIMIT $8`,
    [appCode, f.creditNoteID ?? null, f.creditNoteNumber ?? null, f.billID ?? null, f.accountID ?? null, f.termID ?? null, f.afterCreditNoteID ?? 0, f.limit ?? 100],
  );
  return r.rows;
}
