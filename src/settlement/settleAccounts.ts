// The settlement operation on the database: loads the open items of a set of accounts,
// lets the pure core decide the allocations, and writes them, in the caller's
// transaction. Called after a payment, an adjustment, a reversal, and by the bill run
// when it posts bills (settleAccounts).
import { Dec } from '../rating/money.ts';
import type { Queryable } from '../db/pool.ts';
import { CATEGORY_ORDER, DEFAULT_CATEGORY, DEFAULT_METHOD, categoryRank, debitOrder, isSettlementMethod, settle, type OpenCredit, type OpenDebit, type SettlementMethod } from './core.ts';
import {
  accountsWithCredit,
  livePaid,
  loadBillLines,
  loadOpenItems,
  lockAccounts,
  minorUnitsOf,
  releaseAllocations,
  writeAllocations,
  type NewAllocation,
  type OpenItemRow,
} from './store.ts';

/** Accounts per round trip: bounded memory and statement size whatever the run's size. */
export const SETTLE_CHUNK = 1000;

export type SettlementSummary = { accounts: number; allocations: number; amount: string };


/**
 * Applies the unapplied credit (payments, credit notes) of these accounts to their open
 * bills and debits, by each account's template settlement method, in the caller's
 * transaction. Accounts without credit cost one probe of a small partial index and are
 * otherwise left alone, so the bill run can pass every account it posted.
 */
export async function settleAccounts(
  tx: Queryable,
  appCode: number,
  accountIds: readonly (string | number | bigint)[],
  by = 'system',
): Promise<SettlementSummary> {
  const ids = [...new Set(accountIds.map((x) => String(x)))];
  const total = { accounts: 0, allocations: 0, amount: new Dec(0) };
  // Probed in chunks too: a million ids in one array parameter is 8 MB of text.
  for (let i = 0; i < ids.length; i += SETTLE_CHUNK * 50) {
    const withCredit = await accountsWithCredit(tx, appCode, ids.slice(i, i + SETTLE_CHUNK * 50));
    const s = await settleTheseAccounts(tx, appCode, withCredit, by);
    total.accounts += s.accounts;
    total.allocations += s.allocations;
    total.amount = total.amount.plus(s.amount);
  }
  return { accounts: total.accounts, allocations: total.allocations, amount: total.amount.toFixed() };
}

/** Settles every one of these accounts, whether or not it has credit (after a reversal, say). */
export async function settleTheseAccounts(tx: Queryable, appCode: number, accountIds: readonly string[], by: string): Promise<SettlementSummary> {
  let allocations = 0;
  let amount = new Dec(0);
  const minorUnits = accountIds.length > 0 ? await minorUnitsOf(tx, appCode) : 2;
  for (let i = 0; i < accountIds.length; i += SETTLE_CHUNK) {
    const chunk = accountIds.slice(i, i + SETTLE_CHUNK);
    await lockAccounts(tx, appCode, chunk);
    let rows = await loadOpenItems(tx, appCode, chunk);
    // An open reversing entry first takes back what the entry it reverses had settled.
    const reversals = rows.filter((r) => r.reverses_entry_id !== null);
    if (reversals.length > 0) {
      const released = await releaseAllocations(
        tx,
        appCode,
        reversals.map((r) => r.reverses_entry_id!),
        by,
        reversals.map((r) => `reversed by entry ${r.entry_id}`),
      );
      if (released > 0) rows = await loadOpenItems(tx, appCode, chunk);
    }
    const made = await allocationsFor(tx, rows, minorUnits);
    await writeAllocations(tx, appCode, made, by);
    allocations += made.length;
    for (const a of made) amount = amount.plus(a.amount);
  }
  return { accounts: accountIds.length, allocations, amount: amount.toFixed() };
}

// open_amount is never zero (zero rows are deleted), so its sign is its first character.
const isNegative = (amount: string) => amount.startsWith('-');

/** Builds the core's view of each account and collects the allocations it decides. */
async function allocationsFor(tx: Queryable, rows: OpenItemRow[], minorUnits: number): Promise<NewAllocation[]> {
  const byAccount = new Map<string, OpenItemRow[]>();
  for (const r of rows) {
    const list = byAccount.get(r.account_id);
    if (list) list.push(r);
    else byAccount.set(r.account_id, [r]);
  }
  // Only accounts with both sides open need any work.
  const busy = [...byAccount.entries()].filter(([, items]) => items.some((r) => !isNegative(r.open_amount)) && items.some((r) => isNegative(r.open_amount)));
  if (busy.length === 0) return [];
  const billDebits = busy.flatMap(([, items]) => items.filter((r) => r.kind === 'bill' && r.bill_id !== null && new Dec(r.open_amount).gt(0)));
  const lines = await loadBillLines(tx, [...new Set(billDebits.map((r) => r.bill_id!))]);
  const linesByBill = new Map<string, { lineNo: number; amount: Dec; category: string }[]>();
  for (const l of lines) {
    const list = linesByBill.get(l.bill_id) ?? [];
    list.push({ lineNo: l.line_no, amount: new Dec(l.amount), category: l.category ?? DEFAULT_CATEGORY });
    linesByBill.set(l.bill_id, list);
  }
  const partly = billDebits.filter((r) => !new Dec(r.open_amount).eq(r.amount)).map((r) => r.entry_id);
  const paid = new Map<string, Map<number | null, Dec>>();
  for (const p of await livePaid(tx, partly)) {
    const m = paid.get(p.debit_entry_id) ?? new Map<number | null, Dec>();
    m.set(p.line_no, new Dec(p.paid));
    paid.set(p.debit_entry_id, m);
  }

  const out: NewAllocation[] = [];
  for (const [accountId, items] of busy) {
    const debits: OpenDebit[] = [];
    const credits: OpenCredit[] = [];
    // The method in force is that of the template of the account's oldest open bill (the
    // debits' order: oldest due, older bill, posted first); Chronology when no open bill
    // has one (only debit notes open, say).
    let method: SettlementMethod | undefined;
    let methodDebit: OpenDebit | undefined;
    for (const r of items) {
      const open = new Dec(r.open_amount);
      if (open.gt(0)) {
        const lineList =
          r.kind === 'bill' && r.bill_id
            ? debitLines(open, new Dec(r.amount), linesByBill.get(r.bill_id), paid.get(r.entry_id))
            : [{ lineNo: null, open, category: CATEGORY_ORDER.includes(r.kind) ? r.kind : DEFAULT_CATEGORY }];
        const debit: OpenDebit = {
          entryId: r.entry_id,
          billId: r.kind === 'bill' ? r.bill_id : null,
          dueDate: r.due_date ?? r.entry_date,
          date: r.bill_date ?? r.entry_date,
          lines: lineList,
          reversesEntryId: r.reverses_entry_id,
          ...(r.kind === 'deposit' ? { category: 'deposit' as const } : {}),
        };
        debits.push(debit);
        if (r.method && isSettlementMethod(r.method) && (methodDebit === undefined || debitOrder(debit, methodDebit) < 0)) {
          method = r.method;
          methodDebit = debit;
        }
      } else {
        credits.push({ entryId: r.entry_id, date: r.entry_date, open: open.neg(), billId: r.tied_bill_id, reversesEntryId: r.reverses_entry_id });
      }
    }
    const inForce = method ?? DEFAULT_METHOD;
    const result = settle({ debits, credits, method: inForce, minorUnits });
    for (const a of result.allocations) {
      out.push({
        accountId,
        creditEntryId: a.creditEntryId,
        debitEntryId: a.debitEntryId,
        billId: a.billId,
        lineNo: a.lineNo,
        amount: a.amount.toFixed(),
        method: a.method,
        settlementMethod: inForce,
      });
    }
  }
  return out;
}

/**
 * A bill's open lines: each line's amount less what live allocations paid on it, with its
 * category. The bill is settled as one item (lineNo null) when its lines do not add up
 * to its ledger amount, when a line is negative (a discount line cannot be "due"), or
 * when it was once settled as one item: a bill is split one way for its whole life. A
 * bill settled as one item takes the most urgent category of its lines (CATEGORY_ORDER):
 * it holds that much tax, say, so Category Priority pays it with the tax.
 */
export function debitLines(
  open: Dec,
  amount: Dec,
  lines: { lineNo: number; amount: Dec; category?: string }[] | undefined,
  paid: Map<number | null, Dec> | undefined,
): { lineNo: number | null; open: Dec; category: string }[] {
  const urgent = (lines ?? []).reduce((best, l) => (categoryRank(l.category) < categoryRank(best) ? (l.category ?? DEFAULT_CATEGORY) : best), DEFAULT_CATEGORY);
  const whole = [{ lineNo: null, open, category: urgent }];
  if (!lines || lines.length === 0) return whole;
  if (paid?.has(null)) return whole;
  if (lines.some((l) => l.amount.lt(0))) return whole;
  if (!lines.reduce((s, l) => s.plus(l.amount), new Dec(0)).eq(amount)) return whole;
  const result = lines.map((l) => ({ lineNo: l.lineNo as number | null, open: l.amount.minus(paid?.get(l.lineNo) ?? 0), category: l.category ?? DEFAULT_CATEGORY }));
  if (result.some((l) => l.open.lt(0))) return whole;
  if (!result.reduce((s, l) => s.plus(l.open), new Dec(0)).eq(open)) return whole;
  return result.filter((l) => l.open.gt(0));
}
