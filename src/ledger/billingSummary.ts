// What a bill prints from the ledger besides its own charges: the balance brought
// forward (account.balance, the sum of the entries) and what happened since the
// account's last posted bill (payments net of reversals, adjustments, deposit entries),
// and the security deposits held apart from the balance.
import type { Queryable } from '../db/pool.ts';

export type SinceLastBill = {
  balance: string;
  /** The last posted bill's entry date (yyyy-mm-dd), null before the first bill. */
  lastBillDate: string | null;
  /** Payments since then, less the reversals since then; positive. */
  payments: string;
  /** Adjustments since then, the credit notes of cancelled bills (corrections/) among them: > 0 debit notes outweigh credit notes. */
  adjustments: string;
  /** Deposit entries since then (src/deposits/): charges, less releases, plus refunds; their net is in the balance. */
  deposits: string;
  /** Security deposits paid and held now, apart from the balance (not credit). */
  heldDeposit: string;
};

/**
 * For each account, set-based in one statement: its balance and the payments and
 * adjustments entered after its last bill entry. Costs one index probe per account on
 * ledger_entry (account_id, entry_date, entry_id) plus its entries since that bill.
 */
export async function paymentsSinceLastBill(db: Queryable, appCode: number, accountIds: readonly string[]): Promise<Map<string, SinceLastBill>> {
  if (accountIds.length === 0) return new Map();
  const r = await db.query<{ account_id: string; balance: string; last_bill_date: string | null; payments: string; adjustments: string; deposits: string; held_deposit: string }>(
    `WITH last AS (
       SELECT ac.account_id, ac.balance,
              (SELECT e.entry_id FROM ledger_entry e WHERE e.account_id = ac.account_id AND e.kind = 'bill'
                ORDER BY e.entry_date DESC, e.entry_id DESC LIMIT 1) AS last_bill
         FROM account ac
        WHERE ac.app_code = $1 AND ac.account_id = ANY($2::bigint[]))
     SELECT l.account_id, l.balance, lb.entry_date AS last_bill_date,
            coalesce(-sum(e.amount) FILTER (WHERE e.kind IN ('payment', 'payment_reversal')), 0) AS payments,
            coalesce(sum(e.amount) FILTER (WHERE e.kind IN ('adjustment', 'bill_reversal')), 0) AS adjustments,
            coalesce(sum(e.amount) FILTER (WHERE e.kind IN ('deposit', 'deposit_release', 'deposit_refund')), 0) AS deposits,
            (SELECT coalesce(sum(d.amount - greatest(coalesce(o.open_amount, 0), 0)), 0)
               FROM deposit d LEFT JOIN open_item o ON o.entry_id = d.charge_entry_id
              WHERE d.account_id = l.account_id AND d.released_on IS NULL) AS held_deposit
       FROM last l
       LEFT JOIN ledger_entry lb ON lb.entry_id = l.last_bill
       LEFT JOIN ledger_entry e ON e.account_id = l.account_id AND e.entry_id > coalesce(l.last_bill, 0)
      GROUP BY l.account_id, l.balance, lb.entry_date`,
    [appCode, accountIds],
  );
  return new Map(
    r.rows.map((x) => [
      x.account_id,
      { balance: x.balance, lastBillDate: x.last_bill_date, payments: x.payments, adjustments: x.adjustments, deposits: x.deposits, heldDeposit: x.held_deposit },
    ]),
  );
}
