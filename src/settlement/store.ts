// SQL of settlement: open items, allocations, and what settlement reads of bills.
// Everything runs in the caller's transaction and works on a set of accounts at once.
import type { Queryable } from '../db/pool.ts';

export type OpenItemRow = {
  entry_id: string;
  account_id: string;
  open_amount: string;
  amount: string;
  kind: string;
  entry_date: string;
  bill_id: string | null;
  reverses_entry_id: string | null;
  due_date: string | null;
  bill_date: string | null;
  method: string | null;
  tied_bill_id: string | null;
};

/** The accounts among `accountIds` that have credit waiting to be applied (a small partial index). */
export async function accountsWithCredit(db: Queryable, appCode: number, accountIds: readonly string[]): Promise<string[]> {
  const r = await db.query<{ account_id: string }>(
    `SELECT DISTINCT o.account_id
       FROM open_item o JOIN unnest($2::bigint[]) AS ids(account_id) ON ids.account_id = o.account_id
      WHERE o.app_code = $1 AND o.open_amount < 0
      ORDER BY o.account_id`,
    [appCode, accountIds],
  );
  return r.rows.map((x) => x.account_id);
}

/** Locks the accounts, in id order so that two settlements never deadlock. */
export async function lockAccounts(db: Queryable, appCode: number, accountIds: readonly string[]): Promise<void> {
  await db.query('SELECT account_id FROM account WHERE app_code = $1 AND account_id = ANY($2::bigint[]) ORDER BY account_id FOR NO KEY UPDATE', [
    appCode,
    accountIds,
  ]);
}

/**
 * Every open item of the accounts, with what orders it: a bill's due date and date
 * and the settlement method of its template (found through its term: a Post Account bill
 * has no subscription, and was settled by Chronology whatever its template said, an
 * attacker's finding); a credit note's bill.
 */
export async function loadOpenItems(db: Queryable, appCode: number, accountIds: readonly string[]): Promise<OpenItemRow[]> {
  const r = await db.query<OpenItemRow>(
    `SELECT o.entry_id, o.account_id, o.open_amount, e.amount, e.kind, e.entry_date, e.bill_id, e.reverses_entry_id,
            b.due_date, b.bill_date, v.definition->>'paymentSettlementMethod' AS method, adj.bill_id AS tied_bill_id
       FROM open_item o
       JOIN ledger_entry e ON e.entry_id = o.entry_id
       LEFT JOIN bill b ON b.bill_id = e.bill_id AND e.kind = 'bill'
       LEFT JOIN term t ON t.term_id = b.term_id
       LEFT JOIN service sv ON sv.service_id = t.service_id
       LEFT JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
       LEFT JOIN adjustment adj ON adj.entry_id = e.entry_id
      WHERE o.app_code = $1 AND o.account_id = ANY($2::bigint[]) AND o.open_amount <> 0`,
    [appCode, accountIds],
  );
  return r.rows;
}

/** The app's currency minor units (2: cents), which Proportional rounds shares to. */
export async function minorUnitsOf(db: Queryable, appCode: number): Promise<number> {
  const r = await db.query<{ minor_units: number }>('SELECT minor_units FROM app WHERE app_code = $1', [appCode]);
  return r.rows[0]?.minor_units ?? 2;
}

export type BillLineRow = { bill_id: string; line_no: number; amount: string; category: string | null };

/**
 * The lines of the bills, in each bill's order: a line's number is its place in bill.lines, from 1
 * (bill_line_heads, migration 075, reads either stored form). The one place settlement reads bill lines.
 */
export async function loadBillLines(db: Queryable, billIds: readonly string[]): Promise<BillLineRow[]> {
  if (billIds.length === 0) return [];
  const r = await db.query<BillLineRow>(
    `SELECT b.bill_id, l.line_no, l.amount, l.category
       FROM bill b CROSS JOIN LATERAL bill_line_heads(b.lines) AS l
      WHERE b.bill_id = ANY($1::bigint[])
      ORDER BY b.bill_id, l.line_no`,
    [billIds],
  );
  return r.rows;
}

export type LivePaidRow = { debit_entry_id: string; line_no: number | null; paid: string };

/** What live allocations have paid on each line of these debits (line_no null: the item as a whole). */
export async function livePaid(db: Queryable, debitEntryIds: readonly string[]): Promise<LivePaidRow[]> {
  if (debitEntryIds.length === 0) return [];
  const r = await db.query<LivePaidRow>(
    `SELECT debit_entry_id, line_no, sum(amount) AS paid FROM allocation
      WHERE debit_entry_id = ANY($1::bigint[]) AND released_at IS NULL
      GROUP BY debit_entry_id, line_no`,
    [debitEntryIds],
  );
  return r.rows;
}

export type NewAllocation = {
  accountId: string;
  creditEntryId: string;
  debitEntryId: string;
  billId: string | null;
  lineNo: number | null;
  amount: string;
  /** The rule that placed it: the method, or 'Bill' / 'Reversal'. */
  method: string;
  /** The account's method in force when it was made (allocation.settlement_method). */
  settlementMethod: string;
};

/** Writes allocations and lowers the open items they settle, in two statements. */
export async function writeAllocations(db: Queryable, appCode: number, allocations: readonly NewAllocation[], by: string): Promise<void> {
  if (allocations.length === 0) return;
  const col = <K extends keyof NewAllocation>(k: K) => allocations.map((a) => a[k]);
  await db.query(
    `INSERT INTO allocation (app_code, account_id, credit_entry_id, debit_entry_id, payment_id, bill_id, line_no, amount, method, settlement_method, allocated_by)
     SELECT $1, a.account_id, a.credit_entry_id, a.debit_entry_id,
            CASE WHEN ce.kind = 'payment' THEN ce.payment_id END, a.bill_id, a.line_no, a.amount, a.method, a.settlement_method, $2
       FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::integer[], $8::numeric[], $9::text[], $10::text[])
            WITH ORDINALITY AS a(account_id, credit_entry_id, debit_entry_id, bill_id, line_no, amount, method, settlement_method, n)
       JOIN ledger_entry ce ON ce.entry_id = a.credit_entry_id
      ORDER BY a.n`,
    [appCode, by, col('accountId'), col('creditEntryId'), col('debitEntryId'), col('billId'), col('lineNo'), col('amount'), col('method'), col('settlementMethod')],
  );
  // A debit's open amount falls by what was allocated to it; a credit's (negative) rises.
  const entryIds = [...allocations.map((a) => a.debitEntryId), ...allocations.map((a) => a.creditEntryId)];
  const deltas = [...allocations.map((a) => `-${a.amount}`), ...allocations.map((a) => a.amount)];
  await adjustOpenItems(db, appCode, entryIds, deltas);
}

/**
 * Adds deltas to open items (making the row when the entry had been settled in full)
 * and deletes the rows that reach zero.
 */
export async function adjustOpenItems(db: Queryable, appCode: number, entryIds: readonly string[], deltas: readonly string[]): Promise<void> {
  if (entryIds.length === 0) return;
  await db.query(
    `INSERT INTO open_item (entry_id, app_code, account_id, open_amount)
     SELECT d.entry_id, $1, e.account_id, d.delta
       FROM (SELECT entry_id, sum(delta) AS delta FROM unnest($2::bigint[], $3::numeric[]) AS t(entry_id, delta) GROUP BY entry_id) d
       JOIN ledger_entry e ON e.entry_id = d.entry_id
     ON CONFLICT (entry_id) DO UPDATE SET open_amount = open_item.open_amount + excluded.open_amount`,
    [appCode, entryIds, deltas],
  );
  await db.query('DELETE FROM open_item WHERE entry_id = ANY($1::bigint[]) AND open_amount = 0', [entryIds]);
}

/**
 * Releases every live allocation that touches these entries (either side), so that
 * what they paid is open again and what paid them is credit again.
 */
export async function releaseAllocations(db: Queryable, appCode: number, entryIds: readonly string[], by: string, reason: string[]): Promise<number> {
  if (entryIds.length === 0) return 0;
  const r = await db.query<{ credit_entry_id: string; debit_entry_id: string; amount: string }>(
    `UPDATE allocation a SET released_at = now(), released_by = $3, release_reason = t.reason
       FROM unnest($2::bigint[], $4::text[]) AS t(entry_id, reason)
      WHERE a.app_code = $1 AND a.released_at IS NULL AND (a.credit_entry_id = t.entry_id OR a.debit_entry_id = t.entry_id)
      RETURNING a.credit_entry_id, a.debit_entry_id, a.amount`,
    [appCode, entryIds, by, reason],
  );
  await adjustOpenItems(
    db,
    appCode,
    [...r.rows.map((x) => x.debit_entry_id), ...r.rows.map((x) => x.credit_entry_id)],
    [...r.rows.map((x) => x.amount), ...r.rows.map((x) => `-${x.amount}`)],
  );
  return r.rowCount ?? 0;
}
