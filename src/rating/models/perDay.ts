import { Type, type Static } from 'typebox';
import { Amount } from '../fields.ts';
import { type Dec, toDecimal } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, type PreparedBase } from './model.ts';

/**
 * A rate per day the subscription is billed for: a daily standing (supply, service) charge
 * as published by UK energy suppliers ("58.0857p a day") and Australian utilities. The days
 * are the line's quantity: the term's days the subscription is connected and not suspended,
 * or, in a term spanning a version change, the segment's (each at its version's rate). A
 * flat charge prorated by days gives the same only in a term of the month the amount was
 * worked out for; a new user billing a 30-day month with a 31-day amount found it could
 * not be expressed.
 */
export const PerDayComponent = Type.Object(
  { ...componentFields, model: Type.Literal('perDay'), rate: Amount },
  { additionalProperties: false, title: 'PerDayComponent', description: 'rate x the days billed (a daily standing charge)' },
);
export type PerDayComponent = Static<typeof PerDayComponent>;
export type PreparedPerDay = PreparedBase & { model: 'perDay'; rate: Dec };
export type PerDayTrace = { model: 'perDay'; days: number; rate: string };

/** rate x the days billed (activeDays: the bill's, or its segment's). */
export function ratePerDay(component: PreparedPerDay, _quantity: Dec, context: ModelContext): ModelResult<PerDayTrace> {
  const days = toDecimal(context.activeDays);
  return {
    amount: days.times(component.rate),
    rate: component.rate,
    quantity: days,
    trace: { model: 'perDay', days: context.activeDays, rate: component.rate.toFixed() },
  };
}

export const perDay = defineModel({
  name: 'perDay',
  schema: PerDayComponent,
  usesInput: false,
  // The days are its quantity already: never scaled by them again.
  prorate: 'never',
  byTheDay: true,
  lineQuantity: 'measured',
  solvable: ['rate'],
  check: (c, path, ctx) => void ctx.amount(c.rate, `${path}.rate`, 'any'),
  prepare: (c, base, ctx): PreparedPerDay => ({ ...base, model: 'perDay', rate: ctx.resolve(c.rate) }),
  rate: ratePerDay,
  explain: (t) => `${t.days} day(s) x ${t.rate}`,
});
