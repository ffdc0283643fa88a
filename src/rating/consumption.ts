import { Dec } from './money.ts';

/** 'maximum': a demand register's reading, the period's quantity itself (meterReadings.ts); consumptionBetween never answers it. */
export type ConsumptionKind = 'normal' | 'rollover' | 'negative' | 'maximum';

export type Consumption = {
  kind: ConsumptionKind;
  /** Units used; negative (current - previous) when kind is 'negative'. */
  quantity: Dec;
};

/**
 * Consumption between two readings of one meter.
 *
 * - current >= previous: normal, current - previous.
 * - current < previous on a meter that rolls over at `rolloverAt` (it shows
 *   rolloverAt - 1 ... then 0): the wrapped consumption is
 *   rolloverAt - previous + current. It is accepted as a roll-over only when
 *   it is below half of rolloverAt. A meter that turned more than half its
 *   range in one period is far less likely than a misread, a swapped meter
 *   or a reading keyed in the wrong place, which also make current < previous
 *   but would bill the customer for nearly a full turn of the dial.
 * - otherwise: negative, an error the caller reports (never billed).
 */
export function consumptionBetween(previous: Dec, current: Dec, rolloverAt?: Dec | null): Consumption {
  if (current.gte(previous)) return { kind: 'normal', quantity: current.minus(previous) };
  if (rolloverAt !== undefined && rolloverAt !== null && rolloverAt.gt(0)) {
    const wrapped = rolloverAt.minus(previous).plus(current);
    if (wrapped.gt(0) && wrapped.lt(rolloverAt.div(2))) return { kind: 'rollover', quantity: wrapped };
  }
  return { kind: 'negative', quantity: current.minus(previous) };
}

/**
 * Meter values as most meters show them (up to 9 whole digits and 6 decimals) are checked
 * and chained in whole millionths, exact in a double: a readings import made three
 * Decimals a reading, a tenth of its time (issue 15). Anything else goes through Decimals,
 * by the same rule; a property test holds the two equal.
 */
const PLAIN_VALUE = /^(0|[1-9][0-9]{0,8})(?:\.([0-9]{1,6}))?$/;

/** A plain meter value's millionths, or null when the text is not one. */
export function millionthsOf(text: string): number | null {
  const m = PLAIN_VALUE.exec(text);
  if (m === null) return null;
  return Number(m[1]) * 1e6 + (m[2] === undefined ? 0 : Number(m[2].padEnd(6, '0')));
}

/** The exact text of a whole number of millionths (0 or more), as Decimal's toFixed() writes it: no trailing zeros. */
export function textOfMillionths(n: number): string {
  const whole = Math.floor(n / 1e6);
  const part = n - whole * 1e6;
  if (part === 0) return String(whole);
  return `${whole}.${String(part).padStart(6, '0').replace(/0+$/, '')}`;
}

/** consumptionBetween of two readings' values given as decimal text, its quantity as text. */
export function consumptionOfTexts(previous: string, current: string, rolloverAt: Dec | null): { kind: ConsumptionKind; quantity: string } {
  const p = millionthsOf(previous);
  const c = p === null ? null : millionthsOf(current);
  if (p !== null && c !== null && c >= p) return { kind: 'normal', quantity: textOfMillionths(c - p) };
  const r = consumptionBetween(new Dec(previous), new Dec(current), rolloverAt);
  return { kind: r.kind, quantity: r.quantity.toFixed() };
}
