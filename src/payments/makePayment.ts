import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { conflict, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appMoney, findAccount, readAmount } from '../ledger/common.ts';
import { readPastDate } from '../calendar/calendar.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import type { PaymentInput } from './schemas.ts';
import { insertPayments } from './store.ts';
import { recordPaymentsReceived } from './events.ts';

/**
 * Records one payment, its ledger entry, and settles it against the account's open
 * bills, in one transaction. A reference the app has used before is a CONFLICT and
 * records nothing, so a client that retries without an Idempotency-Key cannot pay twice.
 */
export async function makePayment(db: pg.Pool, caller: Caller, input: PaymentInput): Promise<string> {
  const { minorUnits, today } = await appMoney(db, caller.appCode);
  const issues: ErrorDetail[] = [];
  const amount = readAmount(input.amount, minorUnits, 'data.amount', issues);
  const date = input.paymentDate === undefined ? today : readPastDate(input.paymentDate, 'data.paymentDate', issues, today);
  if (issues.length > 0 || amount === null || date === null) throw validationFailed(issues, 'The payment is not valid.');
  return inTransaction(db, async (tx) => {
    const account = await findAccount(tx, caller.appCode, input);
    const [written] = await insertPayments(
      tx,
      caller.appCode,
      [
        {
          accountId: account.account_id,
          reference: input.reference,
          amount: amount.toFixed(),
          paymentDate: date,
          channel: input.channel,
          cashAccountId: input.cashAccountID ?? null,
          description: input.description ?? '',
          importRow: null,
        },
      ],
      null,
      caller.email,
    );
    if (!written) throw conflict(`A payment with reference "${input.reference}" is recorded already.`, 'data.reference');
    await settleAccounts(tx, caller.appCode, [account.account_id], caller.email);
    await recordPaymentsReceived(tx, caller.appCode, [written.payment_id]);
    return written.payment_id;
  });
}
