import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, RawFile, type Services } from '../http/operation.ts';
import { dateText, readPeriod } from '../calendar/calendar.ts';
import { Dec } from '../rating/money.ts';
import { csvLine } from '../csv.ts';
import { formatDate } from '../calendar/calendar.ts';
import { journalRows, type JournalRow } from './journal.ts';

const TAG = 'journal';
// A year of days at most: a general ledger imports a day or a month at a time.
const MAX_DAYS = 366;

const Period = Type.Object(
  { from: dateText('the first day'), to: Type.Optional(dateText('the last day; default: from')) },
  { additionalProperties: false },
);

const JournalLine = Type.Object({
  date: Type.String({ description: 'dd/mm/yyyy, the ledger date' }),
  glAccount: Type.String({ description: 'receivable, revenue, tax, cash, adjustments, opening balances, or the entry kind' }),
  cashAccountID: Type.Integer({ description: "the bill's template's cashAccountID, or the payment's cash account" }),
  businessUnitID: Type.Union([Type.Integer(), Type.Null()], { description: "the bill's template's businessUnitID; null for a payment (an account's, not a template's)" }),
  componentCode: Type.Union([Type.String(), Type.Null()], { description: 'revenue and tax: the component; else null' }),
  debit: Type.String(),
  credit: Type.String(),
  legs: Type.Integer({ description: 'how many entry sides the line sums' }),
});

const Day = Type.Object({ date: Type.String(), debit: Type.String(), credit: Type.String(), balanced: Type.Boolean() });

const period = (d: { from: string; to?: string }) => readPeriod(d, MAX_DAYS);

const line = (r: JournalRow) => ({
  date: formatDate(r.date),
  glAccount: r.gl_account,
  cashAccountID: r.cash_account_id,
  businessUnitID: r.business_unit_id,
  componentCode: r.component_code,
  debit: r.debit,
  credit: r.credit,
  legs: r.legs,
});

/** Each day's debits and credits: equal, by construction, unless the ledger holds something the journal cannot split. */
function days(rows: JournalRow[]) {
  const by = new Map<string, { debit: Dec; credit: Dec; places: number }>();
  for (const r of rows) {
    const d = by.get(r.date) ?? { debit: new Dec(0), credit: new Dec(0), places: r.debit.split('.')[1]?.length ?? 0 };
    d.debit = d.debit.plus(r.debit);
    d.credit = d.credit.plus(r.credit);
    by.set(r.date, d);
  }
  return [...by].map(([date, d]) => ({ date: formatDate(date), debit: d.debit.toFixed(d.places), credit: d.credit.toFixed(d.places), balanced: d.debit.eq(d.credit) }));
}

export async function journalRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/journal/get-journal',
    role: 'viewer',
    tag: TAG,
    summary: 'The general-ledger journal',
    description:
      'Every ledger entry from `from` to `to` (at most 366 days) as debits and credits summed per day, GL account, cash account, business unit and component: a posted bill debits receivable and credits revenue and tax per component; a payment debits cash in its cash account and credits receivable; adjustments and opening balances credit or debit their own account. Each day lists whether its debits equal its credits.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Journal' }, { data: Period }),
    data: Type.Object({ lines: Type.Array(JournalLine), days: Type.Array(Day) }),
    handler: async (body, ctx) => {
      const { from, to } = period(body.data);
      const rows = await journalRows(ctx.db, ctx.caller.appCode, from, to);
      return { lines: rows.map(line), days: days(rows) };
    },
  });

  operation(app, services, {
    path: '/billing/journal/export-journal',
    role: 'viewer',
    tag: TAG,
    summary: 'The general-ledger journal as CSV',
    description: 'The lines of get-journal as a CSV file (date, glAccount, cashAccountID, businessUnitID, componentCode, debit, credit), for a general ledger to import.',
    raw: { types: ['text/csv'] },
    body: requestSchema({ method: 'Retrieve', action: 'Export Journal' }, { data: Period }),
    data: RawFile,
    handler: async (body, ctx) => {
      const { from, to } = period(body.data);
      const rows = await journalRows(ctx.db, ctx.caller.appCode, from, to);
      const csv =
        csvLine(['date', 'glAccount', 'cashAccountID', 'businessUnitID', 'componentCode', 'debit', 'credit']) +
        rows.map((r) => csvLine([formatDate(r.date), r.gl_account, r.cash_account_id, r.business_unit_id, r.component_code, r.debit, r.credit])).join('');
      return { type: 'text/csv; charset=utf-8', payload: csv };
    },
  });
}
