// release-deposits: the deposits of a terminated subscription released by hand, for the
// case the bill run cannot see: a final bill that will never come (the template billed no
// more, its terms made no longer). A posting releases them on its own otherwise
// (deposits.ts, releaseDepositsOfTerm), and a termination whose final bill is out already.
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { invalidState, notFound } from '../errors.ts';
import { appMoney, money } from '../ledger/common.ts';
import { Dec } from '../rating/money.ts';
import { releaseDeposits } from './deposits.ts';

export type ReleaseResult = { released: number; unpaid: string; applied: string; refunded: string };

/**
 * Releases now what a terminated subscription holds: each deposit's unpaid part cancelled,
 * what was held applied to its open bills (oldest due first) and the rest refunded, as a
 * posting would. A live subscription is INVALID_STATE (its deposits are released when it is
 * terminated and billed), as is one holding nothing (released already).
 */
export async function releaseHeldDeposits(db: pg.Pool, caller: Caller, d: { subscriptionID: number }): Promise<ReleaseResult> {
  const { minorUnits } = await appMoney(db, caller.appCode);
  return inTransaction(db, async (tx) => {
    // The subscription locked first (as a termination locks it, then the accounts), so a
    // termination and this release of the same subscription run one after the other.
    const s = await tx.query<{ subscription_id: string; status: string }>(
      'SELECT subscription_id, status FROM subscription WHERE app_code = $1 AND subscription_id = $2 FOR UPDATE',
      [caller.appCode, d.subscriptionID],
    );
    const sub = s.rows[0];
    if (!sub) throw notFound('subscription', 'data.subscriptionID');
    if (sub.status !== 'terminated') {
      throw invalidState(`Subscription ${sub.subscription_id} is ${sub.status}; its deposits are released once it is terminated.`, 'data.subscriptionID');
    }
    const outcomes = await releaseDeposits(tx, caller.appCode, [sub.subscription_id], caller.email);
    if (outcomes.length === 0) throw invalidState(`Subscription ${sub.subscription_id} holds no deposit: none was charged, or it was released already.`, 'data.subscriptionID');
    const sum = (k: 'unpaid' | 'applied' | 'refunded') => money(outcomes.reduce((t, o) => t.plus(o[k]), new Dec(0)), minorUnits);
    return { released: outcomes.length, unpaid: sum('unpaid'), applied: sum('applied'), refunded: sum('refunded') };
  });
}
