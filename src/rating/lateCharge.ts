import { Type, type Static } from 'typebox';
import type { Issue } from './checkTariff.ts';
import { DecimalValue } from './fields.ts';
import { Dec, HUNDRED, parseDecimal, roundMoney, type RoundingMode, toDecimal } from './money.ts';

/**
 * A pricing template's late payment charge: what a bill still unpaid `graceDays`
 * after its due date is charged, once. Pure: the rule's schema, its check, and the
 * amount for one bill; the daily job (src/lateCharges/) finds the bills and writes
 * the charges.
 */
export const LateChargeRule = Type.Object(
  {
    graceDays: Type.Integer({ minimum: 0, maximum: 366, description: 'Days after the due date before the charge is made' }),
    flat: Type.Optional(DecimalValue),
    percentage: Type.Optional(DecimalValue),
    minimum: Type.Optional(DecimalValue),
    maximum: Type.Optional(DecimalValue),
  },
  {
    additionalProperties: false,
    description:
      'Late payment charge, once per bill: `flat` (an amount) or `percentage` (of the amount still unpaid the day after grace ends), ' +
      'then raised to `minimum` and capped at `maximum`, rounded by the app rule',
  },
);
export type LateChargeRule = Static<typeof LateChargeRule>;

export type PreparedLateCharge = {
  graceDays: number;
  flat: Dec | null;
  percentage: Dec | null;
  minimum: Dec | null;
  maximum: Dec | null;
  /** The rule as a trace shows it, made once: a run traces up to a million charges by one rule. */
  ruleTrace: LateChargeTrace['rule'];
};

/** Keeps prices sane, like checkTariff: no amount needs 15 digits before the point or 12 after it. */
const LIMIT = new Dec('1e15');

/** What the schema cannot say: exactly one of flat and percentage, signs, minimum <= maximum. Empty: valid. */
export function checkLateCharge(rule: LateChargeRule, path: string): Issue[] {
  const issues: Issue[] = [];
  const num = (x: unknown, at: string, positive: boolean): Dec | null => {
    if (x === undefined) return null;
    const d = parseDecimal(x);
    if (d === null) issues.push({ path: at, message: `not a decimal number: ${JSON.stringify(x) ?? String(x)}` });
    else if (d.abs().gte(LIMIT)) issues.push({ path: at, message: `${d.toFixed()} is out of range (at most 15 digits before the point)` });
    else if (d.decimalPlaces() > 12) issues.push({ path: at, message: 'has more than 12 decimals' });
    else if (positive ? !d.gt(0) : d.isNegative()) issues.push({ path: at, message: `${d.toFixed()} must be ${positive ? 'above zero' : 'zero or more'}` });
    else return d;
    return null;
  };
  if (!Number.isInteger(rule.graceDays) || rule.graceDays < 0 || rule.graceDays > 366) {
    issues.push({ path: `${path}.graceDays`, message: 'must be an integer from 0 to 366' });
  }
  num(rule.flat, `${path}.flat`, true);
  const percentage = num(rule.percentage, `${path}.percentage`, true);
  if (rule.flat === undefined && rule.percentage === undefined) issues.push({ path, message: 'needs flat or percentage' });
  if (rule.flat !== undefined && rule.percentage !== undefined) issues.push({ path: `${path}.percentage`, message: 'give flat or percentage, not both' });
  if (percentage !== null && percentage.gt(HUNDRED)) issues.push({ path: `${path}.percentage`, message: `${percentage.toFixed()} is above 100` });
  const min = num(rule.minimum, `${path}.minimum`, false);
  const max = num(rule.maximum, `${path}.maximum`, true);
  if (min !== null && max !== null && min.gt(max)) issues.push({ path: `${path}.minimum`, message: `minimum ${min.toFixed()} is above maximum ${max.toFixed()}` });
  return issues;
}

/** The rule in decimals; call only on a rule that passed checkLateCharge. */
export function prepareLateCharge(rule: LateChargeRule): PreparedLateCharge {
  const opt = (x: string | number | undefined) => (x === undefined ? null : toDecimal(x));
  const p = { graceDays: rule.graceDays, flat: opt(rule.flat), percentage: opt(rule.percentage), minimum: opt(rule.minimum), maximum: opt(rule.maximum) };
  const ruleTrace: LateChargeTrace['rule'] = { graceDays: p.graceDays };
  if (p.flat !== null) ruleTrace.flat = p.flat.toFixed();
  if (p.percentage !== null) ruleTrace.percentage = p.percentage.toFixed();
  if (p.minimum !== null) ruleTrace.minimum = p.minimum.toFixed();
  if (p.maximum !== null) ruleTrace.maximum = p.maximum.toFixed();
  return { ...p, ruleTrace };
}

export type LateChargeTrace = {
  /** The amount of the bill still unpaid after settlement when the charge was made. */
  overdue: string;
  rule: { graceDays: number; flat?: string; percentage?: string; minimum?: string; maximum?: string };
  computation: {
    /** flat, or overdue x percentage / 100, unrounded. */
    base: string;
    /** Which limit changed the base, and the base before it. */
    limit?: 'minimum' | 'maximum';
    unrounded: string;
    rounding: RoundingMode;
    amount: string;
  };
};

/**
 * The late charge on a bill with `overdue` still unpaid: flat, or percentage % of the
 * overdue amount; raised to the minimum, capped at the maximum, then rounded once by
 * the app's rule (the rating core's one rounding function). Null when nothing is
 * overdue or the charge rounds to zero: no charge is made.
 */
export function rateLateCharge(
  rule: PreparedLateCharge,
  overdue: Dec,
  settings: { minorUnits: number; rounding: RoundingMode },
): { amount: Dec; trace: LateChargeTrace } | null {
  if (!overdue.gt(0)) return null;
  const base = rule.flat ?? overdue.times(rule.percentage as Dec).div(HUNDRED);
  let unrounded = base;
  let limit: 'minimum' | 'maximum' | undefined;
  if (rule.minimum !== null && unrounded.lt(rule.minimum)) {
    unrounded = rule.minimum;
    limit = 'minimum';
  } else if (rule.maximum !== null && unrounded.gt(rule.maximum)) {
    unrounded = rule.maximum;
    limit = 'maximum';
  }
  const amount = roundMoney(unrounded, settings.minorUnits, settings.rounding);
  if (!amount.gt(0)) return null;
  const computation: LateChargeTrace['computation'] = {
    base: base.toFixed(),
    unrounded: unrounded.toFixed(),
    rounding: settings.rounding,
    amount: amount.toFixed(settings.minorUnits),
  };
  if (limit !== undefined) computation.limit = limit;
  return { amount, trace: { overdue: overdue.toFixed(settings.minorUnits), rule: rule.ruleTrace, computation } };
}
