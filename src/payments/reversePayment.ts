import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { recordPaymentReversed } from './events.ts';
import { AppError, notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appMoney } from '../ledger/common.ts';
import { formatDate, readPastDate } from '../calendar/calendar.ts';
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
    // Both given: they must name the same payment. The reference was ignored, and a
    // reversal meant for AM-P1 took AM-P2 back (an attacker's finding).
    if (input.paymentID !== undefined && input.reference !== undefined && payment.reference !== input.reference) {
      throw validationFailed([{ path: 'data.reference', message: `names another payment than paymentID ${input.paymentID} (whose reference is "${payment.reference}"); give one of them` }]);
    }
    // Taken back on or after the day it was paid: dated before, the statement owed the
    // payment back before it was made (an attacker's reversal of 01/01/2020).
    if (date < payment.payment_date) {
      throw validationFailed([{ path: 'data.reversalDate', message: `must not be before the payment's date ${formatDate(payment.payment_date)}` }]);
    }
    const reversed = !payment.reversed && (await insertReversal(tx, caller.appCode, payment, reason, date, caller.email));
    if (!reversed) throw new AppError('INVALID_STATE', `Payment "${payment.reference}" is reversed already.`, [{ path, message: 'is reversed already' }]);
    await settleTheseAccounts(tx, caller.appCode, [payment.account_id], caller.email);
    await recordPaymentReversed(tx, caller.appCode, payment.payment_id);
    return payment.payment_id;
  });
}
