// The daily late-charge run of one app: the bills still unpaid when their grace ended
// are charged their template's late charge, once each, as traced ledger adjustments.
// Called by the queue's job (tasks.ts) and nothing else, so a run is always a job: run
// twice, or retried after a worker died mid-way, it charges each bill once.
import { recordBillSourcedEvents } from '../events/record.ts';
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { addLateChargeEntries } from '../ledger/store.ts';
import { checkLateCharge, prepareLateCharge, rateLateCharge, type PreparedLateCharge } from '../rating/lateCharge.ts';
import { Dec } from '../rating/money.ts';
import { ROUNDING_MODES, type RoundingMode } from '../rating/money.ts';
import { apiDate } from '../rating/days.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import { lockAccounts } from '../settlement/store.ts';
import { storedTrace } from './trace.ts';
import { appRounding, finishDay, insertLateCharges, lastOpenItem, loadRules, lockApp, nextOpenItem, openAmounts, overdueBills, type NewLateCharge } from './store.ts';

export const LATE_CHARGE_USER = 'late-charges';

/** Open items a page looks at (a range of their ids), so at most as many bills a transaction: bounded memory and statement size, and a killed run loses at most one page. */
export const LATE_CHARGE_PAGE = 20_000;

/**
 * Pages written at once, each on its own connection: lane i takes the accounts whose id
 * is i modulo the lanes, so two lanes never lock the same account (no deadlock, no
 * waiting) and each page's writes (mostly the database's: the ledger insert with its key
 * checks and balance update) run on another core. Two, as the worker's machine has.
 */
export const LATE_CHARGE_LANES = 2;

export type LateChargeRunSummary = { charged: number; amount: string };

/**
 * Charges every bill of the app whose due date plus its rule's grace days is before
 * `chargeDate` (yyyy-mm-dd, the app's day the run is for) and that is still unpaid
 * after settlement. Each page of bills is one transaction: the ledger entries, their
 * late_charge rows (UNIQUE (bill_id)), and settlement of the accounts with credit
 * waiting. Pages run in `lanes` at once, each lane on its own accounts. Runs of one
 * app are serialised, lane by lane, by an advisory lock, so a second run finds the first
 * one's bills charged.
 */
export async function chargeLateCharges(
  db: pg.Pool,
  appCode: number,
  chargeDate: string,
  by = LATE_CHARGE_USER,
  page = LATE_CHARGE_PAGE,
  lanes = LATE_CHARGE_LANES,
): Promise<LateChargeRunSummary> {
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
    // The open items as they are when the run starts, walked in ranges of ids (the late
    // charges it makes are items after them).
    const last = BigInt(await lastOpenItem(db, appCode));
    const runLane = async (lane: number) => {
      for (let from = await nextOpenItem(db, appCode, '0'); from !== null && BigInt(from) <= last; ) {
        const after = BigInt(from) - 1n;
        const upTo = after + BigInt(page);
        const done = await inTransaction(db, async (tx) => {
          await lockApp(tx, appCode, lane);
          const bills = await overdueBills(tx, appCode, chargeDate, versions, grace, String(after), String(upTo), { lane, lanes });
          if (bills.length === 0) return null;
          // The accounts are locked in id order, as settlement locks them (no deadlock with a
          // payment or a posting), and the open amounts read again under the lock.
          await lockAccounts(tx, appCode, [...new Set(bills.map((b) => b.account_id))]);
          const open = await openAmounts(tx, bills.map((b) => b.entry_id));
          const rows: NewLateCharge[] = [];
          const entryRows: { account_id: string; bill_id: string; amount: string; description: string }[] = [];
          let pageTotal = new Dec(0);
          for (const b of bills) {
            const overdue = open.get(b.entry_id);
            if (overdue === undefined) continue;
            const made = rateLateCharge(rules.get(b.service_version_id) as PreparedLateCharge, new Dec(overdue), settings);
            if (made === null) continue;
            const dueDate = apiDate(b.due_date);
            const amount = made.amount.toFixed();
            rows.push({ bill_id: b.bill_id, account_id: b.account_id, overdue, amount, service_version_id: b.service_version_id, entry_id: '', trace: storedTrace(made.trace) });
            entryRows.push({ account_id: b.account_id, bill_id: b.bill_id, amount, description: `Late payment charge on bill ${b.bill_number} (due ${dueDate})` });
            pageTotal = pageTotal.plus(made.amount);
          }
          const entries = await addLateChargeEntries(tx, { appCode, date: chargeDate, by, rows: entryRows });
          const entryOf = new Map(entries.map((e) => [e.bill_id, e.entry_id]));
          for (const row of rows) row.entry_id = entryOf.get(row.bill_id) as string;
          const n = await insertLateCharges(tx, appCode, chargeDate, by, rows);
          // One event per late charge, its body rendered from the charge's row when read (events/body.ts).
          await recordBillSourcedEvents(tx, appCode, 'late_charge.made', rows.map((row) => row.bill_id));
          await settleAccounts(tx, appCode, entryRows.map((x) => x.account_id), by);
          return { n, pageTotal };
        });
        from = await nextOpenItem(db, appCode, String(upTo));
        if (done === null) continue;
        charged += done.n;
        total = total.plus(done.pageTotal);
      }
    };
    // Every lane runs to its end even when another fails, so no page is left mid-way
    // unawaited; the first failure is then the job's (it is retried, and skips what is charged).
    const ends = await Promise.allSettled(Array.from({ length: Math.max(1, lanes) }, (_, lane) => runLane(lane)));
    const failed = ends.find((e) => e.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  await finishDay(db, appCode, chargeDate, charged);
  return { charged, amount: total.toFixed(settings.minorUnits) };
}
