// The daily late-charge run of one app: the bills still unpaid when their grace ended
// are charged their template's late charge, once each, as traced ledger adjustments.
// Called by the queue's job (tasks.ts) and nothing else, so a run is always a job: run
// twice, or retried after a worker died mid-way, it charges each bill once.
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { addLateChargeEntries } from '../ledger/store.ts';
import { checkLateCharge, type LateChargeTrace, prepareLateCharge, rateLateCharge, type PreparedLateCharge } from '../rating/lateCharge.ts';
import { Dec } from '../rating/money.ts';
import { ROUNDING_MODES, type RoundingMode } from '../rating/money.ts';
import { apiDate } from '../rating/days.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import { appRounding, finishDay, insertLateCharges, loadRules, lockApp, overdueBills, type NewLateCharges } from './store.ts';

export const LATE_CHARGE_USER = 'late-charges';

/** Bills per transaction: bounded memory and statement size, and a killed run loses at most one page. */
export const LATE_CHARGE_PAGE = 20_000;

/** What late_charge.trace holds: the bill, the day, the version whose rule applied, and the core's trace. */
export type StoredLateChargeTrace = LateChargeTrace & {
  bill: { billID: number; billNumber: number; dueDate: string };
  chargeDate: string;
  serviceVersionID: number;
};

export type LateChargeRunSummary = { charged: number; amount: string };

/**
 * Charges every bill of the app whose due date plus its rule's grace days is before
 * `chargeDate` (yyyy-mm-dd, the app's day the run is for) and that is still unpaid
 * after settlement. Each page of bills is one transaction: the ledger entries, their
 * late_charge rows (UNIQUE (bill_id)), and settlement of the accounts with credit
 * waiting. Runs of one app are serialised by an advisory lock, so a second run finds
 * the first one's bills charged.
 */
export async function chargeLateCharges(db: pg.Pool, appCode: number, chargeDate: string, by = LATE_CHARGE_USER, page = LATE_CHARGE_PAGE): Promise<LateChargeRunSummary> {
  const money = await appRounding(db, appCode);
  if (money === undefined) return { charged: 0, amount: '0' };
  const settings = {
    minorUnits: money.minorUnits,
    rounding: (ROUNDING_MODES as readonly string[]).includes(money.rounding) ? (money.rounding as RoundingMode) : 'halfUp',
  };
  const rules = new Map<string, PreparedLateCharge>();
  for (const row of await loadRules(db, appCode)) {
    // Stored definitions passed this check when saved; one that does not (edited behind
    // the API) is skipped rather than charged by a guess.
    if (checkLateCharge(row.rule, 'lateCharge').length === 0) rules.set(row.service_version_id, prepareLateCharge(row.rule));
  }
  let charged = 0;
  let total = new Dec(0);
  if (rules.size > 0) {
    const versions = [...rules.keys()];
    const grace = versions.map((v) => (rules.get(v) as PreparedLateCharge).graceDays);
    let after = '0';
    for (;;) {
      const done = await inTransaction(db, async (tx) => {
        await lockApp(tx, appCode);
        const bills = await overdueBills(tx, appCode, chargeDate, versions, grace, after, page);
        if (bills.length === 0) return null;
        after = bills[bills.length - 1]!.entry_id;
        const c: NewLateCharges = { billIds: [], accountIds: [], overdue: [], amounts: [], versions: [], entryIds: [], traces: [] };
        const descriptions: string[] = [];
        const traces: StoredLateChargeTrace[] = [];
        let pageTotal = new Dec(0);
        for (const b of bills) {
          const overdue = new Dec(b.open_amount);
          const made = rateLateCharge(rules.get(b.service_version_id) as PreparedLateCharge, overdue, settings);
          if (made === null) continue;
          c.billIds.push(b.bill_id);
          c.accountIds.push(b.account_id);
          c.overdue.push(overdue.toFixed());
          c.amounts.push(made.amount.toFixed());
          c.versions.push(b.service_version_id);
          descriptions.push(`Late payment charge on bill ${b.bill_number} (due ${apiDate(b.due_date)})`);
          traces.push({
            bill: { billID: Number(b.bill_id), billNumber: Number(b.bill_number), dueDate: apiDate(b.due_date) },
            chargeDate: apiDate(chargeDate),
            serviceVersionID: Number(b.service_version_id),
            ...made.trace,
          });
          pageTotal = pageTotal.plus(made.amount);
        }
        const entries = await addLateChargeEntries(tx, { appCode, date: chargeDate, by, accountIds: c.accountIds, billIds: c.billIds, amounts: c.amounts, descriptions });
        const entryOf = new Map(entries.map((e) => [e.bill_id, e.entry_id]));
        c.entryIds = c.billIds.map((id) => entryOf.get(id) as string);
        c.traces = traces.map((t) => JSON.stringify(t));
        const n = await insertLateCharges(tx, appCode, chargeDate, by, c);
        // Webhooks: a "late charge made" event per row of c belongs here, in this transaction.
        await settleAccounts(tx, appCode, c.accountIds, by);
        return { n, pageTotal };
      });
      if (done === null) break;
      charged += done.n;
      total = total.plus(done.pageTotal);
    }
  }
  await finishDay(db, appCode, chargeDate, charged);
  return { charged, amount: total.toFixed(settings.minorUnits) };
}
