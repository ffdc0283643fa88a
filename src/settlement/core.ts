/**
 * The settlement core: given an account's open debits (bills with their lines,
 * debit notes) and its unapplied credits (payments, credit notes), the allocations a
 * settlement method makes. Pure: no I/O, no clock; amounts are exact decimals.
 *
 * A method is an order: which debit is paid first and, within a bill, which line.
 * Credits are spent oldest first. An allocation never exceeds the open amount of the
 * line it pays nor what is left of the credit it spends, so no bill is ever paid past
 * its total and no credit is spent twice.
 */
import { Dec } from '../rating/money.ts';

export const SETTLEMENT_METHODS = ['Chronology'] as const;
export type SettlementMethod = (typeof SETTLEMENT_METHODS)[number];

/** Method names an allocation records beyond the template's: see allocation.method. */
export const BILL_METHOD = 'Bill';
export const REVERSAL_METHOD = 'Reversal';

export type DebitLine = {
  /** The bill line's number; null when the item is settled as a whole. */
  lineNo: number | null;
  /** What is still owed on the line (> 0). */
  open: Dec;
};

export type OpenDebit = {
  entryId: string;
  billId: string | null;
  /** YYYY-MM-DD: the bill's due date, or the entry's date for a debit note. */
  dueDate: string;
  /** YYYY-MM-DD: the bill's date or the entry's date; breaks ties between equal due dates. */
  date: string;
  /** In the bill's own order. */
  lines: DebitLine[];
  /** Set on a reversing entry (a bill reversal): it pays the entry it reverses first. */
  reversesEntryId?: string | null;
  /** What the item is for, for methods that order by it: 'deposit' for a security deposit (src/deposits/); absent otherwise. */
  category?: string;
};

export type OpenCredit = {
  entryId: string;
  /** YYYY-MM-DD: credits are spent oldest first. */
  date: string;
  /** What is left to apply (> 0). */
  open: Dec;
  /** A credit note tied to a bill pays that bill before anything else. */
  billId?: string | null;
  /** Set on a reversing entry (a bill reversal): it pays the entry it reverses first. */
  reversesEntryId?: string | null;
};

export type Allocation = {
  creditEntryId: string;
  debitEntryId: string;
  billId: string | null;
  lineNo: number | null;
  amount: Dec;
  method: string;
};

export type SettleInput = { debits: readonly OpenDebit[]; credits: readonly OpenCredit[]; method: SettlementMethod };
export type SettleResult = { allocations: Allocation[]; debits: OpenDebit[]; credits: OpenCredit[] };

/** Compares identifiers that are bigint text ("9" < "10"). */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Each method as the order in which it pays debits. */
const DEBIT_ORDER: Record<SettlementMethod, (a: OpenDebit, b: OpenDebit) => number> = {
  // The oldest due first; then the older bill; then the one posted first.
  Chronology: (a, b) => cmp(a.dueDate, b.dueDate) || cmp(a.date, b.date) || compareIds(a.entryId, b.entryId),
};

export function isSettlementMethod(m: unknown): m is SettlementMethod {
  return typeof m === 'string' && (SETTLEMENT_METHODS as readonly string[]).includes(m);
}

/** The order in which credits are spent: oldest first, whatever the method. */
export function creditOrder(a: OpenCredit, b: OpenCredit): number {
  return cmp(a.date, b.date) || compareIds(a.entryId, b.entryId);
}

/** The allocations `method` makes from the credits to the debits, and what stays open on each side. */
export function settle(input: SettleInput): SettleResult {
  const order = DEBIT_ORDER[input.method];
  if (!order) throw new Error(`unknown settlement method ${JSON.stringify(input.method)}`);
  const debits = input.debits
    .map((d) => ({ ...d, lines: d.lines.filter((l) => l.open.gt(0)).map((l) => ({ ...l })) }))
    .filter((d) => d.lines.length > 0)
    .sort(order);
  const credits = input.credits
    .filter((c) => c.open.gt(0))
    .map((c) => ({ ...c }))
    .sort(creditOrder);
  const allocations: Allocation[] = [];

  const pay = (credit: OpenCredit, debit: OpenDebit, method: string) => {
    for (const line of debit.lines) {
      if (credit.open.isZero()) return;
      if (line.open.isZero()) continue;
      const amount = Dec.min(credit.open, line.open);
      line.open = line.open.minus(amount);
      credit.open = credit.open.minus(amount);
      allocations.push({ creditEntryId: credit.entryId, debitEntryId: debit.entryId, billId: debit.billId, lineNo: line.lineNo, amount, method });
    }
  };

  // A reversal and the entry it reverses cancel each other before any method runs:
  // a bounced payment must reopen the bills, not pay them a second time.
  const debitById = new Map(debits.map((d) => [d.entryId, d]));
  const creditById = new Map(credits.map((c) => [c.entryId, c]));
  for (const credit of credits) {
    const target = credit.reversesEntryId ? debitById.get(credit.reversesEntryId) : undefined;
    if (target) pay(credit, target, REVERSAL_METHOD);
  }
  for (const debit of debits) {
    const source = debit.reversesEntryId ? creditById.get(debit.reversesEntryId) : undefined;
    if (source) pay(source, debit, REVERSAL_METHOD);
  }

  for (const credit of credits) {
    if (credit.billId) {
      for (const debit of debits) if (debit.billId === credit.billId) pay(credit, debit, BILL_METHOD);
    }
    for (const debit of debits) {
      if (credit.open.isZero()) break;
      pay(credit, debit, input.method);
    }
  }
  return {
    allocations,
    debits: debits.map((d) => ({ ...d, lines: d.lines.filter((l) => l.open.gt(0)) })).filter((d) => d.lines.length > 0),
    credits: credits.filter((c) => c.open.gt(0)),
  };
}

/** What is still owed on a debit. */
export function debitOpen(d: OpenDebit): Dec {
  return d.lines.reduce((s, l) => s.plus(l.open), new Dec(0));
}
