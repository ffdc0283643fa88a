import type pg from 'pg';
import { conflict, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { type AccountFields, EMAIL_NEEDED, isComposed, lacksEmail, NOT_NFC } from './rules.ts';
import { insertAccount } from './store.ts';

/** Makes one account with a zero balance; its number must be new in the app. */
export async function makeAccount(db: pg.Pool, caller: Caller, f: AccountFields): Promise<string> {
  if (!isComposed(f.accountNumber)) throw validationFailed([{ path: 'data.accountNumber', message: NOT_NFC }]);
  if (lacksEmail(f.deliveryPreference, f.email)) throw validationFailed([{ path: 'data.deliveryPreference', message: EMAIL_NEEDED }]);
  const id = await insertAccount(db, caller.appCode, f, caller.email);
  if (!id) throw conflict(`An account with number "${f.accountNumber}" exists already.`, 'data.accountNumber');
  return id;
}
