import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appToday } from '../calendar/calendar.ts';
import { correctBills, correctionSummary } from './correctBills.ts';
import { lockCorrection } from './lockCorrection.ts';
import type { LockedBill } from './store.ts';

/**
 * Why a bill cannot be cancelled, as the error the caller gets (path: where its id was given).
 * The bill is named by its number and its id: a caller sends the id, and "Bill 5" named
 * another bill than billID 5 once runs and dry runs had used ids (a new user's walk).
 */
export function refuseUncancellable(b: LockedBill, path: string): void {
  if (b.status === 'cancelled') {
    throw invalidState(`Bill ${b.bill_number} (billID ${b.bill_id}) was cancelled already, by credit note ${b.credit_note_number}; a bill is cancelled once.`, path);
  }
  if (b.status !== 'posted') {
    throw invalidState(`Bill ${b.bill_number} (billID ${b.bill_id}) is ${b.status}; only a posted bill is cancelled by a credit note (reverse-term withdraws an unposted run's bills).`, path);
  }
}

/**
 * cancel-bill: one posted bill cancelled by a credit note and, unless rebill is false,
 * billed again; with it, the later Prepaid bills that settled its advance
 * (lockCorrection.ts). With dryRun, what it would do, and nothing written: an officer
 * rebilled a bill whose reading had not been corrected, and the customer got a credit note
 * and the same bill again.
 */
export async function cancelBill(db: pg.Pool, caller: Caller, d: { billID: number; reason: string; rebill?: boolean; dryRun?: boolean }) {
  try {
    return await correct(db, caller, d);
  } catch (err) {
    if (err instanceof DryRun) return err.summary;
    throw err;
  }
}

/**
 * A dry run's answer, thrown out of the transaction so that everything it wrote (the credit
 * note and its number, the rebill, the settlement, the events) is rolled back: the same code
 * works the correction out either way, and the numbers stay without gaps.
 */
class DryRun extends Error {
  readonly summary: ReturnType<typeof correctionSummary>;
  constructor(summary: ReturnType<typeof correctionSummary>) {
    super('dry run');
    this.summary = summary;
  }
}

async function correct(db: pg.Pool, caller: Caller, d: { billID: number; reason: string; rebill?: boolean; dryRun?: boolean }) {
  return inTransaction(db, async (tx) => {
    const found = await tx.query<{ term_id: string; minor_units: number }>(
      'SELECT b.term_id, a.minor_units FROM bill b JOIN app a ON a.app_code = b.app_code WHERE b.app_code = $1 AND b.bill_id = $2',
      [caller.appCode, d.billID],
    );
    if (found.rowCount === 0) throw notFound('bill', 'data.billID');
    // Lock order as the bill run's: the terms, then their bills. Two cancels of one bill
    // take turns here; the second finds it cancelled.
    const rebill = d.rebill ?? true;
    const groups = await lockCorrection(tx, caller.appCode, await appToday(tx, caller.appCode), {
      targets: async () => ({ termIds: [found.rows[0]!.term_id], billIds: [String(d.billID)] }),
      check: ({ bills }) => refuseUncancellable(bills[0]!, 'data.billID'),
      rebill,
      path: 'data.billID',
    });
    const corrected = await correctBills(tx, groups, { reason: d.reason, rebill, origin: 'cancel-bill', by: caller.email, at: 'data.billID' });
    const summary = correctionSummary(corrected, found.rows[0]!.minor_units);
    if (d.dryRun) throw new DryRun(summary);
    return summary;
  });
}
