// The rules of an app's settings, in one place for the command line (`app add`), the
// environment's defaults (config.ts) and the admin API (update-app).
import { ROUNDING_MODES, type RoundingMode } from '../rating/money.ts';

// The shape of an IANA name (Area/Location, UTC, Etc/GMT+3): an offset such as "+05:00" is
// not a zone name, but the platform's Intl took it while PostgreSQL read it as a POSIX zone,
// west positive, so "+05:00" ran the app's clock at UTC-5 (an attacker's finding).
const IANA_NAME = /^[A-Za-z]+(?:[_-][A-Za-z]+)*(?:\/[A-Za-z0-9]+(?:[_+-][A-Za-z0-9]+)*)*$/;

/** Is this an IANA time zone name the platform knows (Africa/Nairobi, UTC)? */
export function isTimeZone(name: string): boolean {
  if (name === '' || name.length > 64 || !IANA_NAME.test(name)) return false;
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
/** A user's e-mail (login name): something, an @, something; no spaces. */
export const USER_EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';
export const isCurrency = (code: string): boolean => new RegExp(CURRENCY_PATTERN).test(code);
export const CURRENCY_MESSAGE = 'must be a three-letter ISO 4217 code such as KES';

/** Digits after the decimal point of the currency's smallest unit (migration 001's check). */
export const MINOR_UNITS = { minimum: 0, maximum: 4 } as const;

export const isRounding = (rule: string): rule is RoundingMode => (ROUNDING_MODES as readonly string[]).includes(rule);
export const ROUNDING_MESSAGE = `must be one of ${ROUNDING_MODES.join(', ')}`;
