// SQL for accounts. The balance column is never written here: the ledger's trigger
// keeps it (migration 003).
import type { Queryable } from '../db/pool.ts';
import type { AccountFields } from './rules.ts';

export type AccountRow = {
  account_id: string;
  app_code: number;
  account_number: string;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  status: string;
  balance: string;
  minor_units: number;
  subscription_count: string;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
};

export type AccountFilters = {
  accountID?: number;
  accountNumber?: string;
  name?: string;
  email?: string;
  phone?: string;
  status?: string;
  batchCode?: string;
  serviceCode?: string;
};

const SELECT = `
  SELECT ac.account_id, ac.app_code, ac.account_number, ac.name, ac.email, ac.phone, ac.address, ac.status, ac.balance, a.minor_units,
         (SELECT count(*) FROM subscription s WHERE s.account_id = ac.account_id AND s.status <> 'terminated') AS subscription_count,
         to_char(ac.created_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS created_at, ac.created_by,
         to_char(ac.modified_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS modified_at, ac.modified_by
    FROM account ac JOIN app a ON a.app_code = ac.app_code`;

export async function insertAccount(db: Queryable, appCode: number, f: AccountFields, by: string): Promise<string | undefined> {
  const r = await db.query<{ account_id: string }>(
    `INSERT INTO account (app_code, account_number, name, email, phone, address, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (app_code, account_number) DO NOTHING RETURNING account_id`,
    [appCode, f.accountNumber, f.name, f.email, f.phone, f.address, by],
  );
  return r.rows[0]?.account_id;
}

/** The account, locked for a change in the caller's transaction. */
export async function lockAccount(db: Queryable, appCode: number, accountNumber: string): Promise<{ account_id: string; status: string } | undefined> {
  const r = await db.query<{ account_id: string; status: string }>(
    'SELECT account_id, status FROM account WHERE app_code = $1 AND account_number = $2 FOR UPDATE',
    [appCode, accountNumber],
  );
  return r.rows[0];
}

export async function openSubscriptionCount(db: Queryable, accountId: string): Promise<number> {
  const r = await db.query<{ n: string }>("SELECT count(*) AS n FROM subscription WHERE account_id = $1 AND status <> 'terminated'", [accountId]);
  return Number(r.rows[0]?.n ?? 0);
}

export async function updateAccountRow(
  db: Queryable,
  accountId: string,
  changes: Partial<Omit<AccountFields, 'accountNumber'>> & { status?: string },
  by: string,
): Promise<void> {
  const columns: Record<string, string> = { name: 'name', email: 'email', phone: 'phone', address: 'address', status: 'status' };
  const sets: string[] = [];
  const params: unknown[] = [accountId, by];
  for (const [field, column] of Object.entries(columns)) {
    const v = (changes as Record<string, unknown>)[field];
    if (v === undefined) continue;
    params.push(v);
    sets.push(`${column} = $${params.length}`);
  }
  await db.query(`UPDATE account SET ${[...sets, 'modified_at = now()', 'modified_by = $2'].join(', ')} WHERE account_id = $1`, params);
}

export async function listAccounts(
  db: Queryable,
  appCode: number,
  f: AccountFilters,
  limit: number,
  offset: number,
): Promise<{ rows: AccountRow[]; total: number }> {
  const params: unknown[] = [appCode];
  const where = ['ac.app_code = $1'];
  const add = (sql: (p: string) => string, v: unknown) => {
    params.push(v);
    where.push(sql(`$${params.length}`));
  };
  if (f.accountID !== undefined) add((p) => `ac.account_id = ${p}`, f.accountID);
  if (f.accountNumber !== undefined) add((p) => `ac.account_number = ${p}`, f.accountNumber);
  if (f.name !== undefined) add((p) => `ac.name ILIKE ${p}`, `%${likeEscape(f.name)}%`);
  if (f.email !== undefined) add((p) => `lower(ac.email) = lower(${p})`, f.email);
  if (f.phone !== undefined) add((p) => `ac.phone = ${p}`, f.phone);
  if (f.status !== undefined) add((p) => `ac.status = ${p}`, f.status);
  if (f.batchCode !== undefined)
    add((p) => `EXISTS (SELECT 1 FROM subscription s JOIN batch b ON b.batch_id = s.batch_id
                         WHERE s.account_id = ac.account_id AND s.status <> 'terminated' AND b.batch_code = ${p})`, f.batchCode);
  if (f.serviceCode !== undefined)
    add((p) => `EXISTS (SELECT 1 FROM subscription s JOIN service v ON v.service_id = s.service_id
                         WHERE s.account_id = ac.account_id AND s.status <> 'terminated' AND v.service_code = ${p})`, f.serviceCode);
  const whereSql = where.join(' AND ');
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n FROM account ac WHERE ${whereSql}`, params);
  const rows = await db.query<AccountRow>(
    `${SELECT} WHERE ${whereSql} ORDER BY ac.account_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
