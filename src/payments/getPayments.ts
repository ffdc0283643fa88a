import type { Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { Dec } from '../rating/money.ts';
import { appMoney, findAccount, money } from '../ledger/common.ts';
import { formatDate, readDate } from '../calendar/calendar.ts';
import type { PaymentRecord } from './schemas.ts';
import { listPayments, paymentAllocations, type AllocationRow } from './store.ts';

export type PaymentQuery = {
  paymentID?: number | undefined;
  reference?: string | undefined;
  accountNumber?: string | undefined;
  accountID?: number | undefined;
  importID?: number | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
  status?: 'Posted' | 'Reversed' | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
};

/** The app's payments, newest first, each with what it paid (and what a reversal took back). */
export async function getPayments(db: Queryable, caller: Caller, q: PaymentQuery) {
  const issues: ErrorDetail[] = [];
  const fromDate = q.fromDate === undefined ? undefined : (readDate(q.fromDate, 'data.fromDate', issues) ?? undefined);
  const toDate = q.toDate === undefined ? undefined : (readDate(q.toDate, 'data.toDate', issues) ?? undefined);
  if (issues.length > 0) throw validationFailed(issues);
  const accountId =
    q.accountNumber !== undefined || q.accountID !== undefined ? (await findAccount(db, caller.appCode, q)).account_id : undefined;
  const { minorUnits } = await appMoney(db, caller.appCode);
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const { rows, total } = await listPayments(
    db,
    caller.appCode,
    { paymentID: q.paymentID, reference: q.reference, accountId, importID: q.importID, fromDate, toDate, status: q.status },
    limit,
    offset,
  );
  const allocations = await paymentAllocations(
    db,
    rows.map((r) => r.payment_id),
  );
  const byPayment = new Map<string, AllocationRow[]>();
  for (const a of allocations) byPayment.set(a.payment_id, [...(byPayment.get(a.payment_id) ?? []), a]);
  const payments: PaymentRecord[] = rows.map((r) => {
    const own = byPayment.get(r.payment_id) ?? [];
    const applied = own.filter((a) => a.released_at === null && a.method !== 'Reversal').reduce((s, a) => s.plus(a.amount), new Dec(0));
    return {
      paymentID: Number(r.payment_id),
      appCode: r.app_code,
      accountID: Number(r.account_id),
      accountNumber: r.account_number,
      reference: r.reference,
      amount: money(r.amount, minorUnits),
      paymentDate: formatDate(r.payment_date),
      channel: r.channel,
      cashAccountID: r.cash_account_id,
      description: r.description,
      status: r.reason === null ? 'Posted' : 'Reversed',
      applied: money(applied, minorUnits),
      unapplied: money(r.unapplied, minorUnits),
      importID: r.import_id === null ? null : Number(r.import_id),
      importRow: r.import_row,
      reversal:
        r.reason === null
          ? null
          : { reason: r.reason, reversalDate: formatDate(r.reversal_date!), reversedAt: r.reversed_at!, reversedBy: r.reversed_by! },
      allocations: own.map((a) => ({
        billID: a.bill_id === null ? null : Number(a.bill_id),
        billNumber: a.bill_number === null ? null : Number(a.bill_number),
        kind: a.debit_kind,
        lineNo: a.line_no,
        componentCode: a.component_code,
        amount: money(a.amount, minorUnits),
        method: a.method,
        settlementMethod: a.settlement_method,
        allocatedAt: a.allocated_at,
        releasedAt: a.released_at,
        releaseReason: a.release_reason,
      })),
      createdAt: r.created_at,
      createdBy: r.created_by,
    };
  });
  return { payments, paging: { limit, offset, total } };
}
