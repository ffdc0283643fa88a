// The payments' events (docs/webhooks.md), written in the transaction that records or
// reverses the payments.
import type { Queryable } from '../db/pool.ts';
import { recordEvents } from '../events/record.ts';

const paymentKey = (id: string) => `payment:${id}`;

/** payment.received, one per payment, in the order given. */
export async function recordPaymentsReceived(tx: Queryable, appCode: number, paymentIds: readonly string[]): Promise<void> {
  if (paymentIds.length === 0) return;
  const r = await tx.query<{ payment_id: string; data: Record<string, unknown> }>(
    `SELECT p.payment_id,
            jsonb_build_object('paymentID', p.payment_id, 'reference', p.reference, 'accountID', p.account_id,
                               'accountNumber', ac.account_number, 'amount', round(p.amount, a.minor_units)::text,
                               'paymentDate', to_char(p.payment_date, 'DD/MM/YYYY'), 'channel', p.channel,
                               'importID', p.import_id) AS data
       FROM unnest($2::bigint[]) WITH ORDINALITY AS u(id, n)
       JOIN payment p ON p.payment_id = u.id AND p.app_code = $1
       JOIN account ac ON ac.account_id = p.account_id JOIN app a ON a.app_code = p.app_code
      ORDER BY u.n`,
    [appCode, paymentIds],
  );
  await recordEvents(tx, appCode, 'payment.received', r.rows.map((x) => ({ orderKey: paymentKey(x.payment_id), data: x.data })));
}

/** payment.reversed. */
export async function recordPaymentReversed(tx: Queryable, appCode: number, paymentId: string): Promise<void> {
  const r = await tx.query<{ data: Record<string, unknown> }>(
    `SELECT jsonb_build_object('paymentID', p.payment_id, 'reference', p.reference, 'accountID', p.account_id,
                               'accountNumber', ac.account_number, 'amount', round(p.amount, a.minor_units)::text,
                               'reason', rv.reason, 'reversalDate', to_char(rv.reversal_date, 'DD/MM/YYYY')) AS data
       FROM payment p JOIN payment_reversal rv ON rv.payment_id = p.payment_id
       JOIN account ac ON ac.account_id = p.account_id JOIN app a ON a.app_code = p.app_code
      WHERE p.payment_id = $2 AND p.app_code = $1`,
    [appCode, paymentId],
  );
  await recordEvents(tx, appCode, 'payment.reversed', r.rows.map((x) => ({ orderKey: paymentKey(paymentId), data: x.data })));
}
