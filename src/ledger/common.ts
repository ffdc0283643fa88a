// What payments, adjustments and the ledger reads share: the app's money settings and
// today (dates are the calendar's, src/calendar/), amounts as exact decimals,
// and finding the account an operation is about.
import { Type } from 'typebox';
import { Dec } from '../rating/money.ts';
import { todaySql } from '../calendar/calendar.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import { AccountNumber, AMOUNT_PATTERN, IdOf } from '../primitives.ts';

// As a JSON number: more than 0 and at most 15 digits before the point, as the text (1e21 was
// taken by the schema and refused by the server, which a generated client could not know).
export const AmountText = Type.Union([Type.String({ pattern: AMOUNT_PATTERN }), Type.Number({ exclusiveMinimum: 0, maximum: 999999999999999 })], {
  description: 'an exact decimal, more than 0, with at most the currency\'s minor units ("1250.50")',
});

export type AppMoney = { minorUnits: number; today: string };

/** The app's minor units and today's date in its time zone. */
export async function appMoney(db: Queryable, appCode: number): Promise<AppMoney> {
  const r = await db.query<{ minor_units: number; today: string }>(
    `SELECT minor_units, ${todaySql('time_zone')} AS today FROM app WHERE app_code = $1`,
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

export type AccountRef = { accountID?: number | undefined; accountNumber?: string | undefined };
export const AccountRefFields = {
  accountNumber: Type.Optional(AccountNumber),
  accountID: Type.Optional(IdOf('instead of accountNumber')),
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
      WHERE app_code = $1 AND ${byNumber ? 'account_number = $2' : 'account_id = $2'}${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [appCode, byNumber ? ref.accountNumber : ref.accountID],
  );
  const row = r.rows[0];
  if (!row) throw notFound('account', `${prefix}.${byNumber ? 'accountNumber' : 'accountID'}`);
  // Both given: they must name the same account (the id was ignored, and a payment meant for
  // another account was recorded on the numbered one: an attacker's finding).
  if (byNumber && ref.accountID !== undefined && String(ref.accountID) !== String(row.account_id)) {
    throw validationFailed([{ path: `${prefix}.accountID`, message: `names another account than accountNumber ${ref.accountNumber}; give one of them` }]);
  }
  return row;
}
