// The deposits of an app as the API shows them, and the pay-out of refunds by a payment
// run: list the refunds due (refundDue: true), pay them, record each pay-out once.
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { conflict, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import { appMoney, findAccount, money, type AccountRef } from '../ledger/common.ts';
import { formatDate, readPastDate } from '../calendar/calendar.ts';
import { Dec } from '../rating/money.ts';
import { heldOf } from './core.ts';

export type DepositQuery = AccountRef & {
  subscriptionID?: number | undefined;
  status?: 'Held' | 'Released' | undefined;
  refundDue?: boolean | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
};

type DepositRow = {
  deposit_id: string;
  account_id: string;
  account_number: string;
  subscription_id: string;
  charged_subscription_id: string;
  amount: string;
  charge_entry_id: string;
  charged_on: string;
  open_amount: string | null;
  ended_on: string | null;
  released_on: string | null;
  unpaid: string | null;
  applied: string | null;
  refunded: string | null;
  refund_entry_id: string | null;
  refund_paid_on: string | null;
  refund_paid_reference: string | null;
  refund_paid_by: string | null;
  total: string;
};

/** Deposits, newest first; refundDue: the refunds not yet paid out, oldest first (a payment run's list). */
export async function getDeposits(db: Queryable, caller: Caller, q: DepositQuery) {
  const { minorUnits } = await appMoney(db, caller.appCode);
  const account = q.accountNumber !== undefined || q.accountID !== undefined ? await findAccount(db, caller.appCode, q) : undefined;
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const params: unknown[] = [caller.appCode];
  const where = ['d.app_code = $1'];
  if (account) {
    params.push(account.account_id);
    where.push(`d.account_id = $${params.length}`);
  }
  if (q.subscriptionID !== undefined) {
    params.push(q.subscriptionID);
    where.push(`(d.subscription_id = $${params.length} OR d.charged_subscription_id = $${params.length})`);
  }
  if (q.status === 'Held') where.push('d.released_on IS NULL');
  if (q.status === 'Released') where.push('d.released_on IS NOT NULL');
  if (q.refundDue === true) where.push('d.refund_entry_id IS NOT NULL AND d.refund_paid_on IS NULL');
  if (q.refundDue === false) where.push('NOT (d.refund_entry_id IS NOT NULL AND d.refund_paid_on IS NULL)');
  const r = await db.query<DepositRow>(
    `SELECT d.deposit_id, d.account_id, ac.account_number, d.subscription_id, d.charged_subscription_id, d.amount, d.charge_entry_id,
            c.entry_date AS charged_on, o.open_amount, d.ended_on, d.released_on, d.unpaid, d.applied, d.refunded, d.refund_entry_id,
            d.refund_paid_on, d.refund_paid_reference, d.refund_paid_by, count(*) OVER () AS total
       FROM deposit d
       JOIN account ac ON ac.account_id = d.account_id
       JOIN ledger_entry c ON c.entry_id = d.charge_entry_id
       LEFT JOIN open_item o ON o.entry_id = d.charge_entry_id
      WHERE ${where.join(' AND ')}
      ORDER BY ${q.refundDue === true ? 'd.deposit_id' : 'd.deposit_id DESC'}
      LIMIT ${Number(limit)} OFFSET ${Number(offset)}`,
    params,
  );
  const m = (x: string | null) => (x === null ? null : money(x, minorUnits));
  return {
    deposits: r.rows.map((d) => {
      // While held: what payments have paid of it (held) and what is still owed (due);
      // once released, what it held then (applied + refunded) and nothing due.
      const unpaidNow = d.released_on === null ? Dec.max(0, new Dec(d.open_amount ?? 0)) : null;
      const held = unpaidNow === null ? new Dec(d.applied!).plus(d.refunded!) : heldOf(new Dec(d.amount), unpaidNow);
      return {
        depositID: Number(d.deposit_id),
        accountID: Number(d.account_id),
        accountNumber: d.account_number,
        subscriptionID: Number(d.subscription_id),
        chargedSubscriptionID: Number(d.charged_subscription_id),
        status: d.released_on === null ? ('Held' as const) : ('Released' as const),
        amount: money(d.amount, minorUnits),
        chargedOn: formatDate(d.charged_on),
        chargeEntryID: Number(d.charge_entry_id),
        held: money(held, minorUnits),
        due: money(unpaidNow ?? new Dec(0), minorUnits),
        endedOn: d.ended_on === null || d.released_on !== null ? null : formatDate(d.ended_on),
        releasedOn: d.released_on === null ? null : formatDate(d.released_on),
        unpaid: m(d.unpaid),
        applied: m(d.applied),
        refunded: m(d.refunded),
        refundEntryID: d.refund_entry_id === null ? null : Number(d.refund_entry_id),
        refundPaidOn: d.refund_paid_on === null ? null : formatDate(d.refund_paid_on),
        refundPaidReference: d.refund_paid_reference,
        refundPaidBy: d.refund_paid_by,
      };
    }),
    paging: { limit, offset, total: Number(r.rows[0]?.total ?? 0) },
  };
}

export type PayRefundsInput = { depositIDs: number[]; paidDate?: string | undefined; reference: string };

/**
 * Records that a payment run paid these refunds out (one transfer reference, a date).
 * All or nothing: a deposit that is not the app's, has no refund, or was paid out
 * already refuses the whole request, naming it. Answers how many were recorded.
 */
export async function payDepositRefunds(db: pg.Pool, caller: Caller, d: PayRefundsInput): Promise<number> {
  const issues: ErrorDetail[] = [];
  const { today } = await appMoney(db, caller.appCode);
  const paidOn = d.paidDate === undefined ? today : readPastDate(d.paidDate, 'data.paidDate', issues, today);
  const ids = d.depositIDs.map(String);
  if (new Set(ids).size !== ids.length) issues.push({ path: 'data.depositIDs', message: 'lists a deposit twice' });
  if (issues.length > 0 || paidOn === null) throw validationFailed(issues);
  return inTransaction(db, async (tx) => {
    const r = await tx.query<{ deposit_id: string; refund_entry_id: string | null; refund_paid_on: string | null; refunded_on: string | null }>(
      `SELECT d.deposit_id, d.refund_entry_id, d.refund_paid_on, to_char(e.entry_date, 'YYYY-MM-DD') AS refunded_on
         FROM deposit d LEFT JOIN ledger_entry e ON e.entry_id = d.refund_entry_id
        WHERE d.app_code = $1 AND d.deposit_id = ANY($2::bigint[]) ORDER BY d.deposit_id FOR UPDATE OF d`,
      [caller.appCode, ids],
    );
    const found = new Map(r.rows.map((x) => [x.deposit_id, x]));
    ids.forEach((id, i) => {
      const x = found.get(id);
      if (!x) throw notFound('deposit', `data.depositIDs[${i}]`);
      if (x.refund_entry_id === null) issues.push({ path: `data.depositIDs[${i}]`, message: 'has no refund (not released, or all of it was applied)' });
      // Paid out on or after the day the refund was made (an attacker paid one out in 2000).
      else if (x.refunded_on !== null && paidOn < x.refunded_on) issues.push({ path: 'data.paidDate', message: `must not be before deposit ${id}'s refund of ${formatDate(x.refunded_on)}` });
    });
    if (issues.length > 0) throw validationFailed(issues);
    const paid = ids.findIndex((id) => found.get(id)!.refund_paid_on !== null);
    if (paid >= 0) throw conflict(`The refund of deposit ${ids[paid]} was paid out already.`, `data.depositIDs[${paid}]`);
    const u = await tx.query(
      `UPDATE deposit SET refund_paid_on = $3::date, refund_paid_reference = $4, refund_paid_by = $5
        WHERE app_code = $1 AND deposit_id = ANY($2::bigint[])`,
      [caller.appCode, ids, paidOn, d.reference, caller.email],
    );
    return u.rowCount ?? 0;
  });
}
