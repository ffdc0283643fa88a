// The general-ledger journal: every ledger entry of an app as balanced debits and credits,
// summed per day, GL account, cash account, business unit and component, for a general
// ledger to import (product.md, "cashAccountID, businessUnitID: where the money goes in
// the books"). Read from the ledger, never stored: the ledger is the record, the journal
// one view of it, so it cannot drift from the balances.
//
// Each entry makes two sides that cancel: the account's side on `receivable` (what
// customers owe) with the entry's amount, and the other side with minus it. A bill's
// other side is split by its lines (`revenue` or `tax`, per component), whose rounded
// amounts add up to the bill's total; a bill reversal (or a credit note that reverses a
// bill) takes them back. A payment's other side is `cash`, in the payment's cash account;
// a security deposit's is `deposits held` (or `deposit refunds`), in its template's.
// An amount > 0 is a debit, < 0 a credit; every day's debits equal its credits.
import type { Queryable } from '../db/pool.ts';
import { Dec } from '../rating/money.ts';

/** The other side of an entry by its kind, when it is not split by a bill's lines. */
export const CONTRA_ACCOUNT: Readonly<Record<string, string>> = Object.freeze({
  payment: 'cash',
  payment_reversal: 'cash',
  adjustment: 'adjustments',
  opening_balance: 'opening balances',
  deposit: 'deposits held',
  deposit_release: 'deposits held',
  deposit_refund: 'deposit refunds',
});

/** Kinds whose other side is the bill's lines: +1 posts them, -1 takes them back. */
export const BILL_KINDS: Readonly<Record<string, 1 | -1>> = Object.freeze({ bill: 1, bill_reversal: -1 });

export type JournalRow = {
  date: string;
  gl_account: string;
  cash_account_id: number;
  business_unit_id: number | null;
  component_code: string | null;
  debit: string;
  credit: string;
  legs: number;
};

type Sums = { date: string; cash_account_id: number; business_unit_id: number | null; positive: string; negative: string; legs: number };

// Where an entry's money sits: the bill's template's cash account and business unit (the
// version its term was made with), a deposit's template's (the version it was charged
// under: its charge, release and refund alike), or the payment's cash account (a payment
// is the account's, no template's: no business unit; make-payment resolved it when the
// client gave none). The templates' settings are read once per term and per version (a
// materialized list), not from a definition once per entry.
const DIMENSION_LISTS = `term_dimension AS MATERIALIZED (
  SELECT t.term_id, coalesce((v.definition->>'cashAccountID')::int, 0) AS cash_account_id,
         coalesce((v.definition->>'businessUnitID')::int, 0) AS business_unit_id
    FROM term t JOIN service_version v ON v.service_version_id = t.service_version_id WHERE t.app_code = $1),
  version_dimension AS MATERIALIZED (
  SELECT v.service_version_id, coalesce((v.definition->>'cashAccountID')::int, 0) AS cash_account_id,
         coalesce((v.definition->>'businessUnitID')::int, 0) AS business_unit_id
    FROM service_version v JOIN service s ON s.service_id = v.service_id WHERE s.app_code = $1)`;
const DIMENSIONS = `coalesce(p.cash_account_id, d.cash_account_id, vd.cash_account_id, 0) AS cash_account_id,
            coalesce(d.business_unit_id, vd.business_unit_id) AS business_unit_id`;
const FROM_ENTRIES = `
  FROM ledger_entry le
  LEFT JOIN bill b ON b.bill_id = le.bill_id
  LEFT JOIN term_dimension d ON d.term_id = b.term_id
  LEFT JOIN payment p ON p.payment_id = le.payment_id`;
// A deposit entry finds its deposit by the entry's own column (one unique index each);
// every other entry skips the three probes on its kind alone (a one-time filter per row).
const DEPOSIT_DIMENSION = `
  LEFT JOIN LATERAL (
    SELECT x.service_version_id FROM deposit x WHERE le.kind = 'deposit' AND x.charge_entry_id = le.entry_id
    UNION ALL
    SELECT x.service_version_id FROM deposit x WHERE le.kind = 'deposit_release' AND x.release_entry_id = le.entry_id
    UNION ALL
    SELECT x.service_version_id FROM deposit x WHERE le.kind = 'deposit_refund' AND x.refund_entry_id = le.entry_id) dp ON true
  LEFT JOIN version_dimension vd ON vd.service_version_id = dp.service_version_id`;
const IN_PERIOD = 'le.app_code = $1 AND le.entry_date BETWEEN $2::date AND $3::date';

/**
 * The journal of an app's ledger from `from` to `to` (yyyy-mm-dd, both included), in
 * date, GL account, cash account, business unit and component order; amounts at the
 * app's minor units. Two grouped reads, each a plain scan the database can run in
 * parallel: the entries by kind (both sides of every entry but a bill's other side), and
 * the bills' lines by component (json_to_recordset parses each bill's lines once).
 */
export async function journalRows(db: Queryable, appCode: number, from: string, to: string): Promise<JournalRow[]> {
  const minor = await db.query<{ minor_units: number }>('SELECT minor_units FROM app WHERE app_code = $1', [appCode]);
  const places = minor.rows[0]?.minor_units ?? 2;
  const byKind = await db.query<Sums & { kind: string }>(
    `WITH ${DIMENSION_LISTS}
     SELECT to_char(le.entry_date, 'YYYY-MM-DD') AS date, le.kind, ${DIMENSIONS},
            coalesce(sum(le.amount) FILTER (WHERE le.amount > 0), 0)::text AS positive,
            coalesce(sum(le.amount) FILTER (WHERE le.amount < 0), 0)::text AS negative, count(*)::int AS legs
       ${FROM_ENTRIES}${DEPOSIT_DIMENSION}
      WHERE ${IN_PERIOD}
      GROUP BY le.entry_date, le.kind, 3, 4`,
    [appCode, from, to],
  );
  const byLine = await db.query<Sums & { kind: string; category: string | null; component_code: string }>(
    `WITH ${DIMENSION_LISTS}
     SELECT to_char(le.entry_date, 'YYYY-MM-DD') AS date, le.kind, coalesce(d.cash_account_id, 0) AS cash_account_id, d.business_unit_id, l.category, l.component_code,
            coalesce(sum(l.amount) FILTER (WHERE l.amount > 0), 0)::text AS positive,
            coalesce(sum(l.amount) FILTER (WHERE l.amount < 0), 0)::text AS negative, count(*)::int AS legs
       ${FROM_ENTRIES}
      CROSS JOIN LATERAL bill_line_heads(b.lines) AS l
      WHERE ${IN_PERIOD} AND le.kind = ANY($4::text[])
      GROUP BY le.entry_date, le.kind, 3, 4, 5, 6`,
    [appCode, from, to, Object.keys(BILL_KINDS)],
  );
  const out = new Map<string, { row: Omit<JournalRow, 'debit' | 'credit'>; debit: Dec; credit: Dec }>();
  // A side of `sign` times the sums: a positive amount is a debit, a negative one a credit.
  const add = (gl: string, s: Sums, component: string | null, sign: 1 | -1) => {
    const key = JSON.stringify([s.date, gl, s.cash_account_id, s.business_unit_id, component]);
    const at = out.get(key) ?? {
      row: { date: s.date, gl_account: gl, cash_account_id: s.cash_account_id, business_unit_id: s.business_unit_id, component_code: component, legs: 0 },
      debit: new Dec(0),
      credit: new Dec(0),
    };
    const [up, down] = sign === 1 ? [new Dec(s.positive), new Dec(s.negative).neg()] : [new Dec(s.negative).neg(), new Dec(s.positive)];
    at.debit = at.debit.plus(up);
    at.credit = at.credit.plus(down);
    at.row.legs += s.legs;
    out.set(key, at);
  };
  for (const s of byKind.rows) {
    add('receivable', s, null, 1);
    if (!(s.kind in BILL_KINDS)) add(CONTRA_ACCOUNT[s.kind] ?? s.kind, s, null, -1);
  }
  for (const s of byLine.rows) add(s.category === 'tax' ? 'tax' : 'revenue', s, s.component_code, BILL_KINDS[s.kind] === 1 ? -1 : 1);
  const order = (x: JournalRow) => [x.date, x.gl_account, String(x.cash_account_id).padStart(10, '0'), x.business_unit_id === null ? '' : String(x.business_unit_id).padStart(10, '0'), x.component_code ?? ''];
  const rows = [...out.values()].map((v) => ({ ...v.row, debit: v.debit.toFixed(places), credit: v.credit.toFixed(places) }));
  return rows.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
}
