import type { Category } from './fields.ts';
import type { Dec, RoundingMode } from './money.ts';
import { formatMoney, roundMoney } from './money.ts';
import type { ModelContext } from './models/context.ts';
import { chargeModel, type Dispatch } from './models/registry.ts';
import type { PreparedComponent } from './prepareTariff.ts';
import type { InputTrace, LineTrace, ModelResult, ReadingTrace } from './trace.ts';

export type RatedLine = {
  componentCode: string;
  name: string;
  category: Category;
  quantity: string;
  unit?: string;
  rate?: string;
  /** Rounded to the currency's minor unit, fixed decimals ("12.50"). */
  amount: string;
  trace: LineTrace;
};

export type LineSettings = { minorUnits: number; rounding: RoundingMode };

/**
 * One line: the charge model, then (in this order, and only here) proration,
 * the minimum and maximum, and the rounding to the minor unit.
 *
 * Proration multiplies by activeDays and divides by termDays as the last
 * step, so 100.00 for 15 of 31 days is 48.387096... exactly to 50 digits,
 * then rounded once; never a pre-rounded factor like 0.4839.
 * A prorated component's minimum and maximum are prorated by the same factor:
 * half a month on the network, half the minimum charge.
 */
export function rateLine(
  component: PreparedComponent,
  quantity: Dec,
  context: ModelContext,
  settings: LineSettings,
  source: { reading?: ReadingTrace; input?: InputTrace; unit?: string; decimals?: number },
): { line: RatedLine; amount: Dec } {
  // prepareTariff made the component from its model: the model is there.
  const model = chargeModel(component.model) as Dispatch;
  const result = model.rate(component, quantity, context) as ModelResult;
  let amount = result.amount;
  const trace = { ...result.trace } as LineTrace;
  if (source.reading !== undefined) trace.reading = source.reading;
  if (source.input !== undefined) trace.input = source.input;

  let minimum = component.minimum;
  let maximum = component.maximum;
  const factor = prorationFactor(component, model, context);
  if (factor !== null) {
    const before = amount;
    const scale = (x: Dec) => x.times(factor.days).div(factor.of);
    amount = scale(amount);
    if (minimum !== null) minimum = scale(minimum);
    if (maximum !== null) maximum = scale(maximum);
    trace.proration = {
      activeDays: factor.days,
      termDays: factor.of,
      factor: `${factor.days}/${factor.of}`,
      before: before.toFixed(),
      after: amount.toFixed(),
    };
    if (factor.basis !== undefined) trace.proration.basis = factor.basis;
    if (context.suspended !== undefined) {
      trace.proration.suspendedDays = context.suspended.days;
      trace.proration.suspended = context.suspended.periods;
    }
  }
  if (minimum !== null && amount.lt(minimum)) {
    trace.limit = { minimum: minimum.toFixed(), applied: 'minimum', before: amount.toFixed() };
    if (maximum !== null) trace.limit.maximum = maximum.toFixed();
    amount = minimum;
  } else if (maximum !== null && amount.gt(maximum)) {
    trace.limit = { maximum: maximum.toFixed(), applied: 'maximum', before: amount.toFixed() };
    if (minimum !== null) trace.limit.minimum = minimum.toFixed();
    amount = maximum;
  }
  trace.unrounded = amount.toFixed();
  trace.rounding = settings.rounding;
  const rounded = roundMoney(amount, settings.minorUnits, settings.rounding);

  const shown = result.quantity ?? quantity;
  const line = {
    componentCode: component.code,
    name: component.name,
    category: component.category,
    quantity:
      model.lineQuantity === 'base'
        ? formatMoney(shown, settings.minorUnits)
        : model.lineQuantity === 'one'
          ? '1'
          : shown.toFixed(source.decimals),
  } as RatedLine;
  if (source.unit !== undefined) line.unit = source.unit;
  if (result.rate !== undefined) line.rate = result.rate.toFixed();
  line.amount = formatMoney(rounded, settings.minorUnits);
  line.trace = trace;
  return { line, amount: rounded };
}

/**
 * The days a line's amount is scaled by, or null. Outside a segment: activeDays /
 * termDays when the component prorates. In a segment of a bill spanning a version change
 * (segments.ts), each segment charges its share of the bill:
 * - a prorated component: the segment's billed days / termDays;
 * - a component not prorated, with no metered input (a flat fee, rooms x rate): the
 *   segment's billed days / the bill's billed days, so the segments add up to one charge;
 * - a component on a metered input: its quantity is already the segment's part of the
 *   consumption, so only the bill's own proration applies (bill days / termDays if prorated);
 * - a model that never prorates (percentage): none, its base is the segment's lines.
 */
function prorationFactor(
  component: PreparedComponent,
  model: Dispatch,
  context: ModelContext,
): { days: number; of: number; basis?: 'billedDays' } | null {
  const seg = context.segment;
  if (seg === undefined) return component.prorate && context.activeDays !== context.termDays ? { days: context.activeDays, of: context.termDays } : null;
  if (model.prorate === 'never') return null;
  if (component.input?.kind === 'metered') return component.prorate && seg.billDays !== context.termDays ? { days: seg.billDays, of: context.termDays } : null;
  if (component.prorate) return context.activeDays !== context.termDays ? { days: context.activeDays, of: context.termDays } : null;
  return context.activeDays !== seg.billDays ? { days: context.activeDays, of: seg.billDays, basis: 'billedDays' } : null;
}
