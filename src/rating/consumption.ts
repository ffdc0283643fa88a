import type { Dec } from './money.ts';

export type ConsumptionKind = 'normal' | 'rollover' | 'negative';

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
