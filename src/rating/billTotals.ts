// A run's totals: sums of its bills' amounts, each already rounded line by line, so the
// term's totals add up to the bills as printed (validate-term's preview and the chunks'
// progress add the same way).
import { DECIMAL_TEXT, Dec } from './money.ts';
import type { RatedBill } from './rateBill.ts';

export const TOTAL_FIELDS = ['charges', 'tax', 'total', 'balanceBroughtForward', 'totalDue'] as const;
export type TotalField = (typeof TOTAL_FIELDS)[number];

/**
 * An exact sum of decimal texts, as an integer of units of 10^-scale: adding a bill's five
 * amounts as Decimals (each text parsed into one first) was about 2.4 µs a bill of a worker's
 * 33, against 0.4 µs as integers (issue 15). No rounding: the scale grows to the finest text added.
 */
type Sum = { units: bigint; scale: number };
export type BillTotals = Record<TotalField, Sum>;

function add(sum: Sum, text: string): void {
  // A bill's amounts are plain decimal text (formatMoney); anything else as Decimal reads it.
  const s = DECIMAL_TEXT.test(text) ? text : new Dec(text).toFixed();
  const dot = s.indexOf('.');
  const scale = dot < 0 ? 0 : s.length - dot - 1;
  let units = BigInt(dot < 0 ? s : s.slice(0, dot) + s.slice(dot + 1));
  if (scale > sum.scale) {
    sum.units *= 10n ** BigInt(scale - sum.scale);
    sum.scale = scale;
  } else if (scale < sum.scale) units *= 10n ** BigInt(sum.scale - scale);
  sum.units += units;
}

function decimalOf(sum: Sum): Dec {
  if (sum.scale === 0) return new Dec(sum.units.toString());
  const negative = sum.units < 0n;
  const digits = (negative ? -sum.units : sum.units).toString().padStart(sum.scale + 1, '0');
  return new Dec(`${negative ? '-' : ''}${digits.slice(0, -sum.scale)}.${digits.slice(-sum.scale)}`);
}

/** The sums of the bills' amounts, added to `to` when given (a run adds chunk by chunk). */
export function sumBills(bills: Iterable<Pick<RatedBill, TotalField>>, to?: BillTotals): BillTotals {
  const sum = to ?? (Object.fromEntries(TOTAL_FIELDS.map((k) => [k, { units: 0n, scale: 0 }])) as BillTotals);
  for (const bill of bills) for (const k of TOTAL_FIELDS) add(sum[k], bill[k]);
  return sum;
}

/** The totals as decimal text: at `minorUnits` decimals when given, else as exact as they are. */
export function totalsText(t: BillTotals, minorUnits?: number): Record<TotalField, string> {
  return Object.fromEntries(TOTAL_FIELDS.map((k) => [k, minorUnits === undefined ? decimalOf(t[k]).toFixed() : decimalOf(t[k]).toFixed(minorUnits)])) as Record<TotalField, string>;
}
