// get-late-charges: the late charges made, newest first, of the app, an account or a bill,
// each with its trace (bill, overdue amount, rule, computation).
import type { Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { formatDate } from '../calendar/calendar.ts';
import { shownTrace, type StoredLateChargeTrace } from './trace.ts';
import { findAccount, money, type AccountRef } from '../ledger/common.ts';

export type LateChargeQuery = AccountRef & { billID?: number | undefined; limit?: number | undefined; offset?: number | undefined };

export async function getLateCharges(db: Queryable, caller: Caller, q: LateChargeQuery) {
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const accountId = q.accountNumber !== undefined || q.accountID !== undefined ? (await findAccount(db, caller.appCode, q)).account_id : null;
  const where = `lc.app_code = $1 AND ($2::bigint IS NULL OR lc.account_id = $2) AND ($3::bigint IS NULL OR lc.bill_id = $3)`;
  const params = [caller.appCode, accountId, q.billID ?? null];
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM late_charge lc WHERE ${where}`, params)).rows[0]!.n;
  const r = await db.query<{
    late_charge_id: string;
    bill_id: string;
    bill_number: string;
    account_id: string;
    account_number: string;
    charge_date: string;
    due_date: string;
    service_version_id: string;
    overdue: string;
    amount: string;
    entry_id: string;
    trace: StoredLateChargeTrace;
    minor_units: number;
    reversal_entry_id: string | null;
    credit_note_id: string | null;
    credit_note_number: string | null;
    reversal_date: string | null;
  }>(
    `SELECT lc.late_charge_id, lc.bill_id, b.bill_number, lc.account_id, ac.account_number, lc.charge_date, b.due_date, lc.service_version_id, lc.overdue, lc.amount,
            lc.entry_id, lc.trace, a.minor_units, r.entry_id AS reversal_entry_id, cn.credit_note_id, cn.credit_note_number,
            cn.credit_date AS reversal_date
       FROM late_charge lc
       JOIN bill b ON b.bill_id = lc.bill_id
       JOIN account ac ON ac.account_id = lc.account_id
       JOIN app a ON a.app_code = lc.app_code
       LEFT JOIN late_charge_reversal r ON r.late_charge_id = lc.late_charge_id
       -- the credit note that cancelled the bill reversed its charge (migration 093)
       LEFT JOIN credit_note cn ON cn.bill_id = lc.bill_id AND r.late_charge_id IS NOT NULL
      WHERE ${where}
      ORDER BY lc.late_charge_id DESC
      LIMIT $4 OFFSET $5`,
    [...params, limit, offset],
  );
  return {
    lateCharges: r.rows.map((x) => ({
      lateChargeID: Number(x.late_charge_id),
      billID: Number(x.bill_id),
      billNumber: Number(x.bill_number),
      accountID: Number(x.account_id),
      accountNumber: x.account_number,
      chargeDate: formatDate(x.charge_date),
      overdue: money(x.overdue, x.minor_units),
      amount: money(x.amount, x.minor_units),
      entryID: Number(x.entry_id),
      trace: shownTrace(x),
      reversed:
        x.reversal_entry_id === null
          ? null
          : { entryID: Number(x.reversal_entry_id), creditNoteID: Number(x.credit_note_id), creditNoteNumber: Number(x.credit_note_number), date: formatDate(x.reversal_date!) },
    })),
    paging: { limit, offset, total },
  };
}
