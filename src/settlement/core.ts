/**
 * The settlement core: given an account's open debits (bills with their lines,
 * debit notes) and its unapplied credits (payments, credit notes), the allocations a
 * settlement method makes. Pure: no I/O, no clock; amounts are exact decimals.
 *
 * Chronology and Category Priority are orders: which debit line is paid first.
 * Proportional splits each credit over every open debit pro rata to what it owes
 * (see prorate for the rounding rule). Credits are spent oldest first whatever the
 * method. An allocation never exceeds the open amount of the line it pays nor what is
 * left of the credit it spends, so no bill is ever paid past its total and no credit is
 * spent twice.
 */
import { Dec } from '../rating/money.ts';

/** The template's paymentSettlementMethod values (docs/payments.md#settlement). */
export const SETTLEMENT_METHODS = ['Chronology', 'Category Priority', 'Proportional'] as const;
export type SettlementMethod = (typeof SETTLEMENT_METHODS)[number];

/** The method when no open bill's template names one. */
export const DEFAULT_METHOD: SettlementMethod = 'Chronology';

/** Method names an allocation records beyond the template's: see allocation.method. */
export const BILL_METHOD = 'Bill';
export const REVERSAL_METHOD = 'Reversal';

/**
 * Category Priority's order: a debit line of a category earlier in this list is paid
 * before any line of a later one (oldest first within a category). A category not in the
 * list comes after all of them. One list for every feature that adds a kind of open
 * item: security deposits ('deposit') come first. A bill line's category is the rating
 * core's ('charge' | 'tax'); another debit (a debit note, a late charge) is 'charge'
 * unless its ledger kind is itself a category of this list.
 */
export const CATEGORY_ORDER: string[] = ['deposit', 'tax', 'charge'];

/** What a line is when nothing says otherwise. */
export const DEFAULT_CATEGORY = 'charge';

/** A category's place in CATEGORY_ORDER (unknown ones last). */
export function categoryRank(category: string | undefined): number {
  const i = CATEGORY_ORDER.indexOf(category ?? DEFAULT_CATEGORY);
  return i < 0 ? CATEGORY_ORDER.length : i;
}

export type DebitLine = {
  /** The bill line's number; null when the item is settled as a whole. */
  lineNo: number | null;
  /** What is still owed on the line (> 0). */
  open: Dec;
  /** The line's category (CATEGORY_ORDER); DEFAULT_CATEGORY when absent. */
  category?: string;
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

export type SettleInput = {
  debits: readonly OpenDebit[];
  credits: readonly OpenCredit[];
  method: SettlementMethod;
  /** The currency's minor units (2: cents): Proportional rounds shares to 10^-minorUnits. Default 2. */
  minorUnits?: number;
};
export type SettleResult = { allocations: Allocation[]; debits: OpenDebit[]; credits: OpenCredit[] };

/** Compares identifiers that are bigint text ("9" < "10"). */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order of debits: the oldest due first; then the older bill; then the one posted first. */
export function debitOrder(a: OpenDebit, b: OpenDebit): number {
  return cmp(a.dueDate, b.dueDate) || cmp(a.date, b.date) || compareIds(a.entryId, b.entryId);
}

export function isSettlementMethod(m: unknown): m is SettlementMethod {
  return typeof m === 'string' && (SETTLEMENT_METHODS as readonly string[]).includes(m);
}

/** The order in which credits are spent: oldest first, whatever the method. */
export function creditOrder(a: OpenCredit, b: OpenCredit): number {
  return cmp(a.date, b.date) || compareIds(a.entryId, b.entryId);
}

/** The allocations `method` makes from the credits to the debits, and what stays open on each side. */
export function settle(input: SettleInput): SettleResult {
  if (!isSettlementMethod(input.method)) throw new Error(`unknown settlement method ${JSON.stringify(input.method)}`);
  const unit = new Dec(10).pow(-(input.minorUnits ?? 2));
  const debits = input.debits
    .map((d) => ({ ...d, lines: d.lines.filter((l) => l.open.gt(0)).map((l) => ({ ...l })) }))
    .filter((d) => d.lines.length > 0)
    .sort(debitOrder);
  const credits = input.credits
    .filter((c) => c.open.gt(0))
    .map((c) => ({ ...c }))
    .sort(creditOrder);
  const allocations: Allocation[] = [];

  const payLine = (credit: OpenCredit, debit: OpenDebit, line: DebitLine, method: string, most: Dec = credit.open) => {
    const amount = Dec.min(credit.open, line.open, most);
    if (amount.lte(0)) return;
    line.open = line.open.minus(amount);
    credit.open = credit.open.minus(amount);
    allocations.push({ creditEntryId: credit.entryId, debitEntryId: debit.entryId, billId: debit.billId, lineNo: line.lineNo, amount, method });
  };
  const pay = (credit: OpenCredit, debit: OpenDebit, method: string) => {
    for (const line of debit.lines) {
      if (credit.open.isZero()) return;
      payLine(credit, debit, line, method);
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

  // Category Priority: every open line, by category, then the debits' order, then the bill's own line order.
  const byCategory =
    input.method === 'Category Priority'
      ? debits
          .flatMap((debit, di) => debit.lines.map((line, li) => ({ debit, line, di, li, rank: categoryRank(line.category) })))
          .sort((x, y) => x.rank - y.rank || x.di - y.di || x.li - y.li)
      : [];

  for (const credit of credits) {
    if (credit.billId) {
      for (const debit of debits) if (debit.billId === credit.billId) pay(credit, debit, BILL_METHOD);
    }
    if (credit.open.isZero()) continue;
    if (input.method === 'Chronology') {
      for (const debit of debits) {
        if (credit.open.isZero()) break;
        pay(credit, debit, input.method);
      }
    } else if (input.method === 'Category Priority') {
      for (const { debit, line } of byCategory) {
        if (credit.open.isZero()) break;
        payLine(credit, debit, line, input.method);
      }
    } else {
      // Proportional: the credit over the open debits pro rata to what each owes, then
      // each debit's share over its open lines pro rata the same way.
      const open = debits.filter((d) => debitOpen(d).gt(0));
      const shares = prorate(credit.open, open.map(debitOpen), unit);
      open.forEach((debit, i) => {
        const lines = debit.lines.filter((l) => l.open.gt(0));
        const parts = prorate(shares[i]!, lines.map((l) => l.open), unit);
        lines.forEach((line, j) => payLine(credit, debit, line, input.method, parts[j]!));
      });
    }
  }
  return {
    allocations,
    debits: debits.map((d) => ({ ...d, lines: d.lines.filter((l) => l.open.gt(0)) })).filter((d) => d.lines.length > 0),
    credits: credits.filter((c) => c.open.gt(0)),
  };
}

/**
 * `amount` split over items that owe `owed` (each > 0), pro rata, in multiples of `unit`
 * (the currency's minor unit) where the amounts allow. The rule:
 * - `amount` at least the total owed: each item gets exactly what it owes.
 * - otherwise each item first gets its exact share amount x owed / total rounded down to
 *   the unit; the units left over (fewer than the items) go one each to the items whose
 *   exact share lost the most in that rounding, ties to the earlier item (the debits'
 *   order: the oldest due first), never past what an item owes, round again if needed.
 * The shares always add up to `amount` exactly and no share exceeds what its item owes.
 */
export function prorate(amount: Dec, owed: readonly Dec[], unit: Dec): Dec[] {
  const total = owed.reduce((s, x) => s.plus(x), new Dec(0));
  if (amount.gte(total)) return owed.map((x) => new Dec(x));
  if (amount.lte(0)) return owed.map(() => new Dec(0));
  // amount x owed / total = (whole units) x unit + lost / total, all exact: divToInt truncates.
  const denominator = total.times(unit);
  const shares = owed.map((x) => amount.times(x).divToInt(denominator).times(unit));
  const lost = owed.map((x) => amount.times(x).mod(denominator));
  const order = owed.map((_, i) => i).sort((i, j) => lost[j]!.comparedTo(lost[i]!) || i - j);
  let rest = amount.minus(shares.reduce((s, x) => s.plus(x), new Dec(0)));
  while (rest.gt(0)) {
    for (const i of order) {
      if (rest.isZero()) break;
      const step = Dec.min(unit, rest, owed[i]!.minus(shares[i]!));
      if (step.lte(0)) continue;
      shares[i] = shares[i]!.plus(step);
      rest = rest.minus(step);
    }
  }
  return shares;
}

/** What is still owed on a debit. */
export function debitOpen(d: OpenDebit): Dec {
  return d.lines.reduce((s, l) => s.plus(l.open), new Dec(0));
}
