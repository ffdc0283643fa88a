// A late charge goes with the bill it was charged on (docs/late-charges.md, "When the
// bill is cancelled"): when a credit note cancels the bill, the charge is reversed in the
// correction's transaction. The rebill is a new debt with its own due date; the daily job
// charges it when it is late in its turn (late_charge is UNIQUE per bill). Without this,
// the cancelled bill kept its charge and its rebill was charged again: one debt, two late
// charges (issue 12). Called by corrections/correctBills.ts only, on bills and accounts it
// has locked, before the rebill is rated (it brings forward the balance without the
// charge) and before settlement runs over those accounts. The credit note is found by the
// bill (credit_note.bill_id is unique), so its row may be written after this.
import type { Queryable } from '../db/pool.ts';
import { addLateChargeReversalEntries } from '../ledger/store.ts';
import { chargesToReverse, insertLateChargeReversals } from './store.ts';

export type CancelledBill = { billId: string; creditNoteNumber: string };

/** A late charge reversed: its amount and the entry that reverses it, by the cancelled bill. */
export type LateChargeReversed = { accountId: string; amount: string; entryId: string };

/**
 * Reverses the late charges of these cancelled bills, each by its bill's credit note:
 * one entry minus the charge (ledger/store.ts, the one writer) and its
 * late_charge_reversal row. Answers what was reversed, by bill.
 */
export async function reverseLateCharges(
  db: Queryable,
  appCode: number,
  bills: readonly CancelledBill[],
  date: string,
  by: string,
): Promise<Map<string, LateChargeReversed>> {
  const charges = await chargesToReverse(db, bills.map((b) => b.billId));
  if (charges.length === 0) return new Map();
  const noteOf = new Map(bills.map((b) => [b.billId, b]));
  const entries = await addLateChargeReversalEntries(db, {
    date,
    by,
    rows: charges.map((c) => ({
      chargeEntryId: c.entry_id,
      description: `Late payment charge on bill ${c.bill_number} reversed by credit note ${noteOf.get(c.bill_id)!.creditNoteNumber}`,
    })),
  });
  await insertLateChargeReversals(
    db,
    appCode,
    by,
    charges.map((c) => ({ lateChargeId: c.late_charge_id, entryId: entries.get(c.entry_id)! })),
  );
  return new Map(charges.map((c) => [c.bill_id, { accountId: c.account_id, amount: c.amount, entryId: entries.get(c.entry_id)! }]));
}
