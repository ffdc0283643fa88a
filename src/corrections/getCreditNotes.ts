import type { Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { formatDate, localTimeSql } from '../calendar/calendar.ts';
import { moneyText } from '../rating/money.ts';
import { readCreditNotes, type CreditNoteFilter } from './store.ts';

/** get-credit-notes: the app's credit notes by id, number, bill (cancelled or rebill), account or term. */
export async function getCreditNotes(db: Queryable, caller: Caller, f: CreditNoteFilter) {
  const rows = await readCreditNotes(db, caller.appCode, f, localTimeSql('cn.created_at'));
  return {
    creditNotes: rows.map((c) => ({
      creditNoteID: Number(c.credit_note_id),
      creditNoteNumber: Number(c.credit_note_number),
      accountID: Number(c.account_id),
      accountNumber: c.account_number,
      termID: Number(c.term_id),
      billID: Number(c.bill_id),
      billNumber: Number(c.bill_number),
      rebillID: c.rebill_id === null ? null : Number(c.rebill_id),
      rebillNumber: c.rebill_number === null ? null : Number(c.rebill_number),
      creditDate: formatDate(c.credit_date),
      charges: moneyText(c.charges, c.minor_units),
      tax: moneyText(c.tax, c.minor_units),
      amount: moneyText(c.amount, c.minor_units),
      reason: c.reason,
      origin: c.origin,
      entryID: Number(c.entry_id),
      createdAt: c.created_at,
      createdBy: c.created_by,
    })),
  };
}
