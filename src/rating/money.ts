import { Decimal } from 'decimal.js';
import { RatingError } from './errors.ts';

/**
 * The decimal type of the rating core. A private clone of decimal.js with 50
 * significant digits: the library default (20) would silently round a
 * product such as 10^12 units x 0.0000123456 per unit before the line is
 * rounded to cents.
 */
export const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -60, toExpPos: 60 });
export type Dec = Decimal;

export const ZERO: Dec = new Dec(0);
export const ONE: Dec = new Dec(1);
export const HUNDRED: Dec = new Dec(100);

/** The text a decimal may be written as in JSON: digits, optional fraction, optional minus. */
export const DECIMAL_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * A decimal from JSON. A string must be plain decimal text ("12.50", "-3");
 * a number is read through String(n), its shortest round-trip text, so the
 * JSON number 0.1 becomes exactly 0.1 (not 0.1000000000000000055511...).
 * Throws INVALID_NUMBER for NaN, Infinity, "", "1e5" as a string, "0x10".
 */
export function toDecimal(x: string | number, what = 'number'): Dec {
  if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new RatingError('INVALID_NUMBER', `${what} is not a finite number: ${String(x)}`);
    return new Dec(String(x));
  }
  if (typeof x !== 'string' || !DECIMAL_TEXT.test(x)) {
    throw new RatingError('INVALID_NUMBER', `${what} is not a decimal number: ${JSON.stringify(x)}`);
  }
  return new Dec(x);
}

/** Like toDecimal, but answers null instead of throwing. */
export function parseDecimal(x: unknown): Dec | null {
  if (typeof x === 'number') return Number.isFinite(x) ? new Dec(String(x)) : null;
  if (typeof x === 'string' && DECIMAL_TEXT.test(x)) return new Dec(x);
  return null;
}

export const ROUNDING_MODES = ['halfUp', 'halfEven', 'halfDown', 'up', 'down', 'ceil', 'floor'] as const;
/**
 * halfUp: half away from zero (1.005 -> 1.01, -1.005 -> -1.01), the default.
 * halfEven: half to the even neighbour (1.005 -> 1.00, 1.015 -> 1.02), "banker's rounding".
 * halfDown: half toward zero. up: away from zero. down: toward zero (truncate).
 * ceil: toward +infinity. floor: toward -infinity.
 */
export type RoundingMode = (typeof ROUNDING_MODES)[number];

const DECIMAL_ROUNDING: Record<RoundingMode, Decimal.Rounding> = {
  halfUp: Decimal.ROUND_HALF_UP,
  halfEven: Decimal.ROUND_HALF_EVEN,
  halfDown: Decimal.ROUND_HALF_DOWN,
  up: Decimal.ROUND_UP,
  down: Decimal.ROUND_DOWN,
  ceil: Decimal.ROUND_CEIL,
  floor: Decimal.ROUND_FLOOR,
};

/**
 * THE rounding rule: every bill line, every scaled tier bound, goes through here.
 * Rounds to `places` decimal places (the currency's minor units for money).
 */
export function roundMoney(amount: Dec, minorUnits: number, mode: RoundingMode): Dec {
  return amount.toDecimalPlaces(minorUnits, DECIMAL_ROUNDING[mode]);
}

/**
 * A later part of something rounded whole (a charge's lines over a bill's segments, a tier's, a
 * converted meter's parts): rounded on the running total, round(before.exact + x) - before.billed,
 * so the parts add up to the whole rounded once. With nothing before, round(x).
 */
export function roundOnTotal(x: Dec, before: { exact: Dec; billed: Dec } | undefined, decimals: number, mode: RoundingMode): Dec {
  return before === undefined ? roundMoney(x, decimals, mode) : roundMoney(before.exact.plus(x), decimals, mode).minus(before.billed);
}

/** `amount` rounded by `mode` to a multiple of `increment` (> 0): a bill's total to the rupee (1), to 5 centimes (0.05). The same rule, on amount / increment. */
export function roundToIncrement(amount: Dec, increment: Dec, mode: RoundingMode): Dec {
  return roundMoney(amount.div(increment), 0, mode).times(increment);
}

/** Fixed-point text with exactly `minorUnits` decimals ("12.50"); never "-0.00". */
export function formatMoney(amount: Dec, minorUnits: number): string {
  const text = amount.toFixed(minorUnits, Decimal.ROUND_HALF_UP);
  return text.startsWith('-') && amount.isZero() ? text.slice(1) : text;
}

/**
 * An amount already at the minor unit, as a whole number of minor units: "12.50" at 2 is
 * 1250n. A bill's lines are rounded one by one (roundMoney), so the bill's sums are sums of
 * these: exact, no rounding, and cheaper than Decimals (a bill's sums and their texts were
 * a third of the Decimal work of rating a bill of two segments, issue 12). Null when the text
 * is not plain decimal text or is finer than the minor unit.
 */
export function minorUnitsOf(text: string, minorUnits: number): bigint | null {
  if (!DECIMAL_TEXT.test(text)) return null;
  const dot = text.indexOf('.');
  if (dot < 0) return BigInt(text) * 10n ** BigInt(minorUnits);
  let fraction = text.slice(dot + 1);
  let end = fraction.length;
  while (end > minorUnits && fraction.charCodeAt(end - 1) === 48) end--;
  if (end > minorUnits) return null;
  fraction = fraction.slice(0, end).padEnd(minorUnits, '0');
  return BigInt(text.slice(0, dot) + fraction);
}

/**
 * The largest amount a bill may hold, in whole units: 15 digits before the point, as an
 * amount sent to the API may have (AMOUNT_PATTERN), with room left in the bill's and the
 * ledger's numeric(20,4) columns for sums. A tariff and readings that the schema took (a
 * rate of 999,999,999,999,999 on a meter read to 99,999,999,999,999) made a bill the
 * database refused, and the run retried its chunk until it gave up (a fuzzer).
 */
export const MAX_AMOUNT_DIGITS = 15;

const AMOUNT_LIMITS = Array.from({ length: 9 }, (_, m) => 10n ** BigInt(MAX_AMOUNT_DIGITS + m));

/** Refuses an amount (in minor units) past MAX_AMOUNT_DIGITS, naming what it is. */
export function checkAmountLimit(units: bigint, minorUnits: number, what: string): void {
  const limit = AMOUNT_LIMITS[minorUnits] ?? 10n ** BigInt(MAX_AMOUNT_DIGITS + minorUnits);
  if (units >= limit || units <= -limit) {
    throw new RatingError('AMOUNT_TOO_LARGE', `${what} ${formatMinorUnits(units, minorUnits)} is larger than the largest amount a bill may hold (${MAX_AMOUNT_DIGITS} digits before the decimal point)`);
  }
}

/** formatMoney of a whole number of minor units: 1250n at 2 is "12.50"; never "-0.00". */
export function formatMinorUnits(units: bigint, minorUnits: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (minorUnits === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(minorUnits + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -minorUnits)}.${padded.slice(-minorUnits)}`;
}

/**
 * A stored amount (numeric text such as "1437.2400") written at the currency's minor
 * unit. Stored sums are sums of rounded lines, so this drops zeros and never rounds.
 */
export function moneyText(amount: string | Dec, minorUnits: number): string {
  return formatMoney(new Dec(amount), minorUnits);
}

/** Plain text of a decimal, no exponent, no padding ("0.0000001", "1000000000000"). */
export function decimalText(x: Dec): string {
  return x.toFixed();
}
