import { Type, type Static } from 'typebox';
import { Amount } from '../fields.ts';
import { type Dec, toDecimal } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, inputField, type PreparedBase, levelBoundFields } from './model.ts';

/**
 * A rate per unit per day: a level held over the days billed, priced by the day. Network
 * and capacity charges are published so: "45.12c/kW/day" on the month's maximum demand
 * (Australian demand tariffs), "R 0.4512 /kVA/day" on a notified maximum demand or a
 * contracted capacity (South African municipal business tariffs). The input is a level: a
 * demand register (its highest reading) or an unmetered input (kVA contracted), never a
 * running total (kWh per day means nothing). Quantity x days x rate, the days those the
 * subscription is billed for (connected, not suspended), or, in a term spanning a version
 * change, the segment's: each segment prices the whole level for its own days at its
 * version's rate (a demand is not shared by days here, as it is for a monthly rate per kW:
 * the days are in the price already).
 */
export const PerUnitPerDayComponent = Type.Object(
  { ...componentFields, model: Type.Literal('perUnitPerDay'), input: inputField, ...levelBoundFields, rate: Amount },
  { additionalProperties: false, title: 'PerUnitPerDayComponent', description: 'rate x quantity x the days billed (a capacity or demand charge per kVA or kW per day)' },
);
export type PerUnitPerDayComponent = Static<typeof PerUnitPerDayComponent>;
export type PreparedPerUnitPerDay = PreparedBase & { model: 'perUnitPerDay'; rate: Dec };
export type PerUnitPerDayTrace = { model: 'perUnitPerDay'; quantity: string; days: number; rate: string };

/** quantity x activeDays (the bill's, or its segment's) x rate. */
export function ratePerUnitPerDay(component: PreparedPerUnitPerDay, quantity: Dec, context: ModelContext): ModelResult<PerUnitPerDayTrace> {
  return {
    amount: quantity.times(toDecimal(context.activeDays)).times(component.rate),
    rate: component.rate,
    trace: { model: 'perUnitPerDay', quantity: quantity.toFixed(), days: context.activeDays, rate: component.rate.toFixed() },
  };
}

export const perUnitPerDay = defineModel({
  name: 'perUnitPerDay',
  schema: PerUnitPerDayComponent,
  usesInput: true,
  // The days are in the price: never scaled by them again.
  prorate: 'never',
  byTheDay: true,
  lineQuantity: 'measured',
  solvable: ['rate'],
  levelInput: true,
  check: (c, path, ctx) => {
    ctx.amount(c.rate, `${path}.rate`, 'any');
    if (ctx.inputKind(c.input) === 'cumulative') {
      ctx.issues.push({ path: `${path}.input`, message: `a perUnitPerDay component prices a level by the day (a demand register or an unmetered input); '${c.input}' is a cumulative meter (price it with perUnit)` });
    }
  },
  prepare: (c, base, ctx): PreparedPerUnitPerDay => ({ ...base, model: 'perUnitPerDay', rate: ctx.resolve(c.rate) }),
  rate: ratePerUnitPerDay,
  explain: (t) => `${t.quantity} x ${t.days} day(s) x ${t.rate}`,
});
