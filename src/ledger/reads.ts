// The ledger's reads: an account statement with a running balance, the open bills with
// what is still due (line by line), and the ageing of what is owed across an app.
import { decodeBillRows } from '../billLines/storedLines.ts';
import type { Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { Dec } from '../rating/money.ts';
import { debitLines } from '../settlement/settleAccounts.ts';
import { livePaid } from '../settlement/store.ts';
import { appMoney, findAccount, money, type AccountRef } from './common.ts';
import { formatDate, readDate } from '../calendar/calendar.ts';

export type StatementQuery = AccountRef & { fromDate?: string | undefined; toDate?: string | undefined };

/** Entries of an account between two dates (inclusive), each with the balance after it. */
export async function getStatement(db: Queryable, caller: Caller, q: StatementQuery) {
  const issues: ErrorDetail[] = [];
  const { minorUnits, today } = await appMoney(db, caller.appCode);
  const from = q.fromDate === undefined ? null : readDate(q.fromDate, 'data.fromDate', issues);
  const to = q.toDate === undefined ? today : readDate(q.toDate, 'data.toDate', issues);
  if (issues.length === 0 && from !== null && to !== null && from > to) issues.push({ path: 'data.toDate', message: 'must not be before fromDate' });
  if (issues.length > 0 || to === null) throw validationFailed(issues);
  const account = await findAccount(db, caller.appCode, q);
  const opening = await db.query<{ total: string }>(
    'SELECT coalesce(sum(amount), 0) AS total FROM ledger_entry WHERE account_id = $1 AND ($2::date IS NOT NULL AND entry_date < $2::date)',
    [account.account_id, from],
  );
  const openingBalance = new Dec(opening.rows[0]!.total);
  const r = await db.query<{
    entry_id: string;
    entry_date: string;
    kind: 'bill' | 'bill_reversal' | 'payment' | 'payment_reversal' | 'adjustment' | 'opening_balance' | 'deposit' | 'deposit_release' | 'deposit_refund';
    amount: string;
    description: string;
    bill_id: string | null;
    bill_number: string | null;
    payment_id: string | null;
    reference: string | null;
    reverses_entry_id: string | null;
    credit_note_id: string | null;
    credit_note_number: string | null;
    running: string;
    created_by: string;
  }>(
    `SELECT e.entry_id, e.entry_date, e.kind, e.amount, e.description, e.bill_id, b.bill_number, e.payment_id, p.reference,
            e.reverses_entry_id, coalesce(cn.credit_note_id, lcn.credit_note_id) AS credit_note_id,
            coalesce(cn.credit_note_number, lcn.credit_note_number) AS credit_note_number, e.created_by,
            sum(e.amount) OVER (ORDER BY e.entry_date, e.entry_id) AS running
       FROM ledger_entry e
       LEFT JOIN bill b ON b.bill_id = e.bill_id
       LEFT JOIN payment p ON p.payment_id = e.payment_id
       -- The credit note of the entry: its own (a bill_reversal), or the one that cancelled
       -- the bill whose late charge it reverses (migration 093). Both by unique keys.
       LEFT JOIN credit_note cn ON cn.entry_id = e.entry_id
       LEFT JOIN late_charge_reversal lr ON lr.entry_id = e.entry_id
       LEFT JOIN late_charge lc ON lc.late_charge_id = lr.late_charge_id
       LEFT JOIN credit_note lcn ON lcn.bill_id = lc.bill_id
      WHERE e.account_id = $1 AND ($2::date IS NULL OR e.entry_date >= $2::date) AND e.entry_date <= $3::date
      ORDER BY e.entry_date, e.entry_id`,
    [account.account_id, from, to],
  );
  let debits = new Dec(0);
  let credits = new Dec(0);
  const entries = r.rows.map((e) => {
    const amount = new Dec(e.amount);
    if (amount.gt(0)) debits = debits.plus(amount);
    else credits = credits.minus(amount);
    return {
      entryID: Number(e.entry_id),
      date: formatDate(e.entry_date),
      kind: e.kind,
      description: e.description,
      amount: money(amount, minorUnits),
      balance: money(openingBalance.plus(e.running), minorUnits),
      billID: e.bill_id === null ? null : Number(e.bill_id),
      billNumber: e.bill_number === null ? null : Number(e.bill_number),
      paymentID: e.payment_id === null ? null : Number(e.payment_id),
      reference: e.reference,
      reversesEntryID: e.reverses_entry_id === null ? null : Number(e.reverses_entry_id),
      creditNoteID: e.credit_note_id === null ? null : Number(e.credit_note_id),
      creditNoteNumber: e.credit_note_number === null ? null : Number(e.credit_note_number),
      createdBy: e.created_by,
    };
  });
  const closing = openingBalance.plus(debits).minus(credits);
  const held = (await heldDeposits(db, [account.account_id])).get(account.account_id) ?? '0';
  return {
    statement: {
      accountID: Number(account.account_id),
      accountNumber: account.account_number,
      name: account.name,
      fromDate: from === null ? null : formatDate(from),
      toDate: formatDate(to),
      openingBalance: money(openingBalance, minorUnits),
      debits: money(debits, minorUnits),
      credits: money(credits, minorUnits),
      closingBalance: money(closing, minorUnits),
      balance: money(account.balance, minorUnits),
      heldDeposit: money(held, minorUnits),
      entries,
    },
  };
}

export type OpenBillsQuery = AccountRef & { billID?: number | undefined; billIDs?: number[] | undefined; limit?: number | undefined; offset?: number | undefined };

type OpenBillRow = {
  entry_id: string;
  account_id: string;
  account_number: string;
  open_amount: string;
  amount: string;
  bill_id: string;
  bill_number: string;
  bill_date: string;
  due_date: string;
  total: string;
  lines: { componentCode?: string; name?: string; amount?: string | number }[];
};

/**
 * Posted bills not yet paid in full, oldest due first, each with what is still due in
 * total and on each line. With an account: also its other open items (debit notes,
 * credit waiting for a bill), so that the bills' due plus those equals its balance.
 */
export async function getOpenBills(db: Queryable, caller: Caller, q: OpenBillsQuery) {
  const { minorUnits, today } = await appMoney(db, caller.appCode);
  const account = q.accountNumber !== undefined || q.accountID !== undefined ? await findAccount(db, caller.appCode, q) : undefined;
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const params: unknown[] = [caller.appCode];
  let where = 'o.app_code = $1 AND o.open_amount > 0';
  if (account) {
    params.push(account.account_id);
    where += ` AND o.account_id = $${params.length}`;
  }
  // One bill: whether it is open and what is due on it (the console's bill page; an
  // account of more open bills than a page said nothing of its bill past the page).
  if (q.billID !== undefined) {
    params.push(q.billID);
    where += ` AND b.bill_id = $${params.length}`;
  }
  // A page of a bills list: which of its bills are still open (the console's bills table).
  if (q.billIDs !== undefined) {
    params.push(q.billIDs);
    where += ` AND b.bill_id = ANY($${params.length}::bigint[])`;
  }
  const from = `FROM open_item o JOIN ledger_entry e ON e.entry_id = o.entry_id AND e.kind = 'bill' JOIN bill b ON b.bill_id = e.bill_id WHERE ${where}`;
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n ${from}`, params);
  const r = await db.query<OpenBillRow>(
    `SELECT o.entry_id, o.account_id, ac.account_number, o.open_amount, e.amount, b.bill_id, b.bill_number, b.bill_date, b.due_date, b.total, b.lines
       FROM open_item o
       JOIN ledger_entry e ON e.entry_id = o.entry_id AND e.kind = 'bill'
       JOIN bill b ON b.bill_id = e.bill_id
       JOIN account ac ON ac.account_id = o.account_id
      WHERE ${where}
      ORDER BY b.due_date, b.bill_date, o.entry_id
      LIMIT ${Number(limit)} OFFSET ${Number(offset)}`,
    params,
  );
  await decodeBillRows(db, r.rows);
  const paidRows = await livePaid(
    db,
    r.rows.filter((b) => !new Dec(b.open_amount).eq(b.amount)).map((b) => b.entry_id),
  );
  const paid = new Map<string, Map<number | null, Dec>>();
  for (const p of paidRows) {
    const m = paid.get(p.debit_entry_id) ?? new Map<number | null, Dec>();
    m.set(p.line_no, new Dec(p.paid));
    paid.set(p.debit_entry_id, m);
  }
  const bills = r.rows.map((b) => {
    const lineAmounts = (Array.isArray(b.lines) ? b.lines : []).map((l, i) => ({ lineNo: i + 1, amount: new Dec(typeof l.amount === 'string' || typeof l.amount === 'number' ? String(l.amount) : '0') }));
    const open = new Dec(b.open_amount);
    const split = debitLines(open, new Dec(b.amount), lineAmounts, paid.get(b.entry_id));
    const byLine = split[0]?.lineNo === null ? null : new Map(split.map((l) => [l.lineNo, l.open]));
    return {
      billID: Number(b.bill_id),
      billNumber: Number(b.bill_number),
      accountID: Number(b.account_id),
      accountNumber: b.account_number,
      billDate: formatDate(b.bill_date),
      dueDate: formatDate(b.due_date),
      daysOverdue: Math.max(0, daysBetween(b.due_date, today)),
      total: money(b.amount, minorUnits),
      paid: money(new Dec(b.amount).minus(open), minorUnits),
      due: money(open, minorUnits),
      settledBy: byLine ? ('line' as const) : ('bill' as const),
      lines: lineAmounts.map((l, i) => ({
        lineNo: l.lineNo,
        componentCode: b.lines[i]?.componentCode ?? null,
        name: b.lines[i]?.name ?? null,
        amount: money(l.amount, minorUnits),
        due: byLine ? money(byLine.get(l.lineNo) ?? '0', minorUnits) : null,
      })),
    };
  });
  let otherItems: { entryID: number; kind: string; date: string; description: string; open: string }[] = [];
  if (account) {
    const other = await db.query<{ entry_id: string; kind: string; entry_date: string; description: string; open_amount: string }>(
      `SELECT o.entry_id, e.kind, e.entry_date, e.description, o.open_amount
         FROM open_item o JOIN ledger_entry e ON e.entry_id = o.entry_id
        WHERE o.app_code = $1 AND o.account_id = $2 AND NOT (e.kind = 'bill' AND o.open_amount > 0)
        ORDER BY e.entry_date, o.entry_id`,
      [caller.appCode, account.account_id],
    );
    otherItems = other.rows.map((o) => ({
      entryID: Number(o.entry_id),
      kind: o.kind,
      date: formatDate(o.entry_date),
      description: o.description,
      open: money(o.open_amount, minorUnits),
    }));
  }
  return { bills, otherItems, paging: { limit, offset, total: Number(count.rows[0]?.n ?? 0) } };
}

/** Whole days from a to b (yyyy-mm-dd), b - a. */
function daysBetween(a: string, b: string): number {
  return Math.round((Date.UTC(+b.slice(0, 4), +b.slice(5, 7) - 1, +b.slice(8, 10)) - Date.UTC(+a.slice(0, 4), +a.slice(5, 7) - 1, +a.slice(8, 10))) / 86_400_000);
}

export type AgeingQuery = AccountRef & { asOf?: string | undefined; limit?: number | undefined; offset?: number | undefined };

const BUCKETS = `
  coalesce(sum(open_amount) FILTER (WHERE open_amount > 0 AND late <= 0), 0) AS current,
  coalesce(sum(open_amount) FILTER (WHERE open_amount > 0 AND late BETWEEN 1 AND 30), 0) AS days30,
  coalesce(sum(open_amount) FILTER (WHERE open_amount > 0 AND late BETWEEN 31 AND 60), 0) AS days60,
  coalesce(sum(open_amount) FILTER (WHERE open_amount > 0 AND late BETWEEN 61 AND 90), 0) AS days90,
  coalesce(sum(open_amount) FILTER (WHERE open_amount > 0 AND late > 90), 0) AS over90,
  coalesce(-sum(open_amount) FILTER (WHERE open_amount < 0), 0) AS credit,
  coalesce(sum(open_amount), 0) AS balance`;

type BucketRow = { current: string; days30: string; days60: string; days90: string; over90: string; credit: string; balance: string };

/**
 * What is owed across the app by how late it is on `asOf` (today by default): not yet
 * due (current), 1-30, 31-60, 61-90 and over 90 days past the due date, with the credit
 * waiting for bills; balance = the buckets less the credit. Totals, then the accounts
 * that owe most first.
 */
export async function getAgeing(db: Queryable, caller: Caller, q: AgeingQuery) {
  const issues: ErrorDetail[] = [];
  const { minorUnits, today } = await appMoney(db, caller.appCode);
  const asOf = q.asOf === undefined ? today : readDate(q.asOf, 'data.asOf', issues);
  if (issues.length > 0 || asOf === null) throw validationFailed(issues);
  const account = q.accountNumber !== undefined || q.accountID !== undefined ? await findAccount(db, caller.appCode, q) : undefined;
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const params: unknown[] = [caller.appCode, asOf];
  if (account) params.push(account.account_id);
  const items = `
    SELECT o.account_id, o.open_amount, ($2::date - coalesce(b.due_date, e.entry_date)) AS late
      FROM open_item o
      JOIN ledger_entry e ON e.entry_id = o.entry_id
      LEFT JOIN bill b ON b.bill_id = e.bill_id AND e.kind = 'bill'
     WHERE o.app_code = $1${account ? ' AND o.account_id = $3' : ''}`;
  const totals = await db.query<BucketRow & { accounts: string }>(`SELECT ${BUCKETS}, count(DISTINCT account_id) AS accounts FROM (${items}) i`, params);
  const rows = await db.query<BucketRow & { account_id: string; account_number: string; name: string }>(
    `SELECT i.account_id, ac.account_number, ac.name, ${BUCKETS}
       FROM (${items}) i JOIN account ac ON ac.account_id = i.account_id
      GROUP BY i.account_id, ac.account_number, ac.name
      ORDER BY sum(open_amount) DESC, i.account_id
      LIMIT ${Number(limit)} OFFSET ${Number(offset)}`,
    params,
  );
  const buckets = (b: BucketRow) => ({
    current: money(b.current, minorUnits),
    days30: money(b.days30, minorUnits),
    days60: money(b.days60, minorUnits),
    days90: money(b.days90, minorUnits),
    over90: money(b.over90, minorUnits),
    credit: money(b.credit, minorUnits),
    balance: money(b.balance, minorUnits),
  });
  const t = totals.rows[0]!;
  return {
    ageing: { asOf: formatDate(asOf), accountCount: Number(t.accounts), ...buckets(t) },
    accounts: rows.rows.map((r) => ({ accountID: Number(r.account_id), accountNumber: r.account_number, name: r.name, ...buckets(r) })),
    paging: { limit, offset, total: Number(t.accounts) },
  };
}

/**
 * What each account holds in deposits now: the paid part of every deposit not yet
 * released (its amount less its charge's open item; deposits/ writes them). Apart from the balance: the
 * balance already nets the deposit charge against what paid it.
 */
async function heldDeposits(db: Queryable, accountIds: readonly string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const r = await db.query<{ account_id: string; held: string }>(
    `SELECT d.account_id, sum(d.amount - greatest(coalesce(o.open_amount, 0), 0)) AS held
       FROM deposit d LEFT JOIN open_item o ON o.entry_id = d.charge_entry_id
      WHERE d.account_id = ANY($1::bigint[]) AND d.released_on IS NULL
      GROUP BY d.account_id`,
    [accountIds],
  );
  return new Map(r.rows.map((x) => [x.account_id, x.held]));
}
