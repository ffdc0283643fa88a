import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { recordPaymentReversed } from './events.ts';
import { AppError, notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appMoney } from '../ledger/common.ts';
import { readPastDate } from '../calendar/calendar.ts';
import { settleTheseAccounts } from '../settlement/settleAccounts.ts';
import { insertReversal, lockPayment } from './store.ts';

export type ReverseInput = { paymentID?: number | undefined; reference?: string | undefined; reason: string; reversalDate?: string | undefined };

/**
 * Takes a payment back (a bounced cheque): a payment_reversal entry of the same amount,
 * the reason kept. Settlement then releases what the payment had paid, so those bills
 * are open again, pairs the reversal with the payment, and lets any other credit of the
 * account pay the reopened bills. A payment is reversed at most once.
 */
export async function reversePayment(db: pg.Pool, caller: Caller, input: ReverseInput): Promise<string> {
  if (input.paymentID === undefined && input.reference === undefined) {
    throw validationFailed([{ path: 'data.reference', message: 'is required (or paymentID)' }]);
  }
  const { today } = await appMoney(db, caller.appCode);
  const issues: { path: string; message: string }[] = [];
  const date = input.reversalDate === undefined ? today : readPastDate(input.reversalDate, 'data.reversalDate', issues, today);
  if (date === null) throw validationFailed(issues);
  const reason = input.reason.trim();
  if (reason === '') throw validationFailed([{ path: 'data.reason', message: 'must not be blank' }]);
  const path = input.paymentID !== undefined ? 'data.paymentID' : 'data.reference';
  return inTransaction(db, async (tx) => {
    const payment = await lockPayment(tx, caller.appCode, input);
    if (!payment) throw notFound('payment', path);
    const reversed = !payment.reversed && (await insertReversal(tx, caller.appCode, payment, reason, date, caller.email));
    if (!reversed) throw new AppError('INVALID_STATE', `Payment "${payment.reference}" is reversed already.`, [{ path, message: 'is reversed already' }]);
    await settleTheseAccounts(tx, caller.appCode, [payment.account_id], caller.email);
    await recordPaymentReversed(tx, caller.appCode, payment.payment_id);
    return payment.payment_id;
  });
}
