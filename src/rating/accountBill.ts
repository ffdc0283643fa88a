// A Post Account bill: one bill for an account's subscriptions in a term, made of the
// subscriptions' own rated bills (rateBill), each kept as a group with its subtotal.
// Every amount is a sum of rounded lines, so the account's amounts are exact sums of its
// groups' and nothing is rounded again. The balance brought forward is the account's,
// counted once (each group's rateBill was given the same balance: it is not summed).
import { checkAmountLimit, Dec, formatMoney, minorUnitsOf } from './money.ts';
import type { RatedBill } from './rateBill.ts';
import type { RatedLine } from './rateLine.ts';

/** One subscription's part of an account bill. */
export type AccountBillGroup = {
  subscriptionId: string;
  /** How many of the account bill's lines (in order) are this subscription's. */
  lineCount: number;
  periodStart: string;
  periodEnd: string;
  charges: string;
  tax: string;
  /** The group's subtotal: charges + tax. */
  total: string;
  estimated: boolean;
};

export type AccountBill = {
  /** Every group's lines, group after group (in subscription id order), each in the template's component order. */
  lines: RatedLine[];
  groups: AccountBillGroup[];
  charges: string;
  tax: string;
  total: string;
  balanceBroughtForward: string;
  totalDue: string;
  estimated: boolean;
  /** From the earliest group's start to the latest group's end. */
  activePeriod: { start: string; end: string };
};

/**
 * The account bill of an account's rated subscription bills (at least one), given in
 * subscription id order. `balance` is the account's balance when they were rated.
 */
export function accountBill(subscriptions: { subscriptionId: string; bill: RatedBill }[], balance: string, minorUnits: number): AccountBill {
  if (subscriptions.length === 0) throw new Error('an account bill needs at least one subscription');
  let charges = new Dec(0);
  let tax = new Dec(0);
  let estimated = false;
  let start = subscriptions[0]!.bill.activePeriod.start;
  let end = subscriptions[0]!.bill.activePeriod.end;
  const lines: RatedLine[] = [];
  const groups: AccountBillGroup[] = [];
  for (const { subscriptionId, bill } of subscriptions) {
    charges = charges.plus(bill.charges);
    tax = tax.plus(bill.tax);
    estimated ||= bill.estimated;
    if (bill.activePeriod.start < start) start = bill.activePeriod.start;
    if (bill.activePeriod.end > end) end = bill.activePeriod.end;
    for (const l of bill.lines) lines.push(l);
    groups.push({
      subscriptionId,
      lineCount: bill.lines.length,
      periodStart: bill.activePeriod.start,
      periodEnd: bill.activePeriod.end,
      charges: bill.charges,
      tax: bill.tax,
      total: bill.total,
      estimated: bill.estimated,
    });
  }
  const total = charges.plus(tax);
  const bbf = new Dec(balance);
  // Each subscription's bill was checked; their sum is the account bill's, checked too.
  checkAmountLimit(minorUnitsOf(formatMoney(total, minorUnits), minorUnits) as bigint, minorUnits, 'the total');
  checkAmountLimit(minorUnitsOf(formatMoney(total.plus(bbf), minorUnits), minorUnits) as bigint, minorUnits, 'the total due');
  return {
    lines,
    groups,
    charges: formatMoney(charges, minorUnits),
    tax: formatMoney(tax, minorUnits),
    total: formatMoney(total, minorUnits),
    balanceBroughtForward: formatMoney(bbf, minorUnits),
    totalDue: formatMoney(total.plus(bbf), minorUnits),
    estimated,
    activePeriod: { start, end },
  };
}
