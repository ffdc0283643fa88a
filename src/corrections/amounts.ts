// The arithmetic of a correction, pure: what a credit note credits and what the
// correction changes on the account. No I/O; amounts are exact decimals.
import { Dec } from '../rating/money.ts';

export type BillAmounts = { charges: string; tax: string; total: string };

export type CreditNoteAmounts = {
  /** What the credit note prints: the cancelled bill's charges, tax and total (its amount). */
  charges: string;
  tax: string;
  amount: string;
  /** Its ledger entry: minus the bill's total (a bill of a credit gives a positive entry). */
  entryAmount: string;
};

/** The credit note that cancels a bill: the bill's own amounts, the entry reversing its total. */
export function creditNoteOf(bill: BillAmounts): CreditNoteAmounts {
  const charges = new Dec(bill.charges);
  const tax = new Dec(bill.tax);
  const total = new Dec(bill.total);
  // A bill's total is charges + tax (the table checks it); a credit note that did not
  // add up would leave the ledger and the printed note disagreeing.
  if (!charges.plus(tax).eq(total)) throw new Error(`bill total ${bill.total} is not charges ${bill.charges} + tax ${bill.tax}`);
  return { charges: charges.toFixed(), tax: tax.toFixed(), amount: total.toFixed(), entryAmount: total.neg().toFixed() };
}

export type CorrectionEffect = {
  /** Taken off the account by the credit note. */
  credited: string;
  /** Put back on it by the rebill (0 without one). */
  rebilled: string;
  /** rebilled - credited: what the account owes more (> 0) or less (< 0) after the correction. */
  change: string;
};

/** What cancelling `old` and billing `rebill` in its place (null: no rebill) does to the balance. */
export function correctionEffect(old: BillAmounts, rebill: BillAmounts | null): CorrectionEffect {
  const credited = new Dec(creditNoteOf(old).amount);
  const rebilled = rebill === null ? new Dec(0) : new Dec(creditNoteOf(rebill).amount);
  return { credited: credited.toFixed(), rebilled: rebilled.toFixed(), change: rebilled.minus(credited).toFixed() };
}

/** The sum of the effects of many corrections (a term's, a cascade's). */
export function sumEffects(effects: readonly CorrectionEffect[]): CorrectionEffect {
  let credited = new Dec(0);
  let rebilled = new Dec(0);
  for (const e of effects) {
    credited = credited.plus(e.credited);
    rebilled = rebilled.plus(e.rebilled);
  }
  return { credited: credited.toFixed(), rebilled: rebilled.toFixed(), change: rebilled.minus(credited).toFixed() };
}

/** The sum of amounts, none counting as zero (the late charges a correction reversed). */
export function sumAmounts(amounts: readonly (string | null)[]): string {
  let total = new Dec(0);
  for (const a of amounts) if (a !== null) total = total.plus(a);
  return total.toFixed();
}
