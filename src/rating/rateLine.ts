import type { Category } from './fields.ts';
import type { Dec, RoundingMode } from './money.ts';
import { formatMoney, minorUnitsOf, roundMoney, roundOnTotal, ZERO } from './money.ts';
import { partOfBill, partsOf } from './models/billShare.ts';
import type { ModelContext, SegmentContext } from './models/context.ts';
import { chargeModel, type Dispatch } from './models/registry.ts';
import type { PreparedComponent } from './prepareTariff.ts';
import type { BoundTrace, InputTrace, RatchetTrace, LimitTrace, LineTrace, ModelResult, ReadingTrace, SegmentTrace, ShareTrace } from './trace.ts';

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
 * half a month on the network, half the minimum charge. In a bill spanning a version
 * change they are the bill's, measured over the component's lines in every segment
 * (billLimit).
 */
export function rateLine(
  component: PreparedComponent,
  quantity: Dec,
  context: ModelContext,
  settings: LineSettings,
  source: { reading?: ReadingTrace; share?: ShareTrace; ratchet?: RatchetTrace; bound?: BoundTrace; input?: InputTrace; unit?: string; decimals?: number; segment?: SegmentTrace },
): { line: RatedLine; amount: Dec; minor: bigint } {
  const core = lineCore(component, quantity, context, settings, source.decimals);
  // A line that reads nothing of its bill's own (no reading, no input: a flat fee, a
  // percentage of other lines) is the same for every bill rated alike, its segment trace
  // included (the key holds the segment): one frozen line, shared, not a new one per bill.
  // The packer then reads it once (billLines/storedLines.ts).
  if (source.reading === undefined && source.input === undefined) {
    core.line ??= deepFreeze(newLine(component, core, settings, source));
    return { line: core.line, amount: core.amount, minor: core.minor };
  }
  return { line: newLine(component, core, settings, source), amount: core.amount, minor: core.minor };
}

/**
 * A line of the core, in the order rated before the cache was kept (the JSON of a bill is
 * the same byte for byte); the trace's parts below the top are the cache's, shared by the
 * bills that rated alike, so nothing may change them in place.
 */
function newLine(component: PreparedComponent, core: LineCore, settings: LineSettings, source: Parameters<typeof rateLine>[4]): RatedLine {
  const trace = { ...core.modelTrace } as LineTrace;
  if (source.reading !== undefined) trace.reading = source.reading;
  if (source.share !== undefined) trace.share = source.share;
  if (source.ratchet !== undefined) trace.ratchet = source.ratchet;
  if (source.bound !== undefined) trace.bound = source.bound;
  if (source.input !== undefined) trace.input = source.input;
  if (core.proration !== undefined) trace.proration = core.proration;
  if (core.limit !== undefined) trace.limit = core.limit;
  trace.unrounded = core.unrounded;
  if (core.carried !== undefined) trace.carried = core.carried;
  trace.rounding = settings.rounding;
  if (source.segment !== undefined) trace.segment = source.segment;
  const line = { componentCode: component.code, name: component.name, category: component.category, quantity: core.quantity } as RatedLine;
  if (source.unit !== undefined) line.unit = source.unit;
  if (core.rate !== undefined) line.rate = core.rate;
  line.amount = core.amountText;
  line.trace = trace;
  return line;
}

/** What a line is, whatever the bill: the model's answer, proration, limits, rounding. */
type LineCore = {
  modelTrace: ModelResult['trace'];
  proration?: LineTrace['proration'];
  limit?: LineTrace['limit'];
  unrounded: string;
  /** In a segment, the component's earlier lines it was rounded with (LineTrace.carried). */
  carried?: LineTrace['carried'];
  quantity: string;
  rate?: string;
  amount: Dec;
  amountText: string;
  /** The amount in minor units (money.ts, minorUnitsOf): what the bill's sums add. */
  minor: bigint;
  /** The whole line, when it reads nothing of its bill's own (rateLine): made once, frozen. */
  line?: RatedLine;
};

// Lines already rated, per component, by what they were rated from (lineKey). Most bills of
// a run rate alike: the standing charge of every subscription connected all term, the water
// of every meter that used 12 m3 (rating was a third of a worker's time, issue 15). The
// rating core is pure, so a line rated again from the same values is the same line.
const cores = new WeakMap<PreparedComponent, Map<string, LineCore>>();
// Bounded so that a roster whose lines rarely rate alike (quantities with decimals) costs a few MiB, not
// a line kept for every subscription: emptied when full.
const CORES_PER_COMPONENT = 2048;

function lineCore(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): LineCore {
  let byKey = cores.get(component);
  if (byKey === undefined) cores.set(component, (byKey = new Map()));
  const key = lineKey(component, quantity, context, settings, decimals);
  let core = byKey.get(key);
  if (core === undefined) {
    core = rateCore(component, quantity, context, settings, decimals);
    // Shared by every bill rated alike, so frozen: a change in place throws rather than
    // reaching another bill.
    deepFreeze(core.modelTrace);
    if (core.proration !== undefined) deepFreeze(core.proration);
    if (core.limit !== undefined) deepFreeze(core.limit);
    if (byKey.size >= CORES_PER_COMPONENT) byKey.clear();
    byKey.set(key, core);
  }
  return core;
}

/** Freezes a trace's plain objects and arrays, all the way down. */
function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== Array.prototype) return v;
  Object.freeze(v);
  for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  return v;
}

/**
 * Everything rateCore reads, as text: the quantity, the context (ModelContext: each of its
 * fields is here; a field added there must be added here), the amounts of the components
 * this one depends on, the settings and the decimals the quantity is shown with. In a
 * segment of a bill, also what the line reads of the other segments (a per-bill rule: its
 * limits, and the model's own, ChargeModel.segmentKey): without it a line raised to the
 * bill's minimum would be served to a bill whose earlier segment already reached it.
 */
function lineKey(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): string {
  let key = `${contextKey(context, settings)}|${quantity.toString()}|${decimals ?? ''}`;
  if (context.readingDays !== undefined) key += `|r${context.readingDays.toString()}`;
  const part = partOfBill(context);
  if (part !== undefined) {
    // What the carry reads, as text: no sums here, where every line of a segment passes
    // (issue 12: the sums cost a two-segment bill microseconds on every cached line). A line
    // priced by the day carries nothing (rateCore).
    const model = chargeModel(component.model) as Dispatch;
    if (model.byTheDay !== true) for (const earlier of earlierLines(component, part)) key += `|c${earlier.trace.unrounded},${decimalKey(earlier.amount)}`;
    if (component.minimum !== null || component.maximum !== null) key += `|l${limitKey(component, part)}`;
    if (model.segmentKey !== undefined) {
      const read = model.segmentKey(component, context, part);
      if (read !== '') key += `|m${read}`;
    }
  }
  for (const i of component.dependsOn) {
    const a = context.amounts[i];
    key += a === undefined ? '|a-' : `|a${decimalKey(a)}`;
  }
  return key;
}

// A line's amount is its core's, one object shared by every bill rated alike, and read into
// the keys of the lines after it (a percentage of it, its carry into the next segment): its
// text is kept with it rather than written again for every key (decimal.js's toString was a
// third of the keys' time on bills of two segments, issue 12).
const decimalKeys = new WeakMap<Dec, string>();
function decimalKey(d: Dec): string {
  let text = decimalKeys.get(d);
  if (text === undefined) decimalKeys.set(d, (text = d.toString()));
  return text;
}

// The part of a line's key that is the same for every line of a context (a bill, or a
// segment of one): worked out once per context and stood for by a number, so a key hashed
// and compared for each line is a few characters, not the segment's dates again (the
// lookup of long keys was a sixth of the rating of a bill of two segments, issue 12).
// The lines of a context are rated one after another, so the context met last is
// remembered (by identity: rateBill and rateSegmentedBill make a new one per bill and
// segment, and change only readingDays and amounts between its lines, which stay in the
// line's part of the key).
let lastContext: ModelContext | undefined;
let lastSettings: LineSettings | undefined;
let lastContextId = 0;
const contextIds = new Map<string, number>();

function contextKey(context: ModelContext, settings: LineSettings): number {
  if (context === lastContext && settings === lastSettings) return lastContextId;
  let text = `${context.activeDays}|${context.termDays}|${context.minorUnits}|${settings.minorUnits}|${settings.rounding}`;
  const seg = context.segment;
  if (seg !== undefined) text += `|s${seg.version},${seg.start},${seg.end},${seg.billDays},${seg.daysBefore},${seg.index}`;
  const sus = context.suspended;
  if (sus !== undefined) {
    text += `|u${sus.days}`;
    for (const p of sus.periods) text += `,${p.start}:${p.end}`;
  }
  let id = contextIds.get(text);
  if (id === undefined) {
    // Emptied when full; ids are never given again, so no line cached under an old one is served for another.
    if (contextIds.size >= CONTEXTS_KEPT) contextIds.clear();
    contextIds.set(text, (id = nextContextId++));
  }
  lastContext = context;
  lastSettings = settings;
  lastContextId = id;
  return id;
}
const CONTEXTS_KEPT = 65536;
let nextContextId = 0;

function rateCore(component: PreparedComponent, quantity: Dec, context: ModelContext, settings: LineSettings, decimals: number | undefined): LineCore {
  // prepareTariff made the component from its model: the model is there.
  const model = chargeModel(component.model) as Dispatch;
  const result = model.rate(component, quantity, context) as ModelResult;
  let amount = result.amount;
  const core = { modelTrace: result.trace } as LineCore;

  let minimum: Limit | null = component.minimum === null ? null : { at: component.minimum, shown: component.minimum };
  let maximum: Limit | null = component.maximum === null ? null : { at: component.maximum, shown: component.maximum };
  const factor = prorationFactor(component, model, context);
  if (factor !== null) {
    const before = amount;
    const scale = (x: Dec) => x.times(factor.days).div(factor.of);
    amount = scale(amount);
    if (minimum !== null) minimum = { at: scale(minimum.at), shown: scale(minimum.at) };
    if (maximum !== null) maximum = { at: scale(maximum.at), shown: scale(maximum.at) };
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
      proration.suspended = context.suspended.periods.map((p) => ({ ...p }));
    }
    core.proration = proration;
  }
  const part = minimum === null && maximum === null ? undefined : partOfBill(context);
  if (part !== undefined) {
    minimum = billLimit('minimum', component, context, part);
    maximum = billLimit('maximum', component, context, part);
  }
  if (minimum !== null && amount.lt(minimum.at)) {
    const limit: LimitTrace = { minimum: minimum.shown.toFixed(), applied: 'minimum', before: amount.toFixed() };
    if (maximum !== null) limit.maximum = maximum.shown.toFixed();
    if (minimum.bill !== undefined) limit.bill = minimum.bill;
    core.limit = limit;
    amount = minimum.at;
  } else if (maximum !== null && amount.gt(maximum.at)) {
    const limit: LimitTrace = { maximum: maximum.shown.toFixed(), applied: 'maximum', before: amount.toFixed() };
    if (minimum !== null) limit.minimum = minimum.shown.toFixed();
    if (maximum.bill !== undefined) limit.bill = maximum.bill;
    core.limit = limit;
    amount = maximum.at;
  }
  core.unrounded = amount.toFixed();
  // In a segment, the component's line is rounded on the running total of its lines in the
  // bill: round(earlier unrounded + this) less the earlier lines as rounded, so the lines of
  // one charge add up to what it comes to over the bill, as a bill without segments rounds
  // it once. Rounded alone, each part moved the charge a cent: a standing charge of 100.00
  // over three parts billed 100.01, one unit at 0.333 split in two 0.34, VAT 84.27 for 84.26
  // (a reviewer's finding and an outside check of a UK bill across the price-cap change).
  // A line held to a limit is that limit, exact, and is not carried. Nor is a line priced by
  // the day (perDay, perUnitPerDay): each part is its own days at its own rate, printed as
  // "130 kVA, 0.2521 x 15 days", which its amount must be (an outside check of a network
  // tariff across the 1 July price change: 491.59 carried for 491.60).
  // The trace keeps the carry only where it changed the line: elsewhere "rounded to" is
  // the whole truth, and every such field is packed and stored with the bill.
  const carry = core.limit === undefined && model.byTheDay !== true ? earlierOfLine(component, context) : undefined;
  let rounded = roundMoney(amount, settings.minorUnits, settings.rounding);
  if (carry !== undefined) {
    const carried = roundOnTotal(amount, { exact: carry.unrounded, billed: carry.rounded }, settings.minorUnits, settings.rounding);
    if (!carried.eq(rounded)) {
      rounded = carried;
      core.carried = { unrounded: carry.unrounded.toFixed(), rounded: formatMoney(carry.rounded, settings.minorUnits) };
    }
  }

  const shown = result.quantity ?? quantity;
  core.quantity = model.lineQuantity === 'base' ? formatMoney(shown, settings.minorUnits) : model.lineQuantity === 'one' ? '1' : shown.toFixed(decimals);
  if (result.rate !== undefined) core.rate = result.rate.toFixed();
  core.amount = rounded;
  core.amountText = formatMoney(rounded, settings.minorUnits);
  core.minor = minorUnitsOf(core.amountText, settings.minorUnits) as bigint;
  return core;
}

/**
 * In a segment of a bill, the unrounded and rounded sums of the component's lines (by its
 * code) in the segments before this one; undefined when there are none, or outside a segment.
 */
function earlierOfLine(component: PreparedComponent, context: ModelContext): { unrounded: Dec; rounded: Dec } | undefined {
  const seg = partOfBill(context);
  if (seg === undefined) return undefined;
  let unrounded = ZERO;
  let rounded = ZERO;
  let found = false;
  for (const earlier of earlierLines(component, seg)) {
    unrounded = unrounded.plus(earlier.trace.unrounded);
    rounded = rounded.plus(earlier.amount);
    found = true;
  }
  // Earlier lines with nothing left over from their rounding leave this one to round alone.
  return found && !unrounded.eq(rounded) ? { unrounded, rounded } : undefined;
}

/** The component's lines (by its code) in the segments of the bill before this one. */
function* earlierLines(component: PreparedComponent, seg: SegmentContext): Generator<{ trace: LineTrace; amount: Dec }> {
  for (let i = 0; i < seg.index; i++) {
    const s = seg.segments[i]!;
    if (s.days === 0) continue;
    const c = s.components.get(component.code);
    if (c === undefined) continue;
    const trace = s.traces[c.index];
    const amount = s.amounts[c.index];
    if (trace !== undefined && amount !== undefined) yield { trace, amount };
  }
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

/**
 * A limit on a line: the amount it holds the line to (`at`), the limit the trace shows
 * (the same, or in a segment the bill's limit `at` is worked out from) and how.
 */
type Limit = { at: Dec; shown: Dec; bill?: LimitTrace['bill'] };

/**
 * A line's minimum or maximum in a segment of a bill spanning a version change, or null
 * when none applies on this line. Applied in each segment, a minimum of 200 raised a
 * segment of 10 kL to 200.00 although the bill used 310 kL, and a maximum let each segment
 * reach it. A limit is per bill:
 * - the bill's limit is each version's for its segment's share of the days, summed:
 *   limit x days / the bill's billed days, or / the term's days for a prorated component
 *   (as without segments, where a prorated line's limits are prorated too);
 * - over the component's lines in the segments whose version gives it that limit;
 * - a minimum raises the last of those lines to the bill's minimum less the earlier lines;
 * - a maximum is used up in date order: each line is held to what the earlier lines left
 *   of it, so no line is negative.
 */
function billLimit(which: 'minimum' | 'maximum', component: PreparedComponent, context: ModelContext, seg: SegmentContext): Limit | null {
  if (component[which] === null) return null;
  const parts = limitParts(which, component, seg);
  // Sums of limit x days per divisor, divided once: 200 x 15/31 + 200 x 16/31 is 200 exactly.
  let overBillDays = ZERO;
  let overTermDays = ZERO;
  let earlier = ZERO;
  const traced: NonNullable<LimitTrace['bill']>['parts'] = [];
  for (const p of parts) {
    const limit = p.component[which] as Dec;
    const weighted = limit.times(p.segment.days);
    if (p.component.prorate) overTermDays = overTermDays.plus(weighted);
    else overBillDays = overBillDays.plus(weighted);
    traced.push({ version: p.segment.version, limit: limit.toFixed(), days: p.segment.days, of: p.component.prorate ? context.termDays : seg.billDays });
    if (p.index < seg.index) earlier = earlier.plus(p.segment.amounts[p.component.index] as Dec);
  }
  const total = overBillDays.div(seg.billDays).plus(overTermDays.div(context.termDays));
  const bill = { parts: traced, earlier: formatMoney(earlier, context.minorUnits) };
  if (which === 'minimum') {
    const last = parts[parts.length - 1];
    return last !== undefined && last.index === seg.index ? { at: total.minus(earlier), shown: total, bill } : null;
  }
  // An earlier line rounded up (rounding 'up' or 'ceil') may pass the maximum by less than
  // a minor unit: what is left is then nothing, not a negative line.
  let left = total.minus(earlier);
  if (left.isNegative() && !total.isNegative()) left = ZERO;
  return { at: left, shown: total, bill };
}

/** The segments whose version gives the component this limit. */
function limitParts(which: 'minimum' | 'maximum', component: PreparedComponent, seg: SegmentContext) {
  return partsOf(seg, component.code, (c): c is PreparedComponent => c[which] !== null);
}

/** What billLimit reads of the bill's segments, for the cache key: each part's days, limit, proration and, before this one, amount. */
function limitKey(component: PreparedComponent, seg: SegmentContext): string {
  let key = '';
  for (const which of ['minimum', 'maximum'] as const) {
    if (component[which] === null) continue;
    key += which === 'minimum' ? 'n' : 'x';
    for (const p of limitParts(which, component, seg)) {
      key += `${p.index},${p.segment.days},${(p.component[which] as Dec).toString()},${p.component.prorate ? 1 : 0}`;
      key += p.index < seg.index ? `,${(p.segment.amounts[p.component.index] as Dec).toString()};` : ';';
    }
  }
  return key;
}
