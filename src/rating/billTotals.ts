// A run's totals: sums of its bills' amounts, each already rounded line by line, so the
// term's totals add up to the bills as printed (validate-term's preview and the chunks'
// progress add the same way).
import { Dec } from './money.ts';
import type { RatedBill } from './rateBill.ts';

export const TOTAL_FIELDS = ['charges', 'tax', 'total', 'balanceBroughtForward', 'totalDue'] as const;
export type TotalField = (typeof TOTAL_FIELDS)[number];
export type BillTotals = Record<TotalField, Dec>;

/** The sums of the bills' amounts, added to `to` when given (a run adds chunk by chunk). */
export function sumBills(bills: Iterable<Pick<RatedBill, TotalField>>, to?: BillTotals): BillTotals {
  const sum = to ?? (Object.fromEntries(TOTAL_FIELDS.map((k) => [k, new Dec(0)])) as BillTotals);
  for (const bill of bills) for (const k of TOTAL_FIELDS) sum[k] = sum[k].plus(bill[k]);
  return sum;
}

/** The totals as decimal text: at `minorUnits` decimals when given, else as exact as they are. */
export function totalsText(t: BillTotals, minorUnits?: number): Record<TotalField, string> {
  return Object.fromEntries(TOTAL_FIELDS.map((k) => [k, minorUnits === undefined ? t[k].toFixed() : t[k].toFixed(minorUnits)])) as Record<TotalField, string>;
}
