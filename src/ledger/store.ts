// The one writer of ledger entries. Bills (posting), payments (receipts and reversals)
// and adjustments call it, so every entry is made the same way: its kind, sign, date
// and description are decided here, and the table's triggers (balance, immutability)
// see one shape of insert.
import type { Queryable } from '../db/pool.ts';

/**
 * One entry of each posted bill: its total (the brought-forward balance is in the ledger
 * already), dated the bill's date. Answers how many.
 */
export async function addBillEntries(db: Queryable, billIds: readonly string[], by: string): Promise<number> {
  if (billIds.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, $2
       FROM bill WHERE bill_id = ANY($1::bigint[]) ORDER BY bill_id`,
    [billIds, by],
  );
  return r.rowCount ?? 0;
}

/** One credit entry of each payment: minus its amount, dated the payment's date. */
export async function addPaymentEntries(db: Queryable, paymentIds: readonly string[], by: string): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, payment_id, description, created_by)
     SELECT app_code, account_id, payment_date, 'payment', -amount, payment_id, 'Payment ' || reference, $2
       FROM payment WHERE payment_id = ANY($1::bigint[]) ORDER BY payment_id`,
    [paymentIds, by],
  );
  return r.rowCount ?? 0;
}

/** The entry that takes a payment's entry back: its amount, positive again. Answers the entry's id. */
export async function addPaymentReversalEntry(
  db: Queryable,
  e: { appCode: number; accountId: string; date: string; amount: string; paymentId: string; reversesEntryId: string; description: string; by: string },
): Promise<string> {
  const r = await db.query<{ entry_id: string }>(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, payment_id, reverses_entry_id, description, created_by)
     VALUES ($1, $2, $3, 'payment_reversal', $4, $5, $6, $7, $8) RETURNING entry_id`,
    [e.appCode, e.accountId, e.date, e.amount, e.paymentId, e.reversesEntryId, e.description, e.by],
  );
  return r.rows[0]!.entry_id;
}

/** A credit note (negative amount) or debit note, on a posted bill or on the account. Answers the entry's id. */
export async function addAdjustmentEntry(
  db: Queryable,
  e: { appCode: number; accountId: string; date: string; amount: string; billId: number | null; description: string; by: string },
): Promise<string> {
  const r = await db.query<{ entry_id: string }>(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     VALUES ($1, $2, $3, 'adjustment', $4, $5, $6, $7) RETURNING entry_id`,
    [e.appCode, e.accountId, e.date, e.amount, e.billId, e.description, e.by],
  );
  return r.rows[0]!.entry_id;
}

/**
 * The late payment charges of a daily run (src/lateCharges/): one debit adjustment per
 * bill, tied to it, dated the charge date, in one statement (the rows as one JSON
 * document, cheaper to send than arrays of quoted text). Answers each entry's id with
 * its bill.
 */
export async function addLateChargeEntries(
  db: Queryable,
  e: { appCode: number; date: string; by: string; rows: readonly { account_id: string; bill_id: string; amount: string; description: string }[] },
): Promise<{ entry_id: string; bill_id: string }[]> {
  if (e.rows.length === 0) return [];
  const r = await db.query<{ entry_id: string; bill_id: string }>(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
     SELECT $1, x.account_id, $2::date, 'adjustment', x.amount, x.bill_id, x.description, $3
       FROM json_to_recordset($4::json) AS x(account_id bigint, bill_id bigint, amount numeric, description text)
     RETURNING entry_id, bill_id`,
    [e.appCode, e.date, e.by, JSON.stringify(e.rows)],
  );
  return r.rows;
}

/**
 * The credit-note entry of each cancelled bill (corrections/): minus the bill's total,
 * kind 'bill_reversal', reversing the bill's own entry (settlement pairs the two and
 * frees what had paid the bill), dated `date`. Answers each entry's id by bill.
 */
export async function addBillReversalEntries(
  db: Queryable,
  e: { billIds: readonly string[]; descriptions: readonly string[]; date: string; by: string },
): Promise<Map<string, string>> {
  return addReversalEntries(db, 'bill_reversal', e.billIds, e.descriptions, e.date, e.by);
}

/**
 * The entries taking back late charges whose bill a credit note cancelled
 * (lateCharges/reverseLateCharges.ts): minus the charge, kind 'adjustment' as the charge
 * is, tied to the same bill, reversing the charge's entry (settlement pairs the two and
 * frees what had paid the charge), dated `date`. Answers each entry's id by the entry it
 * reverses.
 */
export async function addLateChargeReversalEntries(
  db: Queryable,
  e: { date: string; by: string; rows: readonly { chargeEntryId: string; description: string }[] },
): Promise<Map<string, string>> {
  return addReversalEntries(db, 'adjustment', e.rows.map((x) => x.chargeEntryId), e.rows.map((x) => x.description), e.date, e.by);
}

/** What each kind of reversing entry reverses, found by its key, and the column its key comes back in. */
const REVERSED = {
  // a cancelled bill: the bill's own entry (its amount is the bill's total)
  bill_reversal: { join: `c.bill_id = t.key AND c.kind = 'bill'`, key: 'bill_id', missing: 'a cancelled bill has no ledger entry of its own' },
  // a late charge: its adjustment entry
  adjustment: { join: `c.entry_id = t.key AND c.kind = 'adjustment'`, key: 'reverses_entry_id', missing: 'a late charge to reverse has no adjustment entry' },
} as const;

/**
 * One entry reversing each entry found by its key: minus its amount, on its account,
 * tied to its bill, `reverses_entry_id` set, in one statement. Answers each new entry's
 * id by key.
 */
async function addReversalEntries(
  db: Queryable,
  kind: keyof typeof REVERSED,
  keys: readonly string[],
  descriptions: readonly string[],
  date: string,
  by: string,
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const how = REVERSED[kind];
  const r = await db.query<{ entry_id: string; key: string }>(
    `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, reverses_entry_id, description, created_by)
     SELECT c.app_code, c.account_id, $3, $5, -c.amount, c.bill_id, c.entry_id, t.description, $4
       FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS t(key, description, n)
       JOIN ledger_entry c ON ${how.join}
      ORDER BY t.n
     RETURNING entry_id, ${how.key} AS key`,
    [keys, descriptions, date, by, kind],
  );
  if (r.rows.length !== keys.length) throw new Error(how.missing);
  return new Map(r.rows.map((x) => [x.key, x.entry_id]));
}

/**
 * A next entry id for each of `n` entries, taken from the table's own sequence, so a
 * writer can tie each new entry to its row elsewhere (a deposit) without matching on text.
 */
async function nextEntryIds(db: Queryable, n: number): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT nextval(pg_get_serial_sequence('ledger_entry', 'entry_id'))::text AS id FROM generate_series(1, $1)`,
    [n],
  );
  return r.rows.map((x) => x.id);
}

export type DepositEntryRow = { accountId: string; amount: string; description: string };

/**
 * The deposits' own entries (src/deposits/), one statement for all the rows: kind
 * 'deposit' charges a security deposit (> 0, payable like a bill item); 'deposit_release'
 * gives it back on termination (the amount given is positive, the entry negative);
 * 'deposit_refund' is what is refunded of it (> 0, paid out by a payment run). Dated
 * `date`. Answers each row's entry id, in the rows' order.
 */
export async function addDepositEntries(
  db: Queryable,
  e: { appCode: number; kind: 'deposit' | 'deposit_release' | 'deposit_refund'; date: string; by: string; rows: readonly DepositEntryRow[] },
): Promise<string[]> {
  if (e.rows.length === 0) return [];
  const ids = await nextEntryIds(db, e.rows.length);
  const sign = e.kind === 'deposit_release' ? '-' : '';
  await db.query(
    `INSERT INTO ledger_entry (entry_id, app_code, account_id, entry_date, kind, amount, description, created_by)
     SELECT t.entry_id, $1, t.account_id, $2::date, $3, ${sign}t.amount, t.description, $4
       FROM unnest($5::bigint[], $6::bigint[], $7::numeric[], $8::text[]) AS t(entry_id, account_id, amount, description)
      ORDER BY t.entry_id`,
    [e.appCode, e.date, e.kind, e.by, ids, e.rows.map((r) => r.accountId), e.rows.map((r) => r.amount), e.rows.map((r) => r.description)],
  );
  return ids;
}
