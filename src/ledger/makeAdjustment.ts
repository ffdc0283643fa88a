import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { AppError, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import { addAdjustmentEntry } from './store.ts';
import { appMoney, findAccount, readAmount, type AccountRef } from './common.ts';
import { readPastDate } from '../calendar/calendar.ts';

export type AdjustmentInput = AccountRef & {
  kind: 'credit' | 'debit';
  amount: string | number;
  reason: string;
  adjustmentDate?: string | undefined;
  billID?: number | undefined;
};

/**
 * A credit note (lowers what the customer owes) or a debit note (raises it): one
 * ledger entry and its adjustment row with the reason and the user, then settlement.
 * A credit note tied to a bill pays that bill first; a debit note is due on its date.
 */
export async function makeAdjustment(db: pg.Pool, caller: Caller, input: AdjustmentInput): Promise<string> {
  const { minorUnits, today } = await appMoney(db, caller.appCode);
  const issues: ErrorDetail[] = [];
  const amount = readAmount(input.amount, minorUnits, 'data.amount', issues);
  const date = input.adjustmentDate === undefined ? today : readPastDate(input.adjustmentDate, 'data.adjustmentDate', issues, today);
  const reason = input.reason.trim();
  if (reason === '') issues.push({ path: 'data.reason', message: 'must not be blank' });
  if (issues.length > 0 || amount === null || date === null) throw validationFailed(issues, 'The adjustment is not valid.');
  return inTransaction(db, async (tx) => {
    const account = await findAccount(tx, caller.appCode, input, 'data', true);
    if (input.billID !== undefined) {
      const bill = await tx.query<{ account_id: string; status: string }>('SELECT account_id, status FROM bill WHERE app_code = $1 AND bill_id = $2', [
        caller.appCode,
        input.billID,
      ]);
      const b = bill.rows[0];
      if (!b) throw notFound('bill', 'data.billID');
      if (b.account_id !== account.account_id) throw validationFailed([{ path: 'data.billID', message: 'is a bill of another account' }]);
      if (b.status !== 'posted') {
        throw new AppError('INVALID_STATE', `The bill is ${b.status}; only a posted bill can be adjusted.`, [{ path: 'data.billID', message: `is ${b.status}` }]);
      }
    }
    const signed = input.kind === 'credit' ? amount.neg() : amount;
    const entryId = await addAdjustmentEntry(tx, {
      appCode: caller.appCode,
      accountId: account.account_id,
      date,
      amount: signed.toFixed(),
      billId: input.billID ?? null,
      description: `${input.kind === 'credit' ? 'Credit' : 'Debit'} note: ${reason}`,
      by: caller.email,
    });
    const adj = await tx.query<{ adjustment_id: string }>(
      `INSERT INTO adjustment (app_code, account_id, kind, amount, adjustment_date, reason, bill_id, entry_id, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING adjustment_id`,
      [caller.appCode, account.account_id, input.kind, amount.toFixed(), date, reason, input.billID ?? null, entryId, caller.email],
    );
    await settleAccounts(tx, caller.appCode, [account.account_id], caller.email);
    return adj.rows[0]!.adjustment_id;
  });
}
