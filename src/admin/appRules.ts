// The rules of an app's settings, in one place for the command line (`app add`), the
// environment's defaults (config.ts) and the admin API (update-app).
import { ROUNDING_MODES, type RoundingMode } from '../rating/money.ts';

/** Is this an IANA time zone name the platform knows (Africa/Nairobi, UTC)? */
export function isTimeZone(name: string): boolean {
  if (name === '' || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const TIME_ZONE_MESSAGE = 'must be an IANA time zone such as Africa/Nairobi';

/** A three-letter ISO 4217 code. */
export const CURRENCY_PATTERN = '^[A-Z]{3}$';
export const isCurrency = (code: string): boolean => new RegExp(CURRENCY_PATTERN).test(code);
export const CURRENCY_MESSAGE = 'must be a three-letter ISO 4217 code such as KES';

/** Digits after the decimal point of the currency's smallest unit (migration 001's check). */
export const MINOR_UNITS = { minimum: 0, maximum: 4 } as const;

export const isRounding = (rule: string): rule is RoundingMode => (ROUNDING_MODES as readonly string[]).includes(rule);
export const ROUNDING_MESSAGE = `must be one of ${ROUNDING_MODES.join(', ')}`;
