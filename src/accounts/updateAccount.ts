import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound, validationFailed } from '../errors.ts';
import { EMAIL_NEEDED, lacksEmail } from './rules.ts';
import type { Caller } from '../auth/roles.ts';
import { lockAccount, openSubscriptionCount, updateAccountRow } from './store.ts';

export type AccountChanges = {
  accountNumber: string;
  name?: string;
  email?: string | null;
  phone?: string | null;
  address?: string | null;
  deliveryPreference?: 'email' | 'print' | 'both' | 'none';
  status?: 'active' | 'closed';
};

/**
 * Changes an account's contact details or status. The balance is not among them: only
 * ledger entries move it. An account is closed only when none of its subscriptions
 * could still be billed, so a bill run never bills a closed account.
 */
export async function updateAccount(db: pg.Pool, caller: Caller, c: AccountChanges): Promise<void> {
  await inTransaction(db, async (tx) => {
    const account = await lockAccount(tx, caller.appCode, c.accountNumber);
    if (!account) throw notFound('account', 'data.accountNumber');
    if (c.status === 'closed' && account.status !== 'closed') {
      const open = await openSubscriptionCount(tx, account.account_id);
      if (open > 0) throw invalidState(`The account has ${open} subscription(s) that are not terminated; terminate them before closing it.`, 'data.status');
    }
    // The account as it will be: bills by e-mail only keep an address (rules.ts EMAIL_NEEDED).
    // Asked only of a change to either: an account left so from before the rule can still be
    // renamed or closed (a reviewer), and is printed meanwhile (documents/printExtract.ts).
    const email = c.email !== undefined ? c.email : account.email;
    const touches = c.email !== undefined || c.deliveryPreference !== undefined;
    if (touches && lacksEmail(c.deliveryPreference ?? account.delivery_preference, email)) {
      throw validationFailed([{ path: c.email === null ? 'data.email' : 'data.deliveryPreference', message: EMAIL_NEEDED }]);
    }
    const { accountNumber: _, ...changes } = c;
    await updateAccountRow(tx, account.account_id, changes, caller.email);
  });
}
