// SQL for accounts. The balance column is never written here: the ledger's trigger
// keeps it (migration 003).
import type { Queryable } from '../db/pool.ts';
import { filters, type Filters } from '../db/filters.ts';
import type { AccountFields } from './rules.ts';
import { localTimeSql } from '../calendar/calendar.ts';

export type AccountRow = {
  account_id: string;
  app_code: number;
  account_number: string;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  delivery_preference: string;
  status: 'active' | 'closed';
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
  /** An account number starting with it, or a name containing it (any case). */
  search?: string;
};

const SELECT = `
  SELECT ac.account_id, ac.app_code, ac.account_number, ac.name, ac.email, ac.phone, ac.address, ac.delivery_preference, ac.status, ac.balance, a.minor_units,
         (SELECT count(*) FROM subscription s WHERE s.account_id = ac.account_id AND s.status <> 'terminated') AS subscription_count,
         ${localTimeSql('ac.created_at')} AS created_at, ac.created_by,
         ${localTimeSql('ac.modified_at')} AS modified_at, ac.modified_by
    FROM account ac JOIN app a ON a.app_code = ac.app_code`;

export async function insertAccount(db: Queryable, appCode: number, f: AccountFields, by: string): Promise<string | undefined> {
  const r = await db.query<{ account_id: string }>(
    `INSERT INTO account (app_code, account_number, name, email, phone, address, delivery_preference, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $8, $7, $7)
     ON CONFLICT (app_code, account_number) DO NOTHING RETURNING account_id`,
    [appCode, f.accountNumber, f.name, f.email, f.phone, f.address, by, f.deliveryPreference],
  );
  return r.rows[0]?.account_id;
}

/** The account, locked for a change in the caller's transaction. */
export async function lockAccount(
  db: Queryable,
  appCode: number,
  accountNumber: string,
): Promise<{ account_id: string; status: string; email: string | null; delivery_preference: string } | undefined> {
  const r = await db.query<{ account_id: string; status: string; email: string | null; delivery_preference: string }>(
    'SELECT account_id, status, email, delivery_preference FROM account WHERE app_code = $1 AND account_number = $2 FOR UPDATE',
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
  const columns: Record<string, string> = { name: 'name', email: 'email', phone: 'phone', address: 'address', deliveryPreference: 'delivery_preference', status: 'status' };
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

export const SEARCH_COUNT_CAP = 1000;

export async function listAccounts(
  db: Queryable,
  appCode: number,
  f: AccountFilters,
  limit: number,
  offset: number,
): Promise<{ rows: AccountRow[]; total: number; totalCapped: boolean }> {
  const w = accountFilters(appCode, f);
  if (f.search !== undefined) return searchAccounts(db, w.where, w.params, f.search, limit, offset);
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n FROM account ac WHERE ${w.sql()}`, w.params);
  const page = w.page(limit, offset);
  const rows = await db.query<AccountRow>(`${SELECT} WHERE ${w.sql()} ORDER BY ac.account_id ${page.sql}`, page.params);
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0), totalCapped: false };
}

function accountFilters(appCode: number, f: AccountFilters): Filters {
  const w = filters('ac.app_code = $1', appCode);
  const { add } = w;
  if (f.accountID !== undefined) add((p) => `ac.account_id = ${p}`, f.accountID);
  if (f.accountNumber !== undefined) add((p) => `ac.account_number = ${p}`, f.accountNumber);
  // Any case and any accents (migration 104): "muller" finds "Müller".
  if (f.name !== undefined) add((p) => `ext.fold_name(ac.name) LIKE ${foldedContains(p)}`, f.name);
  if (f.email !== undefined) add((p) => `lower(ac.email) = lower(${p})`, f.email);
  if (f.phone !== undefined) add((p) => `ac.phone = ${p}`, f.phone);
  if (f.status !== undefined) add((p) => `ac.status = ${p}`, f.status);
  if (f.batchCode !== undefined)
    add((p) => `EXISTS (SELECT 1 FROM subscription s JOIN batch b ON b.batch_id = s.batch_id
                         WHERE s.account_id = ac.account_id AND s.status <> 'terminated' AND b.batch_code = ${p})`, f.batchCode);
  if (f.serviceCode !== undefined)
    add((p) => `EXISTS (SELECT 1 FROM subscription s JOIN service v ON v.service_id = s.service_id
                         WHERE s.account_id = ac.account_id AND s.status <> 'terminated' AND v.service_code = ${p})`, f.serviceCode);
  return w;
}

/**
 * A search: accounts whose number starts with the text (in number order), then those whose
 * name contains it in any case and any accents (in id order). Two lists, because one query with
 * "number OR name" can use neither index's order: at a million accounts a number prefix
 * matching 100,000 made it read them all (0.6 s). Each list here reads at most a page
 * (the number's b-tree in order; the name's trigram GIN), and each count stops at
 * SEARCH_COUNT_CAP + 1 (a search as broad as one letter matches most of the app).
 */
async function searchAccounts(db: Queryable, where: string[], filterParams: unknown[], text: string, limit: number, offset: number) {
  const params = [...filterParams, `${likeEscape(text)}%`, text];
  const prefix = `$${params.length - 1}`;
  const contains = `$${params.length}`;
  // COLLATE "C": the prefix range of migration 015's index, whatever the database's collation.
  const byNumber = [...where, `ac.account_number COLLATE "C" LIKE ${prefix}`].join(' AND ');
  // A name in any case and with or without its accents, through migration 104's trigram index.
  const byName = [...where, `ext.fold_name(ac.name) LIKE ${foldedContains(contains)}`, `NOT (ac.account_number COLLATE "C" LIKE ${prefix})`].join(' AND ');
  // The number's query has no name parameter (the last): PostgreSQL refuses a parameter it cannot type.
  const numberParams = params.slice(0, -1);
  const capped = (w: string, p: unknown[]) => db.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM account ac WHERE ${w} LIMIT ${SEARCH_COUNT_CAP + 1}) m`, p);
  const [numberCount, nameCount] = (await Promise.all([capped(byNumber, numberParams), capped(byName, params)])).map((r) => Number(r.rows[0]?.n ?? 0)) as [number, number];
  const ids: string[] = [];
  if (offset < numberCount) {
    const r = await db.query<{ account_id: string }>(
      `SELECT ac.account_id FROM account ac WHERE ${byNumber} ORDER BY ac.account_number COLLATE "C", ac.account_id LIMIT ${limit} OFFSET ${offset}`,
      numberParams,
    );
    ids.push(...r.rows.map((x) => x.account_id));
  }
  // Past the cap of number matches the name matches are not reachable: the search is for a number.
  if (ids.length < limit && numberCount <= SEARCH_COUNT_CAP) {
    const r = await db.query<{ account_id: string }>(
      `SELECT ac.account_id FROM account ac WHERE ${byName} ORDER BY ac.account_id LIMIT ${limit - ids.length} OFFSET ${Math.max(0, offset - numberCount)}`,
      params,
    );
    ids.push(...r.rows.map((x) => x.account_id));
  }
  const rows = ids.length === 0 ? [] : (await db.query<AccountRow>(`${SELECT} WHERE ac.account_id = ANY($1::bigint[])`, [ids])).rows;
  const order = new Map(ids.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.account_id)! - order.get(b.account_id)!);
  const total = numberCount + nameCount;
  return total > SEARCH_COUNT_CAP ? { rows, total: SEARCH_COUNT_CAP, totalCapped: true } : { rows, total, totalCapped: false };
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The LIKE pattern "contains the text" on the folded name: the text folded first, then its
 * wildcards escaped. Escaped first, a character unaccent folds to one of them (∖ to \) made
 * the pattern mean another text (a reviewer: "a∖b" found "AB Traders").
 */
const foldedContains = (param: string) => `'%' || replace(replace(replace(ext.fold_name(${param}), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`;
