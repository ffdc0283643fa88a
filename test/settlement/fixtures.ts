// Accounts and posted bills written straight into a test database, the way the bill run
// writes them (bill rows, then posting: status 'posted' and one ledger entry of the
// total, then settleAccounts as the posting does), so payments can be tested without
// running a whole term.
import { takeBillNumbers } from '../../src/bills/store.ts';
import type pg from 'pg';
import { inTransaction } from '../../src/db/pool.ts';
import { settleAccounts } from '../../src/settlement/settleAccounts.ts';

export type World = { appCode: number; serviceId: string; versionId: string; batchId: string };

export async function makeWorld(db: pg.Pool, appCode: number, code = 'WATER'): Promise<World> {
  const s = await db.query<{ service_id: string }>(
    `INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, $2, 'test', 'test') RETURNING service_id`,
    [appCode, code],
  );
  const serviceId = s.rows[0]!.service_id;
  const v = await db.query<{ service_version_id: string }>(
    `INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'test') RETURNING service_version_id`,
    [serviceId, JSON.stringify({ code, paymentSettlementMethod: 'Chronology', cashAccountID: 7 })],
  );
  const b = await db.query<{ batch_id: string }>(
    `INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, $2, 'test') RETURNING batch_id`,
    [appCode, `${code}-B`],
  );
  return { appCode, serviceId, versionId: v.rows[0]!.service_version_id, batchId: b.rows[0]!.batch_id };
}

export type TestAccount = { accountId: string; accountNumber: string; subscriptionId: string };

export async function makeAccount(db: pg.Pool, w: World, accountNumber: string): Promise<TestAccount> {
  const a = await db.query<{ account_id: string }>(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, $2, $3, 'test', 'test') RETURNING account_id`,
    [w.appCode, accountNumber, `Customer ${accountNumber}`],
  );
  const accountId = a.rows[0]!.account_id;
  const s = await db.query<{ subscription_id: string }>(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
     VALUES ($1, $2, $3, $4, '2000-01-01', 'test', 'test') RETURNING subscription_id`,
    [w.appCode, accountId, w.serviceId, w.batchId],
  );
  return { accountId, accountNumber, subscriptionId: s.rows[0]!.subscription_id };
}

let period = 0;

/**
 * A posted bill of the account: lines (amounts as text) in order, total = their sum;
 * `categories` gives each line's category ('charge' | 'tax'), none when absent.
 * Posting is followed by settleAccounts in the same transaction, as the bill run does.
 * Its Posted term covers `period` (yyyy-mm-dd) when given, a few days of 2000 otherwise.
 */
export async function postBill(
  db: pg.Pool,
  w: World,
  acc: TestAccount,
  b: { billDate: string; dueDate: string; lines: string[]; categories?: string[]; settle?: boolean; period?: { start: string; end: string } },
): Promise<{ billId: string; entryId: string }> {
  return inTransaction(db, async (tx) => {
    const n = ++period;
    const t = await tx.query<{ term_id: string }>(
      `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
       VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::date, DATE '2000-01-01' + $5 * 3), coalesce($8::date, DATE '2000-01-01' + $5 * 3 + 1),
               greatest(coalesce($8::date, DATE '2000-01-01' + $5 * 3 + 1), DATE '2000-01-01' + $5 * 3 + 2), 'Post Subscription', 'Posted', 'test', 'test')
       RETURNING term_id`,
      [w.appCode, w.serviceId, w.versionId, w.batchId, n, `T${n}`, b.period?.start ?? null, b.period?.end ?? null],
    );
    const lines = b.lines.map((amount, i) => ({
      componentCode: `C${i + 1}`,
      name: `Charge ${i + 1}`,
      quantity: '1',
      amount,
      ...(b.categories ? { category: b.categories[i] } : {}),
    }));
    // Numbered by the app's counter, as the bill run numbers: a bill numbered here by
    // max + 1 later collided with a run's numbers in the same app.
    const number = await takeBillNumbers(tx, w.appCode, 1);
    const bill = await tx.query<{ bill_id: string }>(
      `INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                         charges, tax, total, balance_brought_forward, total_due, lines, groups)
       SELECT $1, $2, $3, $4, $9, $5, $6, $5, $5,
              t.total, 0, t.total, 0, t.total, $7,
              -- An account's bill (Post Account) when there is no subscription: its groups, none here.
              CASE WHEN $3::bigint IS NULL THEN '[]'::jsonb END
         FROM (SELECT sum(x::numeric) AS total FROM unnest($8::text[]) AS x) t
       RETURNING bill_id`,
      [w.appCode, t.rows[0]!.term_id, acc.subscriptionId, acc.accountId, b.billDate, b.dueDate, JSON.stringify(lines), b.lines, number.toString()],
    );
    const billId = bill.rows[0]!.bill_id;
    const e = await tx.query<{ entry_id: string }>(
      `WITH posted AS (UPDATE bill SET status = 'posted', posted_at = now() WHERE bill_id = $1
                        RETURNING bill_id, app_code, account_id, bill_date, total, bill_number)
       INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
       SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 'test' FROM posted RETURNING entry_id`,
      [billId],
    );
    if (b.settle !== false) await settleAccounts(tx, w.appCode, [acc.accountId], 'test');
    return { billId, entryId: e.rows[0]!.entry_id };
  });
}

/** dd/mm/yyyy of a yyyy-mm-dd. */
export const dmy = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
