// SQL for payments: the payment rows, reversals, imports and reads (their ledger entries by ledger/store.ts).
import type { Queryable } from '../db/pool.ts';
import { filters } from '../db/filters.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import { addPaymentEntries, addPaymentReversalEntry } from '../ledger/store.ts';

export type NewPayment = {
  accountId: string;
  reference: string;
  amount: string;
  paymentDate: string; // yyyy-mm-dd
  channel: string;
  /** The cash (bank) account it was paid into; null: not given, the account's (DEFAULT_CASH_ACCOUNT). */
  cashAccountId: number | null;
  description: string;
  importRow: number | null;
};

/**
 * The cash account of a payment given without one, as SQL on its account (`account`; $1 is
 * the app): the cash account of the template whose bill it pays first, the account's oldest
 * open bill in the Chronology order (due date, bill date, posted first; its term's version,
 * as the journal places the bill); with no bill open, that of the template of the account's
 * oldest live subscription (a prepayment, a deposit), else of its oldest terminated one
 * (current versions); 0 when it has none. Resolved once when the payment is recorded and
 * kept on it, so the journal of its day never changes afterwards (docs/journal.md).
 */
const DEFAULT_CASH_ACCOUNT = (account: string) => `coalesce(
     (SELECT (v.definition->>'cashAccountID')::int
        FROM open_item o
        JOIN ledger_entry e ON e.entry_id = o.entry_id AND e.kind = 'bill'
        JOIN bill b ON b.bill_id = e.bill_id
        JOIN term t ON t.term_id = b.term_id
        JOIN service_version v ON v.service_version_id = t.service_version_id
       WHERE o.app_code = $1 AND o.account_id = ${account} AND o.open_amount > 0
       ORDER BY b.due_date, b.bill_date, e.entry_id LIMIT 1),
     (SELECT (v.definition->>'cashAccountID')::int
        FROM subscription s
        JOIN service sv ON sv.service_id = s.service_id
        JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
       WHERE s.account_id = ${account}
       ORDER BY s.status = 'terminated', s.subscription_id LIMIT 1),
     0)`;

/**
 * Writes payments and their ledger entries (amount = -payment) in two statements; a
 * payment without a cash account gets its account's (DEFAULT_CASH_ACCOUNT).
 * A reference the app has already used is skipped by the unique constraint: the
 * answer lists only the payments written, so the caller sees which were refused.
 */
export async function insertPayments(
  db: Queryable,
  appCode: number,
  payments: readonly NewPayment[],
  importId: string | null,
  by: string,
): Promise<{ payment_id: string; reference: string; account_id: string }[]> {
  if (payments.length === 0) return [];
  const col = <K extends keyof NewPayment>(k: K) => payments.map((p) => p[k]);
  const r = await db.query<{ payment_id: string; reference: string; account_id: string }>(
    `INSERT INTO payment (app_code, account_id, reference, amount, payment_date, channel, cash_account_id, description, import_id, import_row, created_by)
     SELECT $1, p.account_id, p.reference, p.amount, p.payment_date, p.channel,
            coalesce(p.cash_account_id, ${DEFAULT_CASH_ACCOUNT('p.account_id')}), p.description, $2, p.import_row, $3
       FROM unnest($4::bigint[], $5::text[], $6::numeric[], $7::date[], $8::text[], $9::integer[], $10::text[], $11::integer[])
            WITH ORDINALITY AS p(account_id, reference, amount, payment_date, channel, cash_account_id, description, import_row, n)
      ORDER BY p.n
     ON CONFLICT (app_code, reference) DO NOTHING
     RETURNING payment_id, reference, account_id`,
    [
      appCode,
      importId,
      by,
      col('accountId'),
      col('reference'),
      col('amount'),
      col('paymentDate'),
      col('channel'),
      col('cashAccountId'),
      col('description'),
      col('importRow'),
    ],
  );
  await addPaymentEntries(db, r.rows.map((x) => x.payment_id), by);
  return r.rows;
}

export type RecordedPayment = { reference: string; account_id: string; amount: string; payment_date: string; channel: string };

/** The app's payments that already carry one of these references. */
export async function recordedReferences(db: Queryable, appCode: number, references: readonly string[]): Promise<Map<string, RecordedPayment>> {
  if (references.length === 0) return new Map();
  const r = await db.query<RecordedPayment>(
    'SELECT reference, account_id, amount, payment_date, channel FROM payment WHERE app_code = $1 AND reference = ANY($2::text[])',
    [appCode, references],
  );
  return new Map(r.rows.map((x) => [x.reference, x]));
}

/** Account ids by number, for the numbers the app has. */
export async function accountIdsByNumber(db: Queryable, appCode: number, numbers: readonly string[]): Promise<Map<string, string>> {
  if (numbers.length === 0) return new Map();
  const r = await db.query<{ account_number: string; account_id: string }>(
    'SELECT account_number, account_id FROM account WHERE app_code = $1 AND account_number = ANY($2::text[])',
    [appCode, numbers],
  );
  return new Map(r.rows.map((x) => [x.account_number, x.account_id]));
}

/** Claims a file for import; undefined when the app imported the very same file before. */
export async function claimImport(
  db: Queryable,
  appCode: number,
  f: { fileName: string | null; fileHash: string; format: 'csv' | 'json'; rowCount: number; skipped: number; total: string },
  by: string,
): Promise<string | undefined> {
  const r = await db.query<{ import_id: string }>(
    `INSERT INTO payment_import (app_code, file_name, file_hash, format, row_count, skipped, total, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (app_code, file_hash) DO NOTHING RETURNING import_id`,
    [appCode, f.fileName, f.fileHash, f.format, f.rowCount, f.skipped, f.total, by],
  );
  return r.rows[0]?.import_id;
}

export async function findImportByHash(db: Queryable, appCode: number, fileHash: string): Promise<{ import_id: string; created_at: string } | undefined> {
  const r = await db.query<{ import_id: string; created_at: string }>(
    `SELECT i.import_id, ${localTimeSql('i.created_at')} AS created_at
       FROM payment_import i JOIN app a ON a.app_code = i.app_code WHERE i.app_code = $1 AND i.file_hash = $2`,
    [appCode, fileHash],
  );
  return r.rows[0];
}

export type PaymentForReversal = {
  payment_id: string;
  account_id: string;
  amount: string;
  reference: string;
  payment_date: string;
  entry_id: string;
  reversed: boolean;
};

/** The payment and its ledger entry, its account locked, in the caller's transaction. */
export async function lockPayment(db: Queryable, appCode: number, ref: { paymentID?: number | undefined; reference?: string | undefined }) {
  const byId = ref.paymentID !== undefined;
  const r = await db.query<PaymentForReversal>(
    `SELECT p.payment_id, p.account_id, p.amount, p.reference, to_char(p.payment_date, 'YYYY-MM-DD') AS payment_date, e.entry_id, (r.payment_id IS NOT NULL) AS reversed
       FROM payment p
       JOIN ledger_entry e ON e.payment_id = p.payment_id AND e.kind = 'payment'
       LEFT JOIN payment_reversal r ON r.payment_id = p.payment_id
      WHERE p.app_code = $1 AND ${byId ? 'p.payment_id = $2' : 'p.reference = $2'}`,
    [appCode, byId ? ref.paymentID : ref.reference],
  );
  const row = r.rows[0];
  if (row) await db.query('SELECT 1 FROM account WHERE account_id = $1 FOR NO KEY UPDATE', [row.account_id]);
  return row;
}

/** The reversing entry and the reversal row; answers false when the payment was reversed meanwhile. */
export async function insertReversal(
  db: Queryable,
  appCode: number,
  p: PaymentForReversal,
  reason: string,
  reversalDate: string,
  by: string,
): Promise<boolean> {
  const entryId = await addPaymentReversalEntry(db, {
    appCode,
    accountId: p.account_id,
    date: reversalDate,
    amount: p.amount,
    paymentId: p.payment_id,
    reversesEntryId: p.entry_id,
    description: `Reversal of payment ${p.reference}: ${reason}`,
    by,
  });
  const r = await db.query(
    `INSERT INTO payment_reversal (payment_id, app_code, reason, reversal_date, entry_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (payment_id) DO NOTHING`,
    [p.payment_id, appCode, reason, reversalDate, entryId, by],
  );
  return r.rowCount === 1;
}

export type PaymentFilters = {
  paymentID?: number | undefined;
  reference?: string | undefined;
  accountId?: string | undefined;
  importID?: number | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
  status?: 'Posted' | 'Reversed' | undefined;
};

export type PaymentRow = {
  payment_id: string;
  app_code: number;
  account_id: string;
  account_number: string;
  reference: string;
  amount: string;
  payment_date: string;
  channel: string;
  cash_account_id: number;
  description: string;
  import_id: string | null;
  import_row: number | null;
  unapplied: string;
  reason: string | null;
  reversal_date: string | null;
  reversed_at: string | null;
  reversed_by: string | null;
  created_at: string;
  created_by: string;
};

export async function listPayments(db: Queryable, appCode: number, f: PaymentFilters, limit: number, offset: number) {
  const w = filters('p.app_code = $1', appCode);
  const add = (sql: string, v: unknown) => w.add((p) => sql.replace('?', p), v);
  if (f.paymentID !== undefined) add('p.payment_id = ?', f.paymentID);
  if (f.reference !== undefined) add('p.reference = ?', f.reference);
  if (f.accountId !== undefined) add('p.account_id = ?', f.accountId);
  if (f.importID !== undefined) add('p.import_id = ?', f.importID);
  if (f.fromDate !== undefined) add('p.payment_date >= ?', f.fromDate);
  if (f.toDate !== undefined) add('p.payment_date <= ?', f.toDate);
  if (f.status === 'Posted') w.where.push('r.payment_id IS NULL');
  if (f.status === 'Reversed') w.where.push('r.payment_id IS NOT NULL');
  const from = `FROM payment p LEFT JOIN payment_reversal r ON r.payment_id = p.payment_id WHERE ${w.sql()}`;
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n ${from}`, w.params);
  const page = w.page(limit, offset);
  const rows = await db.query<PaymentRow>(
    `SELECT p.payment_id, p.app_code, p.account_id, ac.account_number, p.reference, p.amount, p.payment_date, p.channel,
            p.cash_account_id, p.description, p.import_id, p.import_row,
            coalesce(-(SELECT sum(o.open_amount) FROM open_item o JOIN ledger_entry e ON e.entry_id = o.entry_id
                        WHERE e.payment_id = p.payment_id AND e.kind = 'payment'), 0) AS unapplied,
            r.reason, r.reversal_date,
            ${localTimeSql('r.created_at')} AS reversed_at, r.created_by AS reversed_by,
            ${localTimeSql('p.created_at')} AS created_at, p.created_by
       FROM payment p
       JOIN app a ON a.app_code = p.app_code
       JOIN account ac ON ac.account_id = p.account_id
       LEFT JOIN payment_reversal r ON r.payment_id = p.payment_id
      WHERE ${w.sql()}
      ORDER BY p.payment_date DESC, p.payment_id DESC
      ${page.sql}`,
    page.params,
  );
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

export type AllocationRow = {
  payment_id: string;
  bill_id: string | null;
  bill_number: string | null;
  debit_kind: string;
  line_no: number | null;
  component_code: string | null;
  amount: string;
  method: string;
  settlement_method: string;
  allocated_at: string;
  released_at: string | null;
  release_reason: string | null;
};

/** Every allocation the payments made, live and released, in the order they were made. */
export async function paymentAllocations(db: Queryable, paymentIds: readonly string[]): Promise<AllocationRow[]> {
  if (paymentIds.length === 0) return [];
  const r = await db.query<AllocationRow>(
    `SELECT al.payment_id, al.bill_id, b.bill_number, de.kind AS debit_kind, al.line_no,
            (SELECT h.component_code FROM bill_line_heads(b.lines) h WHERE h.line_no = al.line_no) AS component_code,
            al.amount, al.method, al.settlement_method,
            ${localTimeSql('al.allocated_at')} AS allocated_at,
            ${localTimeSql('al.released_at')} AS released_at, al.release_reason
       FROM allocation al
       JOIN app a ON a.app_code = al.app_code
       JOIN ledger_entry de ON de.entry_id = al.debit_entry_id
       LEFT JOIN bill b ON b.bill_id = al.bill_id
      WHERE al.payment_id = ANY($1::bigint[])
      ORDER BY al.allocation_id`,
    [paymentIds],
  );
  return r.rows;
}
