// The ledger's proof, for every account of an app (or one): the balance column equals
// the sum of its entries and the sum of its open items; each open item equals its
// entry less its live settlements, on the right side of zero; no bill, and no line of
// a bill, is settled past its amount; no credit is spent past its amount; every
// security deposit agrees with its entries (charge, release, refund).
import type { Queryable } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { findAccount, type AccountRef } from './common.ts';

const MAX_LISTED = 100;

export type LedgerProblem = { accountID: number; entryID: number | null; problem: string; expected: string; actual: string };

export async function checkLedger(db: Queryable, caller: Caller, ref: AccountRef) {
  const account = ref.accountNumber !== undefined || ref.accountID !== undefined ? await findAccount(db, caller.appCode, ref) : undefined;
  const params: unknown[] = [caller.appCode];
  if (account) params.push(account.account_id);
  const only = (col: string) => (account ? ` AND ${col} = $2` : '');

  const counts = await db.query<{ accounts: string; entries: string }>(
    `SELECT (SELECT count(*) FROM account a WHERE a.app_code = $1${only('a.account_id')}) AS accounts,
            (SELECT count(*) FROM ledger_entry e WHERE e.app_code = $1${only('e.account_id')}) AS entries`,
    params,
  );

  const balances = await db.query<{ account_id: string; balance: string; entries: string; open: string; balance_ok: boolean; open_ok: boolean }>(
    `SELECT a.account_id, a.balance, coalesce(s.total, 0) AS entries, coalesce(o.total, 0) AS open,
            a.balance = coalesce(s.total, 0) AS balance_ok, coalesce(s.total, 0) = coalesce(o.total, 0) AS open_ok
       FROM account a
       LEFT JOIN (SELECT account_id, sum(amount) AS total FROM ledger_entry WHERE app_code = $1 GROUP BY account_id) s ON s.account_id = a.account_id
       LEFT JOIN (SELECT account_id, sum(open_amount) AS total FROM open_item WHERE app_code = $1 GROUP BY account_id) o ON o.account_id = a.account_id
      WHERE a.app_code = $1${only('a.account_id')}
        AND (a.balance <> coalesce(s.total, 0) OR coalesce(s.total, 0) <> coalesce(o.total, 0))
      ORDER BY a.account_id LIMIT ${MAX_LISTED}`,
    params,
  );

  // Each entry: amount - settled as a debit + settled as a credit = its open item (0 when none).
  const items = await db.query<{ account_id: string; entry_id: string; expected: string; actual: string; amount: string }>(
    `WITH live AS (
       SELECT entry_id, sum(d) AS debited, sum(c) AS credited FROM (
         SELECT debit_entry_id AS entry_id, amount AS d, 0 AS c FROM allocation WHERE app_code = $1 AND released_at IS NULL${only('account_id')}
         UNION ALL
         SELECT credit_entry_id, 0, amount FROM allocation WHERE app_code = $1 AND released_at IS NULL${only('account_id')}) x
       GROUP BY entry_id)
     SELECT e.account_id, e.entry_id, e.amount, e.amount - coalesce(l.debited, 0) + coalesce(l.credited, 0) AS expected,
            coalesce(o.open_amount, 0) AS actual
       FROM ledger_entry e
       LEFT JOIN live l ON l.entry_id = e.entry_id
       LEFT JOIN open_item o ON o.entry_id = e.entry_id
      WHERE e.app_code = $1${only('e.account_id')}
        AND (e.amount - coalesce(l.debited, 0) + coalesce(l.credited, 0) <> coalesce(o.open_amount, 0)
             OR (e.amount > 0 AND (coalesce(o.open_amount, 0) < 0 OR coalesce(o.open_amount, 0) > e.amount OR coalesce(l.credited, 0) > 0))
             OR (e.amount < 0 AND (coalesce(o.open_amount, 0) > 0 OR coalesce(o.open_amount, 0) < e.amount OR coalesce(l.debited, 0) > 0))
             OR (e.amount = 0 AND (l.entry_id IS NOT NULL OR o.entry_id IS NOT NULL)))
      ORDER BY e.entry_id LIMIT ${MAX_LISTED}`,
    params,
  );

  const lines = await db.query<{ account_id: string; entry_id: string; line_no: number; paid: string; line_amount: string | null }>(
    `SELECT al.account_id, al.entry_id, al.line_no, al.paid, l.amount::text AS line_amount
       FROM (SELECT account_id, debit_entry_id AS entry_id, bill_id, line_no, sum(amount) AS paid
               FROM allocation
              WHERE app_code = $1 AND released_at IS NULL AND line_no IS NOT NULL AND bill_id IS NOT NULL${only('account_id')}
              GROUP BY account_id, debit_entry_id, bill_id, line_no) al
       JOIN bill b ON b.bill_id = al.bill_id
       LEFT JOIN LATERAL (SELECT h.amount FROM bill_line_heads(b.lines) h WHERE h.line_no = al.line_no) l ON true
      WHERE l.amount IS NULL OR al.paid > l.amount
      ORDER BY al.entry_id, al.line_no LIMIT ${MAX_LISTED}`,
    params,
  );

  // Each deposit (src/deposits/) is its charge entry; a released one gives back its
  // amount, and the release's live settlements of its own charge and of its refund entry
  // are its recorded unpaid part and refund. (What it applied to bills is checked as any
  // credit is: a bill cancelled later gives that part back as credit, which settlement
  // spends again, so it is not compared with the record.)
  const deposits = await db.query<{ account_id: string; entry_id: string; problem: string; expected: string; actual: string }>(
    `SELECT d.account_id, d.charge_entry_id AS entry_id, x.problem, x.expected, x.actual
       FROM deposit d
       JOIN ledger_entry c ON c.entry_id = d.charge_entry_id
       LEFT JOIN ledger_entry r ON r.entry_id = d.release_entry_id
       LEFT JOIN ledger_entry f ON f.entry_id = d.refund_entry_id
       LEFT JOIN LATERAL (
         SELECT coalesce(sum(a.amount) FILTER (WHERE a.debit_entry_id = d.charge_entry_id), 0) AS unpaid,
                coalesce(sum(a.amount) FILTER (WHERE a.debit_entry_id = d.refund_entry_id), 0) AS refunded
           FROM allocation a WHERE a.credit_entry_id = d.release_entry_id AND a.released_at IS NULL) s ON d.release_entry_id IS NOT NULL
       CROSS JOIN LATERAL (VALUES
         ('the deposit charge is not a deposit entry of its amount', d.amount::text, CASE WHEN c.kind = 'deposit' THEN c.amount::text ELSE c.kind END,
          c.kind <> 'deposit' OR c.amount <> d.amount),
         ('the deposit release does not give back its amount', (-d.amount)::text, coalesce(r.amount::text, 'none'),
          d.release_entry_id IS NOT NULL AND (r.kind <> 'deposit_release' OR r.amount <> -d.amount)),
         ('the deposit release does not settle its unpaid part and its refund',
          concat_ws(' / ', d.unpaid, d.refunded), concat_ws(' / ', s.unpaid, s.refunded),
          d.release_entry_id IS NOT NULL AND (s.unpaid <> d.unpaid OR s.refunded <> d.refunded)),
         ('the deposit refund entry is not its refund', coalesce(d.refunded, 0)::text, coalesce(f.amount, 0)::text,
          d.refund_entry_id IS NOT NULL AND (f.kind <> 'deposit_refund' OR f.amount <> d.refunded))
       ) AS x(problem, expected, actual, bad)
      WHERE d.app_code = $1${only('d.account_id')} AND x.bad
      ORDER BY d.deposit_id LIMIT ${MAX_LISTED}`,
    params,
  );

  const problems: LedgerProblem[] = [
    ...balances.rows.flatMap((b) => [
      ...(!b.balance_ok ? [{ accountID: Number(b.account_id), entryID: null, problem: 'balance is not the sum of the entries', expected: b.entries, actual: b.balance }] : []),
      ...(!b.open_ok ? [{ accountID: Number(b.account_id), entryID: null, problem: 'the sum of the entries is not the sum of the open items', expected: b.entries, actual: b.open }] : []),
    ]),
    ...items.rows.map((i) => ({ accountID: Number(i.account_id), entryID: Number(i.entry_id), problem: 'open item is not the entry less its settlements', expected: i.expected, actual: i.actual })),
    ...lines.rows.map((l) => ({
      accountID: Number(l.account_id),
      entryID: Number(l.entry_id),
      problem: l.line_amount === null ? `line ${l.line_no} of the bill does not exist` : `line ${l.line_no} is settled past its amount`,
      expected: l.line_amount ?? '0',
      actual: l.paid,
    })),
    ...deposits.rows.map((d) => ({ accountID: Number(d.account_id), entryID: Number(d.entry_id), problem: d.problem, expected: d.expected, actual: d.actual })),
  ];
  return {
    check: {
      ok: problems.length === 0,
      accounts: Number(counts.rows[0]!.accounts),
      entries: Number(counts.rows[0]!.entries),
      problems: problems.slice(0, MAX_LISTED),
    },
  };
}
