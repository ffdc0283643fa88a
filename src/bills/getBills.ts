import type { Queryable } from '../db/pool.ts';
import { validationFailed } from '../errors.ts';
import { filters, statementName } from '../db/filters.ts';
import type { RatedLine } from '../rating/index.ts';
import { formatDate } from '../calendar/calendar.ts';
import { moneyText as money } from '../rating/money.ts';
import type { BillRecord, GetBillsData } from './schemas.ts';
import { explainLine, lineDays } from './explain.ts';
import { decodeBillRows } from '../billLines/storedLines.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import { accountBillFields, accountBillLines, groupInputsSql } from './accountBillRecord.ts';
import type { StoredGroup } from './accountBills.ts';

/** A bill's own columns as its readers select them (get-bills here, a bill's document in documents/). */
export type BillColumns = {
  bill_id: string;
  bill_number: string;
  bill_date: string;
  due_date: string;
  period_start: string;
  period_end: string;
  charges: string;
  tax: string;
  total: string;
  balance_brought_forward: string;
  total_due: string;
  estimated: boolean;
  lines: RatedLine[];
};

type BillRow = BillColumns & {
  term_id: string;
  subscription_id: string | null;
  groups: StoredGroup[] | null;
  connection_inputs: Record<string, Record<string, unknown>> | null;
  account_id: string;
  account_number: string;
  account_name: string;
  status: 'draft' | 'posted' | 'withdrawn';
  posted_at: string | null;
  minor_units: number;
  corrects_bill_id: string | null;
  cn_id: string | null;
  cn_number: string | null;
  cn_date: string | null;
  cn_amount: string | null;
  cn_reason: string | null;
  cn_rebill_id: string | null;
};

/** Bills of the caller's app by term, account, bill id or number, each with its lines and their explanation. */
export async function getBills(db: Queryable, appCode: number, f: GetBillsData): Promise<BillRecord[]> {
  if (f.termID === undefined && f.accountID === undefined && f.accountNumber === undefined && f.billID === undefined && f.billNumber === undefined && f.subscriptionID === undefined) {
    throw validationFailed([{ path: 'data', message: 'give termID, accountID, accountNumber, billID, billNumber or subscriptionID' }]);
  }
  const w = filters('b.app_code = $1', appCode);
  if (f.termID !== undefined) w.add((p) => `b.term_id = ${p}`, f.termID);
  if (f.accountID !== undefined) w.add((p) => `b.account_id = ${p}`, f.accountID);
  // By the number a customer quotes (a new user found only the internal id taken here).
  if (f.accountNumber !== undefined) w.add((p) => `ac.account_number = ${p}`, f.accountNumber);
  if (f.billID !== undefined) w.add((p) => `b.bill_id = ${p}`, f.billID);
  if (f.billNumber !== undefined) w.add((p) => `b.bill_number = ${p}`, f.billNumber);
  // A subscription keeps its account (a move makes a new subscription of the same account), so
  // its bills are found among its account's by the account's index; a Post Account bill has no
  // subscription of its own and names its subscriptions in its groups.
  if (f.subscriptionID !== undefined) {
    w.add(
      (p) =>
        `b.account_id = (SELECT s.account_id FROM subscription s WHERE s.subscription_id = ${p} AND s.app_code = $1)
         AND (b.subscription_id = ${p} OR (b.subscription_id IS NULL AND EXISTS (SELECT 1 FROM json_array_elements(b.groups) g WHERE g->>'subscriptionId' = ${p}::text)))`,
      f.subscriptionID,
    );
  }
  if (f.status !== undefined) w.add((p) => `b.status = ${p}`, f.status);
  w.add((p) => `b.bill_id > ${p}`, f.afterBillID ?? 0);
  const text = `SELECT b.bill_id, b.bill_number, b.term_id, b.subscription_id, b.account_id, ac.account_number, ac.name AS account_name, b.bill_date, b.due_date,
            b.period_start, b.period_end, b.charges, b.tax, b.total, b.balance_brought_forward, b.total_due, b.estimated,
            b.status, ${localTimeSql('b.posted_at')} AS posted_at, b.lines, a.minor_units, b.corrects_bill_id,
            b.groups, ${groupInputsSql('b')} AS connection_inputs,
            cn.credit_note_id AS cn_id, cn.credit_note_number AS cn_number, cn.credit_date AS cn_date, cn.amount AS cn_amount,
            cn.reason AS cn_reason, cn.rebill_id AS cn_rebill_id
       FROM bill b JOIN account ac ON ac.account_id = b.account_id JOIN app a ON a.app_code = b.app_code
       LEFT JOIN credit_note cn ON cn.bill_id = b.bill_id
      WHERE ${w.sql()}
      ORDER BY b.bill_id LIMIT $${w.params.length + 1}`;
  const r = await db.query<BillRow>({ name: statementName('get-bills', text), text, values: [...w.params, f.limit ?? 100] });
  await decodeBillRows(db, r.rows);
  return r.rows.map((b) => ({
    billID: Number(b.bill_id),
    billNumber: Number(b.bill_number),
    termID: Number(b.term_id),
    subscriptionID: b.subscription_id === null ? null : Number(b.subscription_id),
    ...(b.groups === null ? {} : accountBillFields(b.groups, b.connection_inputs, b.minor_units)),
    accountID: Number(b.account_id),
    accountNumber: b.account_number,
    accountName: b.account_name,
    billDate: formatDate(b.bill_date),
    dueDate: formatDate(b.due_date),
    periodStart: formatDate(b.period_start),
    periodEnd: formatDate(b.period_end),
    charges: money(b.charges, b.minor_units),
    tax: money(b.tax, b.minor_units),
    total: money(b.total, b.minor_units),
    balanceBroughtForward: money(b.balance_brought_forward, b.minor_units),
    totalDue: money(b.total_due, b.minor_units),
    estimated: b.estimated,
    status: b.status,
    postedAt: b.posted_at,
    lines: b.groups === null ? b.lines.map((l) => ({ ...l, ...lineDays(l), explanation: explainLine(l) })) : accountBillLines(b.lines, b.groups),
    correctsBillID: b.corrects_bill_id === null ? null : Number(b.corrects_bill_id),
    creditNote:
      b.cn_id === null
        ? null
        : {
            creditNoteID: Number(b.cn_id),
            creditNoteNumber: Number(b.cn_number),
            creditDate: formatDate(b.cn_date!),
            amount: money(b.cn_amount!, b.minor_units),
            reason: b.cn_reason!,
            rebillID: b.cn_rebill_id === null ? null : Number(b.cn_rebill_id),
          },
  }));
}
