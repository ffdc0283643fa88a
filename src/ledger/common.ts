// What payments, adjustments and the ledger reads share: the app's money settings,
// dates as the API writes them (dd/mm/yyyy, as terms do), amounts as exact decimals,
// and finding the account an operation is about.
import { Type } from 'typebox';
import { Dec } from '../rating/money.ts';
import { dayNumber } from '../rating/days.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound, validationFailed, type ErrorDetail } from '../http/errors.ts';

export const DMY_PATTERN = '^[0-9]{2}/[0-9]{2}/[0-9]{4}$';
const DMY = /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/;

export const DateText = (description: string) => Type.String({ pattern: DMY_PATTERN, description: `${description}, dd/mm/yyyy` });
export const AmountText = Type.Union([Type.String({ pattern: '^[0-9]{1,15}(\\.[0-9]{1,4})?$' }), Type.Number({ exclusiveMinimum: 0 })], {
  description: 'an exact decimal, more than 0, with at most the currency\'s minor units ("1250.50")',
});
export const AccountNumber = Type.String({ minLength: 1, maxLength: 64 });

/** 'dd/mm/yyyy' to 'yyyy-mm-dd', or null when it is not a calendar date. */
export function isoFromDmy(text: string): string | null {
  const m = DMY.exec(text);
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  try {
    dayNumber(iso);
  } catch {
    return null;
  }
  return iso;
}

/** 'yyyy-mm-dd' (a pg date) to 'dd/mm/yyyy'. */
export function dmyFromIso(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

export type AppMoney = { minorUnits: number; today: string };

/** The app's minor units and today's date in its time zone. */
export async function appMoney(db: Queryable, appCode: number): Promise<AppMoney> {
  const r = await db.query<{ minor_units: number; today: string }>(
    'SELECT minor_units, (now() AT TIME ZONE time_zone)::date AS today FROM app WHERE app_code = $1',
    [appCode],
  );
  const row = r.rows[0]!;
  return { minorUnits: row.minor_units, today: row.today };
}

/** An amount as the API shows it: fixed decimals of the app's currency ("12.50"). */
import { moneyText as money } from '../rating/money.ts';
export { money };

/**
 * Reads an amount a client sent: more than zero and no finer than the currency's minor
 * unit (a payment of 10.005 KES cannot be settled exactly, so it is refused). Pushes
 * the problem and answers null when it is not one.
 */
export function readAmount(value: unknown, minorUnits: number, path: string, issues: ErrorDetail[]): Dec | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) {
    issues.push({ path, message: 'must be a decimal number such as 1250.50' });
    return null;
  }
  const amount = new Dec(text);
  if (amount.lte(0)) {
    issues.push({ path, message: 'must be more than 0' });
    return null;
  }
  if (amount.decimalPlaces() > minorUnits) {
    issues.push({ path, message: `must have at most ${minorUnits} decimal places` });
    return null;
  }
  if (amount.gte('1e15')) {
    issues.push({ path, message: 'is too large' });
    return null;
  }
  return amount;
}

/** Reads a dd/mm/yyyy date; pushes the problem and answers null when it is not one. */
export function readDate(value: unknown, path: string, issues: ErrorDetail[]): string | null {
  const iso = typeof value === 'string' ? isoFromDmy(value.trim()) : null;
  if (iso === null) issues.push({ path, message: 'must be a calendar date written dd/mm/yyyy' });
  return iso;
}

export type AccountRef = { accountID?: number | undefined; accountNumber?: string | undefined };
export const AccountRefFields = {
  accountNumber: Type.Optional(AccountNumber),
  accountID: Type.Optional(Type.Integer({ minimum: 1, description: 'instead of accountNumber' })),
};

export type FoundAccount = { account_id: string; account_number: string; balance: string; name: string };

/**
 * The app's account named by number or id; another app's account is answered exactly as
 * a missing one. `prefix` is where the reference sits in the request ("data").
 */
export async function findAccount(db: Queryable, appCode: number, ref: AccountRef, prefix = 'data', lock = false): Promise<FoundAccount> {
  if (ref.accountNumber === undefined && ref.accountID === undefined) {
    throw validationFailed([{ path: `${prefix}.accountNumber`, message: 'is required (or accountID)' }]);
  }
  const byNumber = ref.accountNumber !== undefined;
  const r = await db.query<FoundAccount>(
    `SELECT account_id, account_number, balance, name FROM account
      WHERE app_code = $1 AND ${byNumber ? 'account_number = $2' : 'account_id = $2'}${lock ? ' FOR UPDATE' : ''}`,
    [appCode, byNumber ? ref.accountNumber : ref.accountID],
  );
  const row = r.rows[0];
  if (!row) throw notFound('account', `${prefix}.${byNumber ? 'accountNumber' : 'accountID'}`);
  return row;
}

export const Paging = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer({ description: 'records matching the filters' }) });
export const PagingInput = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
};
