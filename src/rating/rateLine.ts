import type { Category } from './fields.ts';
import type { Dec, RoundingMode } from './money.ts';
import { formatMoney, roundMoney } from './money.ts';
import { partOfBill } from './models/billShare.ts';
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
  const core = lineCore(component, quantity, context, settings, source.decimals);
  // A new line and trace for each bill, in the order rated before the cache was kept (the
  // JSON of a bill is the same byte for byte); the trace's parts below the top are the
  // cache's, shared by the bills that rated alike, so nothing may change them in place.
  const trace = { ...core.modelTrace } as LineTrace;
  if (source.reading !== undefined) trace.reading = source.reading;
  if (source.input !== undefined) trace.input = source.input;
  if (core.proration !== undefined) trace.proration = core.proration;
  if (core.limit !== undefined) trace.limit = core.limit;
  trace.unrounded = core.unrounded;
  trace.rounding = settings.rounding;
  const line = { componentCode: component.code, name: component.name, category: component.category, quantity: core.quantity } as RatedLine;
  if (source.unit !== undefined) line.unit = source.unit;
  if (core.rate !== undefined) line.rate = core.rate;
  line.amount = core.amountText;
  line.trace = trace;
  return { line, amount: core.amount };
}

/** What a line is, whatever the bill: the model's answer, proration, limits, rounding. */
type LineCore = {
  modelTrace: ModelResult['trace'];
  proration?: LineTrace['proration'];
  limit?: LineTrace['limit'];
  unrounded: string;
  quantity: string;
  rate?: string;
  amount: Dec;
  amountText: string;
};

// Lines already rated, per component, by what they were rated from (lineKey). Most bills of
// a run rate alike: the standing charge of every subscription connected all term, the water
// of every meter that used 12 m3 (rating was a third of a worker's time, issue 15). The
// rating core is pure, so a line rated again from the same values is the same line.
const cores = new WeakMap<PreparedComponent, Map<string, LineCore>>();
const CORES_PER_COMPONENT = 20_000;

function lineCore(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): LineCore {
  let byKey = cores.get(component);
  if (byKey === undefined) cores.set(component, (byKey = new Map()));
  const key = lineKey(component, quantity, context, settings, decimals);
  let core = byKey.get(key);
  if (core === undefined) {
    core = rateCore(component, quantity, context, settings, decimals);
    if (byKey.size >= CORES_PER_COMPONENT) byKey.clear();
    byKey.set(key, core);
  }
  return core;
}

/**
 * Everything rateCore reads, as text: the quantity, the context (ModelContext: each of its
 * fields is here; a field added there must be added here), the amounts of the components
 * this one depends on, the settings and the decimals the quantity is shown with. In a
 * segment of a bill, also what the line reads of the other segments (the model's own,
 * ChargeModel.segmentKey): without it a commitment's line of a bill whose earlier segment
 * already reached it would be served to a bill whose earlier segment did not.
 */
function lineKey(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): string {
  let key = `${quantity.toString()}|${context.activeDays}|${context.termDays}|${context.minorUnits}|${settings.minorUnits}|${settings.rounding}|${decimals ?? ''}`;
  if (context.readingDays !== undefined) key += `|r${context.readingDays.toString()}`;
  const seg = context.segment;
  if (seg !== undefined) {
    key += `|s${seg.version},${seg.start},${seg.end},${seg.billDays},${seg.daysBefore},${seg.index}`;
    const part = partOfBill(context);
    if (part !== undefined) {
      const model = chargeModel(component.model) as Dispatch;
      if (model.segmentKey !== undefined) key += `|m${model.segmentKey(component, context, part)}`;
    }
  }
  const sus = context.suspended;
  if (sus !== undefined) {
    key += `|u${sus.days}`;
    for (const p of sus.periods) key += `,${p.start}:${p.end}`;
  }
  for (const i of component.dependsOn) key += `|a${context.amounts[i]?.toString() ?? '-'}`;
  return key;
}

function rateCore(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): LineCore {
  // prepareTariff made the component from its model: the model is there.
  const model = chargeModel(component.model) as Dispatch;
  const result = model.rate(component, quantity, context) as ModelResult;
  let amount = result.amount;
  const core = { modelTrace: result.trace } as LineCore;

  let minimum = component.minimum;
  let maximum = component.maximum;
  const factor = prorationFactor(component, model, context);
  if (factor !== null) {
    const before = amount;
    const scale = (x: Dec) => x.times(factor.days).div(factor.of);
    amount = scale(amount);
    if (minimum !== null) minimum = scale(minimum);
    if (maximum !== null) maximum = scale(maximum);
    const proration: NonNullable<LineTrace['proration']> = {
      activeDays: factor.days,
      termDays: factor.of,
      factor: `${factor.days}/${factor.of}`,
      before: before.toFixed(),
      after: amount.toFixed(),
    };
    if (factor.basis !== undefined) proration.basis = factor.basis;
    if (context.suspended !== undefined) {
      proration.suspendedDays = context.suspended.days;
      proration.suspended = context.suspended.periods;
    }
    core.proration = proration;
  }
  if (minimum !== null && amount.lt(minimum)) {
    core.limit = { minimum: minimum.toFixed(), applied: 'minimum', before: amount.toFixed() };
    if (maximum !== null) core.limit.maximum = maximum.toFixed();
    amount = minimum;
  } else if (maximum !== null && amount.gt(maximum)) {
    core.limit = { maximum: maximum.toFixed(), applied: 'maximum', before: amount.toFixed() };
    if (minimum !== null) core.limit.minimum = minimum.toFixed();
    amount = maximum;
  }
  core.unrounded = amount.toFixed();
  const rounded = roundMoney(amount, settings.minorUnits, settings.rounding);

  const shown = result.quantity ?? quantity;
  core.quantity = model.lineQuantity === 'base' ? formatMoney(shown, settings.minorUnits) : model.lineQuantity === 'one' ? '1' : shown.toFixed(decimals);
  if (result.rate !== undefined) core.rate = result.rate.toFixed();
  core.amount = rounded;
  core.amountText = formatMoney(rounded, settings.minorUnits);
  return core;
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
