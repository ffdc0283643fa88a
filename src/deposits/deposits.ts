// Security deposits on the database: charged when subscriptions are connected (a new
// subscription, an import, a move onto a template asking for more), released when one is
// terminated. Every write runs in the caller's transaction, through the ledger's one
// writer (src/ledger/store.ts) and settlement's allocation writer; the arithmetic is
// ./core.ts.
import type { Queryable } from '../db/pool.ts';
import { Dec, type RoundingMode } from '../rating/money.ts';
import { addDepositEntries } from '../ledger/store.ts';
import { settleAccounts, debitLines } from '../settlement/settleAccounts.ts';
import { livePaid, loadBillLines, lockAccounts, writeAllocations, type NewAllocation } from '../settlement/store.ts';
import type { OpenDebit } from '../settlement/core.ts';
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

type Charge = { subscriptionId: string; accountId: string; amount: Dec; description: string };

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
    `INSERT INTO deposit (app_code, account_id, subscription_id, charged_subscription_id, amount, charge_entry_id, created_by)
     SELECT $1, t.account_id, t.subscription_id, t.subscription_id, t.amount, t.entry_id, $2
       FROM unnest($3::bigint[], $4::bigint[], $5::numeric[], $6::bigint[]) AS t(subscription_id, account_id, amount, entry_id)`,
    [appCode, by, charges.map((c) => c.subscriptionId), charges.map((c) => c.accountId), charges.map((c) => c.amount.toFixed()), entryIds],
  );
  await settleAccounts(db, appCode, charges.map((c) => c.accountId), by);
  return charges.length;
}

/**
 * Charges the security deposit of each new subscription's template (its current
 * version), dated today: one 'deposit' entry and one deposit row per subscription whose
 * template asks for one. Answers how many were charged.
 */
export async function chargeDeposits(db: Queryable, appCode: number, subscriptionIds: readonly string[], by: string): Promise<number> {
  if (subscriptionIds.length === 0) return 0;
  const r = await db.query<{ subscription_id: string; account_id: string; service_code: string; deposit: string | null }>(
    `SELECT s.subscription_id, s.account_id, sv.service_code, v.definition->>'securityDeposit' AS deposit
       FROM subscription s
       JOIN service sv ON sv.service_id = s.service_id
       JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
      WHERE s.app_code = $1 AND s.subscription_id = ANY($2::bigint[]) AND v.definition->>'securityDeposit' IS NOT NULL
      ORDER BY s.subscription_id`,
    [appCode, subscriptionIds],
  );
  if (r.rows.length === 0) return 0;
  const app = await appSettings(db, appCode);
  const charges: Charge[] = [];
  for (const x of r.rows) {
    const amount = depositAmount(x.deposit, app.minorUnits, app.rounding);
    if (amount) charges.push({ subscriptionId: x.subscription_id, accountId: x.account_id, amount, description: `Security deposit, subscription ${x.subscription_id} (${x.service_code})` });
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
  const r = await db.query<{ account_id: string; service_code: string; deposit: string | null }>(
    `SELECT s.account_id, sv.service_code, v.definition->>'securityDeposit' AS deposit
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
      [{ subscriptionId: toSubscriptionId, accountId: row.account_id, amount: more, description: `Security deposit top-up, subscription ${toSubscriptionId} (${row.service_code})` }],
      app.today,
      by,
    );
  }
}

/** The open bills of a subscription and of the subscriptions it was moved from, as the settlement core sees them. */
async function openBillsOf(db: Queryable, subscriptionId: string): Promise<OpenDebit[]> {
  const r = await db.query<{ entry_id: string; open_amount: string; amount: string; bill_id: string; due_date: string; bill_date: string }>(
    `WITH RECURSIVE chain AS (
       SELECT subscription_id, moved_from_subscription_id FROM subscription WHERE subscription_id = $1
       UNION
       SELECT s.subscription_id, s.moved_from_subscription_id FROM subscription s JOIN chain c ON s.subscription_id = c.moved_from_subscription_id)
     SELECT e.entry_id, o.open_amount, e.amount, b.bill_id, b.due_date, b.bill_date
       FROM chain
       JOIN bill b ON b.subscription_id = chain.subscription_id
       JOIN ledger_entry e ON e.bill_id = b.bill_id AND e.kind = 'bill'
       JOIN open_item o ON o.entry_id = e.entry_id AND o.open_amount > 0`,
    [subscriptionId],
  );
  const lines = await loadBillLines(db, r.rows.map((x) => x.bill_id));
  const linesByBill = new Map<string, { lineNo: number; amount: Dec }[]>();
  for (const l of lines) linesByBill.set(l.bill_id, [...(linesByBill.get(l.bill_id) ?? []), { lineNo: l.line_no, amount: new Dec(l.amount) }]);
  const paid = new Map<string, Map<number | null, Dec>>();
  for (const p of await livePaid(db, r.rows.map((x) => x.entry_id))) {
    const m = paid.get(p.debit_entry_id) ?? new Map<number | null, Dec>();
    m.set(p.line_no, new Dec(p.paid));
    paid.set(p.debit_entry_id, m);
  }
  return r.rows.map((x) => ({
    entryId: x.entry_id,
    billId: x.bill_id,
    dueDate: x.due_date,
    date: x.bill_date,
    lines: debitLines(new Dec(x.open_amount), new Dec(x.amount), linesByBill.get(x.bill_id), paid.get(x.entry_id)),
  }));
}

/**
 * Terminating a subscription releases the deposits it holds, dated today: a
 * 'deposit_release' entry of each deposit's amount, spent at once on its unpaid part
 * (cancelled), the subscription's open bills (what was held) and, for what is left, a
 * 'deposit_refund' entry to be paid out. Answers each deposit's outcome.
 */
export async function releaseDeposits(db: Queryable, appCode: number, subscriptionId: string, by: string): Promise<DepositOutcome[]> {
  const found = await db.query<{ deposit_id: string; account_id: string; amount: string; charge_entry_id: string; entry_date: string }>(
    `SELECT d.deposit_id, d.account_id, d.amount, d.charge_entry_id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date
       FROM deposit d JOIN ledger_entry e ON e.entry_id = d.charge_entry_id
      WHERE d.app_code = $1 AND d.subscription_id = $2 AND d.released_on IS NULL
      ORDER BY d.deposit_id`,
    [appCode, subscriptionId],
  );
  if (found.rows.length === 0) return [];
  const accountId = found.rows[0]!.account_id;
  await lockAccounts(db, appCode, [accountId]);
  // Read after the lock: a payment settling the deposit right now is in or out, never half.
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
    rows: found.rows.map((d) => ({ accountId, amount: d.amount, description: `Security deposit released, subscription ${subscriptionId}` })),
  });
  const deposits = found.rows.map((d, i) => ({
    depositId: d.deposit_id,
    chargeEntryId: d.charge_entry_id,
    releaseEntryId: releaseIds[i]!,
    date: d.entry_date,
    amount: new Dec(d.amount),
    unpaid: unpaidOf.get(d.charge_entry_id) ?? new Dec(0),
  }));
  const plan = planRelease(deposits, await openBillsOf(db, subscriptionId));
  const refunding = plan.outcomes.filter((o) => o.refunded.gt(0));
  const refundIds = await addDepositEntries(db, {
    appCode,
    kind: 'deposit_refund',
    date: app.today,
    by,
    rows: refunding.map((o) => ({ accountId, amount: o.refunded.toFixed(), description: `Security deposit refund, subscription ${subscriptionId}` })),
  });
  const refundEntryOf = new Map(refunding.map((o, i) => [o.depositId, refundIds[i]!]));
  // A released deposit pays the subscription's open bills oldest due first (planRelease),
  // whatever the templates' methods: Chronology is the method in force for these rows.
  const inForce = 'Chronology';
  const allocations: NewAllocation[] = [];
  for (const [i, o] of plan.outcomes.entries()) {
    const d = deposits[i]!;
    if (o.unpaid.gt(0)) allocations.push({ accountId, creditEntryId: o.releaseEntryId, debitEntryId: d.chargeEntryId, billId: null, lineNo: null, amount: o.unpaid.toFixed(), method: DEPOSIT_METHOD, settlementMethod: inForce });
  }
  for (const a of plan.allocations) allocations.push({ accountId, creditEntryId: a.creditEntryId, debitEntryId: a.debitEntryId, billId: a.billId, lineNo: a.lineNo, amount: a.amount.toFixed(), method: a.method, settlementMethod: inForce });
  for (const o of refunding) allocations.push({ accountId, creditEntryId: o.releaseEntryId, debitEntryId: refundEntryOf.get(o.depositId)!, billId: null, lineNo: null, amount: o.refunded.toFixed(), method: DEPOSIT_METHOD, settlementMethod: inForce });
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
      plan.outcomes.map((o) => o.depositId),
      plan.outcomes.map((o) => o.releaseEntryId),
      plan.outcomes.map((o) => o.unpaid.toFixed()),
      plan.outcomes.map((o) => o.applied.toFixed()),
      plan.outcomes.map((o) => o.refunded.toFixed()),
      plan.outcomes.map((o) => refundEntryOf.get(o.depositId) ?? null),
    ],
  );
  return plan.outcomes;
}

