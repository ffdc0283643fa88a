// What an account's fields may hold, in one place: the HTTP schemas are built from
// these, and the bulk import checks each row with the same rules, so an account that
// the API refuses cannot come in through a file.
import type { ErrorDetail } from '../errors.ts';
import { ACCOUNT_NUMBER, INVISIBLE, INVISIBLE_IN_IDENTIFIER, NO_NUL } from '../primitives.ts';

// A tab or line break in a name breaks every export of it. Its ends are visible, and it holds a
// character that is not zero-width: a name of zero-width spaces, or of a grapheme joiner or
// variation selectors, printed as nothing on bills, as one of spaces did (outside reviews). An
// emoji's selector may end one ("Ana ❤️").
const LINE = `^(?=.*[^\\s${INVISIBLE_IN_IDENTIFIER}])[^\\s${INVISIBLE}](?:[^\\x00-\\x1f]*[^\\s${INVISIBLE}])?$`;

/**
 * How a new account's bills go out when it does not say: by e-mail when it has an address,
 * on paper otherwise (the console's new-account form chose so already; the API printed the
 * bills of accounts made with an address, a new user's walk).
 */
export const defaultDelivery = (email: string | null): DeliveryPreference => (email === null ? 'print' : 'email');

/**
 * Bills by e-mail need an address: an account taking its bills by e-mail with none got no bill
 * at all, neither e-mailed nor in the print extract (an officer's walk). `both` is e-mail too:
 * taken without an address, the console's header read "Bills by both" with no e-mail to send
 * them to (another walk). Asked by make-account, the import and update-account.
 */
export const lacksEmail = (preference: string | null | undefined, email: string | null): boolean => (preference === 'email' || preference === 'both') && email === null;
export const EMAIL_NEEDED = "bills by e-mail ('email' or 'both') need an e-mail address: give one, or choose 'print' (on paper)";
export const NAME = { pattern: LINE, maxLength: 200 };
export const NAME_MESSAGE = 'must be on one line, without leading or trailing spaces, control or zero-width characters';
export const EMAIL = { pattern: '^[^\\s@\\x00-\\x1f]+@[^\\s@\\x00-\\x1f]+\\.[^\\s@\\x00-\\x1f]+$', maxLength: 254 };
// "(970) 555-1001", as a US number is written, was refused: the first character had to be a
// digit or + (a new officer's import of 20 accounts failed on every row). Any of them first,
// with at least one digit somewhere.
export const PHONE = { pattern: '^(?=[^0-9]*[0-9])[+(]?[0-9(][0-9 ()./x-]*$', maxLength: 40 };
export const PHONE_MESSAGE = 'must be a phone number: digits, spaces and + ( ) - . / x';
export const ADDRESS = { pattern: NO_NUL, maxLength: 500 };
const ADDRESS_RE = new RegExp(NO_NUL);
export const ACCOUNT_STATUSES = ['active', 'closed'] as const;
/** How an account takes its bills: e-mail (to its address), print (the term's print extract), both, or none. */
export const DELIVERY_PREFERENCES = ['email', 'print', 'both', 'none'] as const;
export type DeliveryPreference = (typeof DELIVERY_PREFERENCES)[number];

const ACCOUNT_NUMBER_RE = new RegExp(ACCOUNT_NUMBER.pattern);
const NAME_RE = new RegExp(NAME.pattern);
const EMAIL_RE = new RegExp(EMAIL.pattern);
const PHONE_RE = new RegExp(PHONE.pattern);

/**
 * An account number is kept as written, so one number has one way of being written: Unicode's
 * composed form (NFC). "JOSÉ-1" written with a combining accent (NFD) looked the same as the
 * account "JOSÉ-1" and was a second account (an outside review). Other forms are refused, not
 * changed: what is stored is what the client sent.
 */
export const NOT_NFC = 'must be in Unicode composed form (NFC): an accented letter as one character, not a letter and a combining accent';
export const isComposed = (text: string): boolean => text === text.normalize('NFC');

export type AccountFields = {
  accountNumber: string;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  deliveryPreference: DeliveryPreference;
};

/** A text field of an import row: absent, null and "" all mean "not given". */
const text = (v: unknown): string | null | undefined => (v === undefined || v === null || v === '' ? null : typeof v === 'string' ? v : undefined);

/**
 * Checks one account of an import row. `get` reads a field, `at` names its path for an
 * error. Answers the account, or null after pushing what is wrong.
 */
export function checkAccount(get: (f: string) => unknown, at: (f: string) => string, issues: ErrorDetail[]): AccountFields | null {
  const before = issues.length;
  const accountNumber = text(get('accountNumber'));
  if (accountNumber === null) issues.push({ path: at('accountNumber'), message: 'is required' });
  else if (accountNumber === undefined) issues.push({ path: at('accountNumber'), message: 'must be a string' });
  else if (accountNumber.length > ACCOUNT_NUMBER.maxLength || !ACCOUNT_NUMBER_RE.test(accountNumber))
    issues.push({ path: at('accountNumber'), message: `must be 1 to ${ACCOUNT_NUMBER.maxLength} characters, without leading or trailing spaces, control or invisible characters` });
  else if (!isComposed(accountNumber)) issues.push({ path: at('accountNumber'), message: NOT_NFC });
  const name = text(get('name'));
  if (name === null) issues.push({ path: at('name'), message: 'is required' });
  else if (name === undefined) issues.push({ path: at('name'), message: 'must be a string' });
  else if (name.length > NAME.maxLength || !NAME_RE.test(name))
    issues.push({ path: at('name'), message: `must be 1 to ${NAME.maxLength} characters, without leading or trailing spaces, control or zero-width characters` });
  const email = text(get('email'));
  if (email === undefined) issues.push({ path: at('email'), message: 'must be a string' });
  else if (email !== null && (email.length > EMAIL.maxLength || !EMAIL_RE.test(email))) issues.push({ path: at('email'), message: 'must be an e-mail address' });
  const phone = text(get('phone'));
  if (phone === undefined) issues.push({ path: at('phone'), message: 'must be a string' });
  else if (phone !== null && (phone.length > PHONE.maxLength || !PHONE_RE.test(phone)))
    issues.push({ path: at('phone'), message: PHONE_MESSAGE });
  const address = text(get('address'));
  if (address === undefined) issues.push({ path: at('address'), message: 'must be a string' });
  else if (address !== null && (address.length > ADDRESS.maxLength || !ADDRESS_RE.test(address))) issues.push({ path: at('address'), message: `must be at most ${ADDRESS.maxLength} characters` });
  const preference = text(get('deliveryPreference'));
  if (preference !== null && !DELIVERY_PREFERENCES.includes(preference as DeliveryPreference))
    issues.push({ path: at('deliveryPreference'), message: `must be one of ${DELIVERY_PREFERENCES.join(', ')}` });
  else if (lacksEmail(preference, email ?? null)) issues.push({ path: at('deliveryPreference'), message: EMAIL_NEEDED });
  if (issues.length > before) return null;
  return {
    accountNumber: accountNumber!,
    name: name!,
    email: email ?? null,
    phone: phone ?? null,
    address: address ?? null,
    deliveryPreference: (preference ?? defaultDelivery(email ?? null)) as DeliveryPreference,
  };
}
