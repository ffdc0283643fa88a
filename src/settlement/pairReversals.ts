// A bill's reversal (a credit note's entry) paired with the bill it reverses, set-based,
// when nothing else had settled the bill: exactly the allocation the core would make
// (a reversal pays the entry it reverses first, method 'Reversal'), written for many
// accounts in two statements instead of loading each account's open items. Bills that
// had been (partly) paid are left to settleTheseAccounts, which releases what paid them
// first. Runs in the caller's transaction, on accounts it has locked. The method in force
// recorded is that of the reversed bill's template (the pair is the bill being settled).
import type { Queryable } from '../db/pool.ts';
import { DEFAULT_METHOD, REVERSAL_METHOD } from './core.ts';

/**
 * Pairs each of these reversal entries with the entry it reverses when both are still
 * wholly open. Answers the reversal entries paired (the others need settleTheseAccounts).
 */
export async function pairWholeReversals(db: Queryable, appCode: number, reversalEntryIds: readonly string[], by: string): Promise<Set<string>> {
  if (reversalEntryIds.length === 0) return new Set();
  const r = await db.query<{ reversal: string; original: string }>(
    `WITH pairs AS (
       SELECT rv.entry_id AS reversal, og.entry_id AS original, og.account_id, og.bill_id, og.amount,
              coalesce(v.definition->>'paymentSettlementMethod', $5) AS settlement_method
         FROM unnest($2::bigint[]) AS t(entry_id)
         JOIN ledger_entry rv ON rv.entry_id = t.entry_id
         JOIN ledger_entry og ON og.entry_id = rv.reverses_entry_id
         JOIN open_item ro ON ro.entry_id = rv.entry_id AND ro.open_amount = rv.amount
         JOIN open_item oo ON oo.entry_id = og.entry_id AND oo.open_amount = og.amount
         LEFT JOIN bill b ON b.bill_id = og.bill_id AND og.kind = 'bill'
         LEFT JOIN term bt ON bt.term_id = b.term_id
         LEFT JOIN service sv ON sv.service_id = bt.service_id
         LEFT JOIN service_version v ON v.service_id = sv.service_id AND v.version = sv.current_version
        WHERE rv.app_code = $1 AND rv.amount = -og.amount AND og.amount <> 0),
     made AS (
       INSERT INTO allocation (app_code, account_id, credit_entry_id, debit_entry_id, bill_id, amount, method, settlement_method, allocated_by)
       SELECT $1, account_id, CASE WHEN amount > 0 THEN reversal ELSE original END, CASE WHEN amount > 0 THEN original ELSE reversal END,
              bill_id, abs(amount), $3, settlement_method, $4
         FROM pairs ORDER BY reversal
       RETURNING credit_entry_id, debit_entry_id)
     SELECT reversal, original FROM pairs`,
    [appCode, reversalEntryIds, REVERSAL_METHOD, by, DEFAULT_METHOD],
  );
  if (r.rows.length > 0) {
    await db.query('DELETE FROM open_item WHERE entry_id = ANY($1::bigint[])', [[...r.rows.map((x) => x.reversal), ...r.rows.map((x) => x.original)]]);
  }
  return new Set(r.rows.map((x) => x.reversal));
}
