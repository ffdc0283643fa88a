// Security deposits on the database: charged when subscriptions are connected (a new
// subscription, an import, a move onto a template asking for more), released with the
// posting of a terminated subscription's final bill (or at its termination when that bill
// is out already, or by hand: release-deposits). Every write runs in the caller's transaction, through the ledger's one
// writer (src/ledger/store.ts) and settlement's allocation writer; the arithmetic is
// ./core.ts.
import type { Queryable } from '../db/pool.ts';
import { Dec, type RoundingMode } from '../rating/money.ts';
import { addDepositEntries } from '../ledger/store.ts';
import { settleAccounts, debitLines } from '../settlement/settleAccounts.ts';
import { livePaid, loadBillLines, lockAccounts, writeAllocations, type NewAllocation } from '../settlement/store.ts';
import { compareIds, type Allocation, type OpenDebit } from '../settlement/core.ts';
import type { StoredGroup } from '../bills/accountBills.ts';
import { todaySql } from '../calendar/calendar.ts';
import { DEPOSIT_METHOD, depositAmount, planRelease, topUp, type DepositOutcome } from './core.ts';

type AppSettings = { minorUnits: number; rounding: RoundingMode; today: string };

async function appSettings(db: Queryable, appCode: number): Promise<AppSettings> {
  const r = await db.query<{ minor_units: number; rounding_mode: RoundingMode; today: string }>(
    `SELECT minor_units, rounding_mode, ${todaySql('time_zone')} AS today FROM app WHERE app_code = $1`,
    [appCode],
  );
  const a = r.rows[0]!;
  return { minorUnits: a.minor_units, rounding: a.rounding_mode, today: a.today };
}

/** versionId: the template version charged under (its amount's), which places the deposit in the journal. */
type Charge = { subscriptionId: string; accountId: string; versionId: string; amount: Dec; description: string };

/** Writes the charges (entries and deposit rows), then settles the accounts so waiting credit pays them. */
async function writeCharges(db: Queryable, appCode: number, charges: Charge[], today: string, by: string): Promise<number> {
  if (charges.length === 0) return 0;
  // The entries update the accounts' balances: lock them first, in id order (as settlement
  // does), so an import charging many accounts and a posting or a payment never deadlock.
  await lockAccounts(db, appCode, [...new Set(charges.map((c) => c.accountId))]);
  const entryIds = await addDepositEntries(db, {
    appCode,
    kind: 'deposit',
    date: today,
    by,
    rows: charges.map((c) => ({ accountId: c.accountId, amount: c.amount.toFixed(), description: c.description })),
  });
  await db.query(
    `INSERT INTO deposit (app_code, account_id, subscription_id, charged_subscription_id, service_version_id, amount, charge_entry_id, created_by)
     SELECT $1, t.account_id, t.subscription_id, t.subscription_id, t.version_id, t.amount, t.entry_id, $2
       FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::numeric[], $7::bigint[]) AS t(subscription_id, account_id, version_id, amount, entry_id)`,
    [
      appCode,
      by,
      charges.map((c) => c.subscriptionId),
      charges.map((c) => c.accountId),
      charges.map((c) => c.versionId),
      charges.map((c) => c.amount.toFixed()),
      entryIds,
    ],
  );
  await settleAccounts(db, appCode, charges.map((c) => c.accountId), by);
  return charges.length;
}

/** A subscription just written, as its writer knows it: what its deposit is charged from. */
export type NewSubscription = { subscriptionId: string; accountId: string; serviceId: string };

/**
 * Charges the security deposit of each new subscription's template (its current
 * version), dated today: one 'deposit' entry and one deposit row per subscription whose
 * template asks for one. Answers how many were charged. Only the templates are read (an
 * import's chunk of 5,000 subscriptions names one or a few): joining the subscriptions
 * just written back to their templates was a tenth of a subscriptions import's database
 * time, for a template that, as most, asks for no deposit (issue 15).
 */
export async function chargeDeposits(db: Queryable, appCode: number, subscriptions: readonly NewSubscription[], by: string): Promise<number> {
  if (subscriptions.length === 0) return 0;
  const r = await db.query<{ service_id: string; service_code: string; service_version_id: string; deposit: string }>(
    `SELECT sv.service_id, sv.service_code, v.service_version_id, v.definition->>'securityDeposit' AS deposit
       FROM service sv
       JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
      WHERE sv.app_code = $1 AND sv.service_id = ANY($2::bigint[]) AND v.definition->>'securityDeposit' IS NOT NULL`,
    [appCode, [...new Set(subscriptions.map((s) => s.serviceId))]],
  );
  if (r.rows.length === 0) return 0;
  const templates = new Map(r.rows.map((t) => [t.service_id, t]));
  const app = await appSettings(db, appCode);
  const charges: Charge[] = [];
  // In the order of the subscriptions' ids, as the accounts are locked and the entries numbered.
  for (const s of [...subscriptions].sort((a, b) => compareIds(a.subscriptionId, b.subscriptionId))) {
    const t = templates.get(s.serviceId);
    if (!t) continue;
    const amount = depositAmount(t.deposit, app.minorUnits, app.rounding);
    if (amount) charges.push({ subscriptionId: s.subscriptionId, accountId: s.accountId, versionId: t.service_version_id, amount, description: `Security deposit, subscription ${s.subscriptionId} (${t.service_code})` });
  }
  return writeCharges(db, appCode, charges, app.today, by);
}

/**
 * A move: the deposits the old subscription holds go with it to the new one (same
 * connection, same customer), and when the new template asks for more than they add up
 * to, the difference is charged as a top-up. A smaller deposit refunds nothing until
 * the subscription is terminated.
 */
export async function carryDeposits(db: Queryable, appCode: number, fromSubscriptionId: string, toSubscriptionId: string, by: string): Promise<void> {
  const moved = await db.query<{ amount: string }>(
    'UPDATE deposit SET subscription_id = $3 WHERE app_code = $1 AND subscription_id = $2 AND released_on IS NULL RETURNING amount',
    [appCode, fromSubscriptionId, toSubscriptionId],
  );
  const carried = moved.rows.reduce((s, x) => s.plus(x.amount), new Dec(0));
  const r = await db.query<{ account_id: string; service_code: string; service_version_id: string; deposit: string | null }>(
    `SELECT s.account_id, sv.service_code, v.service_version_id, v.definition->>'securityDeposit' AS deposit
       FROM subscription s
       JOIN service sv ON sv.service_id = s.service_id
       JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
      WHERE s.subscription_id = $1`,
    [toSubscriptionId],
  );
  const row = r.rows[0];
  if (!row || row.deposit === null) return;
  const app = await appSettings(db, appCode);
  const more = topUp(carried, depositAmount(row.deposit, app.minorUnits, app.rounding));
  if (more.gt(0)) {
    await writeCharges(
      db,
      appCode,
      [{ subscriptionId: toSubscriptionId, accountId: row.account_id, versionId: row.service_version_id, amount: more, description: `Security deposit top-up, subscription ${toSubscriptionId} (${row.service_code})` }],
      app.today,
      by,
    );
  }
}


/**
 * Whether a terminated subscription's final bill is out, as SQL on the subscription `s`
 * (its app, template and batch) and its end date `day`: the term of its template and batch
 * that holds the day is posted; or no term holds it (none was made, or it was cancelled)
 * and a later one is posted, so no bill run will bill that day any more. The one rule the
 * termination (release at once) and each posting (release those waiting) both ask.
 * Terms of a template and batch never overlap (term_no_overlap), so at most one holds it.
 */
const finalBillOut = (day: string) => `coalesce(
     (SELECT t.status = 'Posted' FROM term t
       WHERE t.app_code = s.app_code AND t.service_id = s.service_id AND t.batch_id = s.batch_id AND t.status <> 'Cancelled'
         AND daterange(t.start_date, t.end_date, '[]') @> ${day}),
     EXISTS (SELECT 1 FROM term t
              WHERE t.app_code = s.app_code AND t.service_id = s.service_id AND t.batch_id = s.batch_id AND t.status = 'Posted'
                AND t.start_date > ${day}))`;

/**
 * Before a termination locks its subscription: when it holds a deposit, the terms of its
 * template and batch that may still post its final bill (not cancelled, ending on or after
 * the end date) are locked FOR SHARE, in id order. A posting of one of them (which locks
 * its term FOR UPDATE) then runs wholly before or wholly after the termination, so the
 * termination never decides "wait for the posting" while that posting, not seeing the
 * termination yet, releases nothing: the deposit would wait for a posting already done.
 * Terms before the subscription: capture-readings locks its term, then the subscriptions.
 */
export async function lockFinalTerms(db: Queryable, appCode: number, subscriptionId: number | string, endDate: string): Promise<void> {
  await db.query(
    `SELECT t.term_id FROM subscription s
       JOIN term t ON t.app_code = s.app_code AND t.service_id = s.service_id AND t.batch_id = s.batch_id
      WHERE s.app_code = $1 AND s.subscription_id = $2 AND t.status <> 'Cancelled' AND t.end_date >= $3::date
        AND EXISTS (SELECT 1 FROM deposit d WHERE d.subscription_id = s.subscription_id AND d.released_on IS NULL)
      ORDER BY t.term_id
      FOR SHARE OF t`,
    [appCode, subscriptionId, endDate],
  );
}

/**
 * What terminating a subscription does with the deposits it holds (in the termination's
 * transaction, after lockFinalTerms): released at once when its final bill is out already
 * (finalBillOut: terminated after the run that billed its end date); otherwise kept held,
 * marked with the end date, for the posting of its final bill to release them
 * (releaseDepositsOfTerm). Answers whether they were released now, kept, or there were none.
 */
export async function depositsOnTermination(db: Queryable, appCode: number, subscriptionId: string, endDate: string, by: string): Promise<'released' | 'held' | 'none'> {
  const r = await db.query<{ out: boolean }>(
    `SELECT ${finalBillOut('$3::date')} AS out FROM subscription s
      WHERE s.app_code = $1 AND s.subscription_id = $2
        AND EXISTS (SELECT 1 FROM deposit d WHERE d.subscription_id = s.subscription_id AND d.released_on IS NULL)`,
    [appCode, subscriptionId, endDate],
  );
  const row = r.rows[0];
  if (row === undefined) return 'none';
  if (row.out) {
    await releaseDeposits(db, appCode, [subscriptionId], by);
    return 'released';
  }
  await db.query('UPDATE deposit SET ended_on = $3::date WHERE app_code = $1 AND subscription_id = $2 AND released_on IS NULL', [appCode, subscriptionId, endDate]);
  return 'held';
}

/**
 * The posting of a term releases, in its transaction, the deposits waiting for it: those
 * of the subscriptions of its template and batch terminated with an end date in its period
 * (this is their final bill), and those ended before it whose final bill will never come
 * (no term holds their end date, or it was cancelled). Call it once the term is Posted
 * and its bills' entries are written and settled. A posting happens once (the term's move
 * from Processed), and a released deposit is never released again, so a retried posting
 * releases nothing twice.
 */
export async function releaseDepositsOfTerm(
  db: Queryable,
  term: { app_code: number; service_id: string; batch_id: string; end_date: string },
  by: string,
): Promise<DepositOutcome[]> {
  const r = await db.query<{ subscription_id: string }>(
    `SELECT DISTINCT d.subscription_id
       FROM deposit d JOIN subscription s ON s.subscription_id = d.subscription_id
      WHERE d.app_code = $1 AND d.released_on IS NULL AND d.ended_on <= $4::date
        AND s.service_id = $2 AND s.batch_id = $3 AND ${finalBillOut('d.ended_on')}
      ORDER BY d.subscription_id`,
    [term.app_code, term.service_id, term.batch_id, term.end_date],
  );
  return releaseDeposits(
    db,
    term.app_code,
    r.rows.map((x) => x.subscription_id),
    by,
  );
}

type BillOfSubscription = {
  /** The subscription whose deposits may pay it (a subscription it was moved from may have billed it). */
  root: string;
  /** The subscription billed: the root or one it was moved from. */
  subscription_id: string;
  entry_id: string;
  open_amount: string;
  amount: string;
  bill_id: string;
  due_date: string;
  bill_date: string;
  /** An account bill's groups (Post Account); null for a subscription's own bill. */
  groups: StoredGroup[] | null;
};

/**
 * The open bills each of the subscriptions may pay with its deposits: its own and those of
 * the subscriptions it was moved from, and the account bills (Post Account) carrying a group
 * of one of them, in one statement.
 */
async function openBillsOf(db: Queryable, subscriptionIds: readonly string[]): Promise<BillOfSubscription[]> {
  const r = await db.query<BillOfSubscription>(
    `WITH RECURSIVE chain AS (
       SELECT subscription_id AS root, subscription_id, moved_from_subscription_id, account_id FROM subscription WHERE subscription_id = ANY($1::bigint[])
       UNION
       SELECT c.root, s.subscription_id, s.moved_from_subscription_id, s.account_id FROM subscription s JOIN chain c ON s.subscription_id = c.moved_from_subscription_id),
     bills AS (
       SELECT c.root, c.subscription_id, b.bill_id, b.due_date, b.bill_date, NULL::json AS groups
         FROM chain c JOIN bill b ON b.subscription_id = c.subscription_id
       UNION ALL
       SELECT c.root, c.subscription_id, b.bill_id, b.due_date, b.bill_date, b.groups
         FROM chain c JOIN bill b ON b.account_id = c.account_id AND b.subscription_id IS NULL
        WHERE EXISTS (SELECT 1 FROM json_array_elements(b.groups) g WHERE g->>'subscriptionId' = c.subscription_id::text))
     SELECT x.root, x.subscription_id, e.entry_id, o.open_amount, e.amount, x.bill_id, x.due_date, x.bill_date, x.groups
       FROM bills x
       JOIN ledger_entry e ON e.bill_id = x.bill_id AND e.kind = 'bill'
       JOIN open_item o ON o.entry_id = e.entry_id AND o.open_amount > 0
      ORDER BY x.root, e.entry_id`,
    [subscriptionIds],
  );
  return r.rows;
}

/**
 * What each bill still owes, line by line (debitLines: as settlement sees it), kept across
 * the subscriptions released together so that two deposits never pay the same line twice
 * (two subscriptions of one account on one account bill).
 */
async function openLinesOf(db: Queryable, rows: readonly BillOfSubscription[]): Promise<Map<string, { lineNo: number | null; open: Dec; category: string }[]>> {
  const entries = new Map(rows.map((x) => [x.entry_id, x]));
  const billIds = [...new Set(rows.map((x) => x.bill_id))];
  const lines = await loadBillLines(db, billIds);
  const linesByBill = new Map<string, { lineNo: number; amount: Dec; category?: string }[]>();
  for (const l of lines) linesByBill.set(l.bill_id, [...(linesByBill.get(l.bill_id) ?? []), { lineNo: l.line_no, amount: new Dec(l.amount), ...(l.category ? { category: l.category } : {}) }]);
  const paid = new Map<string, Map<number | null, Dec>>();
  for (const p of await livePaid(db, [...entries.keys()])) {
    const m = paid.get(p.debit_entry_id) ?? new Map<number | null, Dec>();
    m.set(p.line_no, new Dec(p.paid));
    paid.set(p.debit_entry_id, m);
  }
  const out = new Map<string, { lineNo: number | null; open: Dec; category: string }[]>();
  for (const [entryId, x] of entries) out.set(entryId, debitLines(new Dec(x.open_amount), new Dec(x.amount), linesByBill.get(x.bill_id), paid.get(entryId)));
  return out;
}

/**
 * The part of a bill a subscription's deposit may pay: all of its own bill; of an account
 * bill, the lines of its group (its own charges, not the account's other subscriptions'),
 * or, when that bill is settled as one item, up to the group's total.
 */
function payableLines(x: BillOfSubscription, open: { lineNo: number | null; open: Dec; category: string }[]): { lineNo: number | null; open: Dec; category: string }[] {
  if (x.groups === null) return open;
  let first = 1;
  for (const g of x.groups) {
    if (g.subscriptionId === x.subscription_id) {
      const last = first + g.lineCount - 1;
      return open.flatMap((l) =>
        l.lineNo === null ? [{ ...l, open: Dec.min(l.open, new Dec(g.total)) }] : l.lineNo >= first && l.lineNo <= last ? [l] : [],
      );
    }
    first += g.lineCount;
  }
  return [];
}

/**
 * Releases the deposits the subscriptions hold, dated today, all in the caller's
 * transaction and a fixed number of statements however many there are: for each deposit
 * a 'deposit_release' entry of its amount, spent at once on its unpaid part (cancelled),
 * its subscription's open bills (what was held: payableLines of openBillsOf) and, for what
 * is left, a 'deposit_refund' entry to be paid out. A deposit released already (by a
 * concurrent call that got its lock first) is left alone. Answers each deposit's outcome.
 */
export async function releaseDeposits(db: Queryable, appCode: number, subscriptionIds: readonly string[], by: string): Promise<DepositOutcome[]> {
  if (subscriptionIds.length === 0) return [];
  const accounts = await db.query<{ account_id: string }>(
    'SELECT DISTINCT account_id FROM deposit WHERE app_code = $1 AND subscription_id = ANY($2::bigint[]) AND released_on IS NULL',
    [appCode, subscriptionIds],
  );
  if (accounts.rows.length === 0) return [];
  // The accounts first, in id order (as settlement and the deposit charges lock them), then
  // the deposits: read after the lock, a payment settling a deposit right now is in or out,
  // never half, and a deposit another release got first is no longer found.
  await lockAccounts(db, appCode, accounts.rows.map((x) => x.account_id));
  const found = await db.query<{ deposit_id: string; account_id: string; subscription_id: string; amount: string; charge_entry_id: string; entry_date: string }>(
    `SELECT d.deposit_id, d.account_id, d.subscription_id, d.amount, d.charge_entry_id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date
       FROM deposit d JOIN ledger_entry e ON e.entry_id = d.charge_entry_id
      WHERE d.app_code = $1 AND d.subscription_id = ANY($2::bigint[]) AND d.released_on IS NULL
      ORDER BY d.subscription_id, d.deposit_id
      FOR UPDATE OF d`,
    [appCode, subscriptionIds],
  );
  if (found.rows.length === 0) return [];
  const open = await db.query<{ entry_id: string; open_amount: string }>('SELECT entry_id, open_amount FROM open_item WHERE entry_id = ANY($1::bigint[])', [
    found.rows.map((d) => d.charge_entry_id),
  ]);
  const unpaidOf = new Map(open.rows.map((o) => [o.entry_id, new Dec(o.open_amount)]));
  const app = await appSettings(db, appCode);
  const releaseIds = await addDepositEntries(db, {
    appCode,
    kind: 'deposit_release',
    date: app.today,
    by,
    rows: found.rows.map((d) => ({ accountId: d.account_id, amount: d.amount, description: `Security deposit released, subscription ${d.subscription_id}` })),
  });
  const deposits = found.rows.map((d, i) => ({
    depositId: d.deposit_id,
    accountId: d.account_id,
    subscriptionId: d.subscription_id,
    chargeEntryId: d.charge_entry_id,
    releaseEntryId: releaseIds[i]!,
    date: d.entry_date,
    amount: new Dec(d.amount),
    unpaid: unpaidOf.get(d.charge_entry_id) ?? new Dec(0),
  }));

  const bills = await openBillsOf(db, [...new Set(deposits.map((d) => d.subscriptionId))]);
  const openLines = await openLinesOf(db, bills);
  const outcomes: DepositOutcome[] = [];
  const billAllocations: Allocation[] = [];
  for (const subscriptionId of new Set(deposits.map((d) => d.subscriptionId))) {
    const debits: OpenDebit[] = bills
      .filter((x) => x.root === subscriptionId)
      .map((x) => ({ entryId: x.entry_id, billId: x.bill_id, dueDate: x.due_date, date: x.bill_date, lines: payableLines(x, openLines.get(x.entry_id)!).filter((l) => l.open.gt(0)) }))
      .filter((x) => x.lines.length > 0);
    const plan = planRelease(
      deposits.filter((d) => d.subscriptionId === subscriptionId),
      debits,
    );
    // What this subscription's deposits paid is no longer open for the next one's.
    for (const a of plan.allocations) {
      for (const l of openLines.get(a.debitEntryId)!) if (l.lineNo === a.lineNo) l.open = l.open.minus(a.amount);
    }
    outcomes.push(...plan.outcomes);
    billAllocations.push(...plan.allocations);
  }

  const byDeposit = new Map(deposits.map((d) => [d.depositId, d]));
  const refunding = outcomes.filter((o) => o.refunded.gt(0));
  const refundIds = await addDepositEntries(db, {
    appCode,
    kind: 'deposit_refund',
    date: app.today,
    by,
    rows: refunding.map((o) => {
      const d = byDeposit.get(o.depositId)!;
      return { accountId: d.accountId, amount: o.refunded.toFixed(), description: `Security deposit refund, subscription ${d.subscriptionId}` };
    }),
  });
  const refundEntryOf = new Map(refunding.map((o, i) => [o.depositId, refundIds[i]!]));
  // A released deposit pays the subscription's open bills oldest due first (planRelease),
  // whatever the templates' methods: Chronology is the method in force for these rows.
  const inForce = 'Chronology';
  const accountOf = new Map(deposits.map((d) => [d.releaseEntryId, d.accountId]));
  const allocations: NewAllocation[] = [];
  for (const o of outcomes) {
    const d = byDeposit.get(o.depositId)!;
    if (o.unpaid.gt(0))
      allocations.push({ accountId: d.accountId, creditEntryId: o.releaseEntryId, debitEntryId: d.chargeEntryId, billId: null, lineNo: null, amount: o.unpaid.toFixed(), method: DEPOSIT_METHOD, settlementMethod: inForce });
  }
  for (const a of billAllocations)
    allocations.push({ accountId: accountOf.get(a.creditEntryId)!, creditEntryId: a.creditEntryId, debitEntryId: a.debitEntryId, billId: a.billId, lineNo: a.lineNo, amount: a.amount.toFixed(), method: a.method, settlementMethod: inForce });
  for (const o of refunding) {
    const d = byDeposit.get(o.depositId)!;
    allocations.push({ accountId: d.accountId, creditEntryId: o.releaseEntryId, debitEntryId: refundEntryOf.get(o.depositId)!, billId: null, lineNo: null, amount: o.refunded.toFixed(), method: DEPOSIT_METHOD, settlementMethod: inForce });
  }
  await writeAllocations(db, appCode, allocations, by);
  await db.query(
    `UPDATE deposit d SET released_on = $2::date, release_entry_id = t.release_entry_id, unpaid = t.unpaid, applied = t.applied, refunded = t.refunded,
                          refund_entry_id = t.refund_entry_id
       FROM unnest($3::bigint[], $4::bigint[], $5::numeric[], $6::numeric[], $7::numeric[], $8::bigint[])
            AS t(deposit_id, release_entry_id, unpaid, applied, refunded, refund_entry_id)
      WHERE d.app_code = $1 AND d.deposit_id = t.deposit_id`,
    [
      appCode,
      app.today,
      outcomes.map((o) => o.depositId),
      outcomes.map((o) => o.releaseEntryId),
      outcomes.map((o) => o.unpaid.toFixed()),
      outcomes.map((o) => o.applied.toFixed()),
      outcomes.map((o) => o.refunded.toFixed()),
      outcomes.map((o) => refundEntryOf.get(o.depositId) ?? null),
    ],
  );
  return outcomes;
}
