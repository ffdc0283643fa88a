import { SPLIT_DECIMALS } from '../segments.ts';
import { Type, type Static, type TProperties } from 'typebox';
import { Amount, DecimalString } from '../fields.ts';
import { Dec, roundMoney, type RoundingMode, toDecimal } from '../money.ts';
import type { ModelContext, SegmentContext, SegmentOfBill } from './context.ts';
import { RatingError } from '../errors.ts';
import { consumptionPart, shareOfBill } from './billShare.ts';
import type { PreparedInput } from '../prepareTariff.ts';
import { type CheckContext, componentFields, inputField, inputShareField, type PrepareContext, type PreparedBase, prorateField, levelBoundFields } from './model.ts';

/**
 * Tiers, shared by the models that price by tier (graduated, volume): their
 * schema, their check, their preparation, and the bounds used for one bill.
 */

export const Tier = Type.Object(
  {
    upTo: Type.Union([DecimalString, Type.Number(), Type.Null()], {
      description: 'Upper bound of the tier, included; null for the last, open tier',
    }),
    rate: Amount,
    flat: Type.Optional(Amount),
  },
  { additionalProperties: false },
);
export type Tier = Static<typeof Tier>;

export const TierRounding = Type.Union([Type.Literal('down'), Type.Literal('up'), Type.Literal('halfUp')]);
export type TierRounding = Static<typeof TierRounding>;

export const TierProrationPeriod = Type.Union([Type.Literal('term'), Type.Literal('readingPeriod')], {
  description:
    "The days the bounds are scaled by: 'term' (default) the subscription's billed days of the term, 'readingPeriod' the days between the two readings of the component's meter",
});
export type TierProrationPeriod = Static<typeof TierProrationPeriod>;

export const TierProration = Type.Object(
  {
    period: Type.Optional(TierProrationPeriod),
    basisDays: Type.Union([Type.Integer({ minimum: 1, maximum: 366 }), DecimalString], {
      description: "Days the tier bounds are written for: a whole number (30, 365), or a decimal as text for an average month ('30.4375', a year of 365.25 days over 12); above 0, at most 366, at most 6 decimals",
    }),
    decimals: Type.Integer({ minimum: 0, maximum: 6, description: 'Decimals a scaled bound keeps' }),
    rounding: TierRounding,
  },
  {
    additionalProperties: false,
    description: 'Scale tier bounds by days / basisDays (days: see period), rounded to decimals by the rounding rule',
  },
);
export type TierProration = Static<typeof TierProration>;

export const tiersField = Type.Array(Tier, { minItems: 1, maxItems: 100 });

export type PreparedTier = { upTo: Dec | null; rate: Dec; flat: Dec | null };
export type PreparedTierProration = { period: TierProrationPeriod; basisDays: Dec; decimals: number; rounding: TierRounding };

/** The component of a model priced by tiers: an input, its tiers, optional tier proration, and what the model adds (`own`). */
export function tieredComponent<M extends string, P extends TProperties = {}>(model: M, description: string, own?: P) {
  return Type.Object(
    {
      ...componentFields,
      model: Type.Literal(model),
      input: inputField,
      inputShare: inputShareField,
      ...levelBoundFields,
      prorate: prorateField,
      tiers: tiersField,
      tierProration: Type.Optional(TierProration),
      ...(own as P),
    },
    // The name the OpenAPI document gives it (GraduatedComponent, VolumeComponent).
    { additionalProperties: false, description, title: `${model.charAt(0).toUpperCase()}${model.slice(1)}Component` },
  );
}

export type PreparedTiered<M extends string> = PreparedBase & {
  model: M;
  tiers: PreparedTier[];
  tierProration: PreparedTierProration | null;
};

export type TierTrace = {
  /** 1-based tier number as the customer reads it. */
  tier: number;
  /** Lower bound (exclusive; 0 for the first tier). */
  from: string;
  /** Upper bound (inclusive), after tier proration; null for the open tier. */
  upTo: string | null;
  /** Units priced in this tier. */
  quantity: string;
  rate: string;
  flat?: string;
  /** In a segment of a bill spanning a version change: the part of the flat charged here, flat x days / billDays. */
  flatShare?: FlatShareTrace;
  /** quantity x rate + flat (or its share); rounded to the minor unit when the component rounds each tier. */
  amount: string;
  /** With roundEachTier, where the rounding changed it: the tier's amount before it was rounded. */
  unrounded?: string;
  /**
   * With roundEachTier in a later segment of a bill spanning a version change, where it changed
   * the amount: the same tier's amounts in the bill's earlier segments, exact and as billed. The
   * tier is then rounded on their running total, as a line is (a tier's flat shared by the
   * segments' days, 50.005 each, billed 50.01 + 50.01 for a flat of 100.01).
   */
  carried?: { unrounded: string; rounded: string };
};

/** A tier's flat is charged once per bill: a segment charges flat x its billed days / the bill's. */
export type FlatShareTrace = { days: number; billDays: number; amount: string };

export type TierProrationTrace = {
  /** A whole number of days, or a decimal as text ('30.4375') when the basis is one. */
  basisDays: number | string;
  /** 'readingPeriod' when the bounds were scaled by readingDays rather than activeDays. */
  period?: 'readingPeriod';
  /**
   * Days between the two readings used, with period 'readingPeriod' (a segment takes
   * activeDays / billDays of them). Bills made before 2026-11-26 wrote a segment's part
   * here, a fraction, and no billDays.
   */
  readingDays?: string;
  activeDays: number;
  /** In a segment of a bill spanning a version change: the bill's billed days, of which activeDays are the segment's. */
  billDays?: number;
  /**
   * In a segment of a bill spanning a version change: billed days of the bill's earlier
   * segments. The bound used is then rounded on the running total of days:
   * round(upTo x (daysBefore + activeDays) / basisDays) - round(upTo x daysBefore / basisDays)
   * (by readingPeriod, each x the reading period's days / the bill's billed days).
   */
  daysBefore?: number;
  /** Connected days not counted in activeDays because the subscription was suspended. */
  suspendedDays?: number;
  decimals: number;
  rounding: TierRounding;
  /** Each written bound and the bound used: upTo x activeDays (or readingDays) / basisDays, rounded. */
  bounds: ScaledBound[];
};

/**
 * A written bound and the bound used. `carried`: in a segment after a version that wrote
 * this tier's bound otherwise (a summer baseline after a winter one), the exact allowance
 * the bill's earlier segments gave the tier by their own versions (`allowance`) and the
 * bounds they were given (`rounded`); the bound used is the running total's rounding less
 * those (docs/rating.md).
 */
export type ScaledBound = {
  upTo: string;
  scaled: string;
  carried?: { allowance: string; rounded: string };
  /** A segment's bound under tier proration: the bill's bound (prorated and rounded by the rule), of which `scaled` is the segment's share by days. */
  ofBill?: string;
};

/**
 * Bounds written per term scaled to a segment of a bill (segments.ts): upTo x days / billDays,
 * rounded on the running total of days (daysBefore: billed days of the earlier segments).
 */
export type SegmentBoundsTrace = { days: number; billDays: number; daysBefore?: number; bounds: ScaledBound[] };

/**
 * Tiers ascending, only the last open, rates not negative; tier proration in range. A flat is
 * not negative either, except where `flats` is 'any': on a volume component a tier's flat is
 * the band's own amount, and a negative one is a credit for landing in that band (a retail
 * electricity plan's "125 off when the month's use is 1,000 to 2,000 kWh"). On graduated tiers
 * every flat reached is charged, so a negative one would be a credit for passing a bound.
 */
export function checkTiers(
  c: { tiers: readonly Tier[]; tierProration?: TierProration | undefined },
  path: string,
  ctx: CheckContext,
  flats: 'any' | 'nonNegative' = 'nonNegative',
): void {
  const { issues } = ctx;
  const tiers = Array.isArray(c.tiers) ? c.tiers : [];
  if (tiers.length === 0) {
    issues.push({ path: `${path}.tiers`, message: 'needs at least one tier' });
    return;
  }
  let previous: Dec | null = null;
  tiers.forEach((t, j) => {
    const p = `${path}.tiers[${j}]`;
    const last = j === tiers.length - 1;
    if (t.upTo === null) {
      if (!last) issues.push({ path: `${p}.upTo`, message: 'only the last tier may be open (upTo null)' });
    } else {
      if (last) issues.push({ path: `${p}.upTo`, message: 'the last tier must be open (upTo null), or units above it have no price' });
      const up = ctx.number(t.upTo, `${p}.upTo`, 'positive');
      if (up !== null) {
        if (previous !== null && up.lte(previous)) {
          issues.push({ path: `${p}.upTo`, message: `${up.toFixed()} is not above the previous tier's ${previous.toFixed()}` });
        }
        previous = up;
      }
    }
    ctx.amount(t.rate, `${p}.rate`, 'nonNegative');
    ctx.amount(t.flat, `${p}.flat`, flats);
  });
  const tp = c.tierProration;
  if (tp !== undefined) {
    const p = `${path}.tierProration`;
    if (typeof tp.basisDays === 'number') {
      if (!Number.isInteger(tp.basisDays) || tp.basisDays < 1 || tp.basisDays > 366) issues.push({ path: `${p}.basisDays`, message: 'must be an integer from 1 to 366' });
    } else {
      const basis = ctx.number(tp.basisDays, `${p}.basisDays`, 'positive');
      if (basis !== null && (basis.gt(366) || basis.decimalPlaces() > 6)) issues.push({ path: `${p}.basisDays`, message: 'must be above 0 and at most 366, with at most 6 decimals' });
    }
    if (!Number.isInteger(tp.decimals) || tp.decimals < 0 || tp.decimals > 6) {
      issues.push({ path: `${p}.decimals`, message: 'must be an integer from 0 to 6' });
    }
    if (tp.rounding !== 'down' && tp.rounding !== 'up' && tp.rounding !== 'halfUp') {
      issues.push({ path: `${p}.rounding`, message: "must be 'down', 'up' or 'halfUp'" });
    }
    if (tp.period !== undefined && tp.period !== 'term' && tp.period !== 'readingPeriod') {
      issues.push({ path: `${p}.period`, message: "must be 'term' or 'readingPeriod'" });
    }
  }
}

export function prepareTiers(
  c: { tiers: readonly Tier[]; tierProration?: TierProration | undefined },
  ctx: PrepareContext,
): { tiers: PreparedTier[]; tierProration: PreparedTierProration | null } {
  return {
    tiers: c.tiers.map((t) => ({
      upTo: t.upTo === null ? null : toDecimal(t.upTo),
      rate: ctx.resolve(t.rate),
      flat: t.flat === undefined ? null : ctx.resolve(t.flat),
    })),
    tierProration:
      c.tierProration === undefined
        ? null
        : { period: c.tierProration.period ?? 'term', basisDays: toDecimal(c.tierProration.basisDays), decimals: c.tierProration.decimals, rounding: c.tierProration.rounding },
  };
}

/**
 * A tier's flat as charged on this line: as written, or in a segment of a bill spanning a
 * version change its share by billed days, so the segments together charge it once (the
 * first tier's flat, charged even for no consumption, was charged in every segment).
 */
export function tierFlat(flat: Dec, input: PreparedInput | null, context: ModelContext): { amount: Dec; share?: FlatShareTrace } {
  const part = consumptionPart(input, context)?.seg;
  if (part === undefined) return { amount: flat };
  const amount = flat.times(context.activeDays).div(part.billDays);
  return { amount, share: { days: context.activeDays, billDays: part.billDays, amount: amount.toFixed() } };
}

/** A priced tier's trace: tier i (0-based) from `lower` up to `upper`, `quantity` of its units, `amount` charged. */
export function tierTrace(i: number, lower: Dec, upper: Dec | null, tier: PreparedTier, quantity: Dec, amount: Dec, flatShare?: FlatShareTrace): TierTrace {
  const t: TierTrace = {
    tier: i + 1,
    from: lower.toFixed(),
    upTo: upper === null ? null : upper.toFixed(),
    quantity: quantity.toFixed(),
    rate: tier.rate.toFixed(),
    amount: amount.toFixed(),
  };
  if (tier.flat !== null) t.flat = tier.flat.toFixed();
  if (flatShare !== undefined) t.flatShare = flatShare;
  return t;
}

/**
 * How the bounds used were made from the written ones, in words, before the tiers
 * ('' when they are as written): "tier bounds x 90 day(s) of the reading period / 365,
 * rounded halfUp to 0 decimal(s): 300 to 74; ".
 */
export function explainBounds(t: { tierProration?: TierProrationTrace; segmentBounds?: SegmentBoundsTrace }): string {
  const list = (bounds: readonly ScaledBound[]) =>
    bounds
      .map((b) =>
        b.carried !== undefined
          ? `${b.upTo} to ${b.scaled} (with the earlier part's ${b.carried.allowance} at its own version's bound, less the ${b.carried.rounded} it was given)`
          : b.ofBill !== undefined
            ? `${b.upTo} to ${b.ofBill}, this segment's ${b.scaled}`
            : `${b.upTo} to ${b.scaled}`,
      )
      .join(', ');
  const p = t.tierProration;
  if (p !== undefined) {
    const days = p.period === 'readingPeriod' ? `${p.readingDays} day(s) of the reading period` : `${p.billDays ?? p.activeDays} day(s) billed`;
    const share = p.billDays === undefined ? '' : `, this segment's ${p.activeDays} of the bill's ${p.billDays} day(s)`;
    // Bills made before the bill's bound was shared by days (2026-11-28) rounded each segment's share by the rule.
    if (p.bounds.some((b) => b.ofBill !== undefined)) return `tier bounds x ${days} / ${p.basisDays}, rounded ${p.rounding} to ${p.decimals} decimal(s)${share}: ${list(p.bounds)}; `;
    return `tier bounds x ${days} / ${p.basisDays}${share}, rounded ${p.rounding} to ${p.decimals} decimal(s): ${list(p.bounds)}; `;
  }
  const g = t.segmentBounds;
  if (g !== undefined) return `tier bounds x ${g.days}/${g.billDays} of the bill's days: ${list(g.bounds)}; `;
  return '';
}

/** A tier as the explanation of a line writes it: "10 x 48.75 + 500 = 987.5". */
export function explainTier(t: TierTrace): string {
  const share = t.flatShare === undefined ? '' : ` x ${t.flatShare.days}/${t.flatShare.billDays}`;
  const flat = t.flat === undefined ? '' : t.flat.startsWith('-') ? ` less ${t.flat.slice(1)}${share}` : ` + ${t.flat}${share}`;
  if (t.carried !== undefined) {
    const total = new Dec(t.carried.unrounded).plus(t.unrounded ?? t.amount);
    return `${t.quantity} x ${t.rate}${flat} = ${t.unrounded ?? t.amount}; with the ${t.carried.unrounded} of the earlier parts ${total.toFixed()}, less ${t.carried.rounded} billed in them: ${t.amount}`;
  }
  return `${t.quantity} x ${t.rate}${flat} = ${t.unrounded === undefined ? t.amount : `${t.unrounded}, rounded to ${t.amount}`}`;
}

/**
 * The tier upper bounds used for this bill: as written, or with tier
 * proration scaled by activeDays / basisDays and rounded to `decimals` by its
 * rule (a 30-day bound of 10 becomes 10 x 31/30 = 10.33 for a 31-day period,
 * 10 when rounded down to 0 decimals, 11 when rounded up). With period
 * 'readingPeriod' the days are those between the two readings used (300 kL a
 * year, basisDays 365, over a 90-day reading period: 73.97, 74 at 0 decimals halfUp).
 * Rounding is monotonic, so scaled bounds stay in order (two may become equal:
 * the tier between them is then empty).
 *
 * In a segment of a bill spanning a version change (context.segment), bounds
 * on a metered consumption written per term (no tier proration) are scaled by the
 * segment's billed days over the bill's, to SPLIT_DECIMALS halfUp, as the
 * consumption is split, so the segments together have the allowance of one term and a
 * consumption on a bound stays on it; bounds with tier proration use the segment's
 * days (by readingPeriod, its share of the reading period's days). Either way a
 * segment's bound is rounded on the running total of the bill's days
 * (shareOfBill), so the segments' bounds add up to the bound of the bill. Bounds on
 * a level (an unmetered input) are the whole bill's in every segment
 * (consumptionPart, billShare.ts).
 */
export function tierBounds(component: PreparedTiered<string>, context: ModelContext): { bounds: (Dec | null)[]; trace?: TierProrationTrace; segment?: SegmentBoundsTrace } {
  const { tiers, tierProration: proration, input } = component;
  const shared = consumptionPart(input, context);
  if (proration === null) {
    if (shared === undefined) return { bounds: tiers.map((t) => t.upTo) };
    const { seg: part, decimals } = shared;
    const { bounds, traced } = scaleBounds(tiers, (upTo, j) =>
      segmentBound(component.code, j, { upTo, measure: part.billDays, basis: part.billDays }, part, context, decimals, 'halfUp'),
    );
    const segment: SegmentBoundsTrace = { days: context.activeDays, billDays: part.billDays, bounds: traced };
    if (part.daysBefore > 0) segment.daysBefore = part.daysBefore;
    return { bounds, segment };
  }
  // A level's bounds are prorated by the whole bill's days in every segment; a consumption's
  // segment takes its share of them. (Keyed on the input, not on `shared`: the only segment of a
  // bill with billed days keeps its trace's billDays, as before levels were told apart.)
  const level = input === null || input.kind !== 'metered';
  const seg = level ? undefined : context.segment;
  const measured: ModelContext = level && context.segment !== undefined ? { ...context, activeDays: context.segment.billDays, segment: undefined } : context;
  // The measure the bounds are scaled by, for the whole bill: its billed days, or the
  // days between its two readings; a segment takes its share of it (shareOfBill).
  let total: Dec | number = seg === undefined ? measured.activeDays : seg.billDays;
  if (proration.period === 'readingPeriod') {
    if (context.readingDays === undefined) {
      throw new RatingError('INVALID_TARIFF', "tier proration by 'readingPeriod' needs a metered input: the component has no readings", [
        { path: 'tierProration.period', message: 'needs a metered input' },
      ]);
    }
    total = context.readingDays;
  }
  const { bounds, traced } = scaleBounds(tiers, (upTo, j) =>
    seg === undefined
      ? { scaled: shareOfBill(upTo, total, proration.basisDays, measured, proration.decimals, proration.rounding) }
      : segmentBound(component.code, j, { upTo, measure: total, basis: proration.basisDays }, seg, context, proration.decimals, proration.rounding, true),
  );
  const trace: TierProrationTrace = {
    // A whole basis stays a number, as every bill before fractional bases wrote it.
    basisDays: proration.basisDays.isInteger() ? proration.basisDays.toNumber() : proration.basisDays.toFixed(),
    activeDays: measured.activeDays,
    decimals: proration.decimals,
    rounding: proration.rounding,
    bounds: traced,
  };
  if (seg !== undefined && seg.daysBefore > 0) trace.daysBefore = seg.daysBefore;
  if (proration.period === 'readingPeriod') {
    trace.period = 'readingPeriod';
    trace.readingDays = (total as Dec).toFixed();
  }
  // A segment's bounds are its share of the bill's: activeDays of billDays.
  if (seg !== undefined) trace.billDays = seg.billDays;
  if (context.suspended !== undefined) trace.suspendedDays = context.suspended.days;
  return { bounds, trace };
}

/**
 * Each written bound scaled; the open tier stays open. A segment's bounds are differences
 * of rounded running totals, which for two bounds closer than the rounding step can come
 * out of order: a bound is never taken below the one before it (that tier is then empty).
 */
function scaleBounds(
  tiers: readonly PreparedTier[],
  scale: (upTo: Dec, tier: number) => { scaled: Dec; carried?: ScaledBound['carried']; ofBill?: Dec },
): { bounds: (Dec | null)[]; traced: ScaledBound[] } {
  const bounds: (Dec | null)[] = [];
  const traced: ScaledBound[] = [];
  let previous: Dec | null = null;
  tiers.forEach((t, j) => {
    if (t.upTo === null) {
      bounds.push(null);
      return;
    }
    const made = scale(t.upTo, j);
    let scaled = made.scaled;
    if (previous !== null && scaled.lt(previous)) scaled = previous;
    previous = scaled;
    bounds.push(scaled);
    const bound: ScaledBound = { upTo: t.upTo.toFixed(), scaled: scaled.toFixed() };
    if (made.carried !== undefined) bound.carried = made.carried;
    if (made.ofBill !== undefined) bound.ofBill = made.ofBill.toFixed();
    traced.push(bound);
  });
  return { bounds, traced };
}

/** A tier's bound as written and what scales it: bound x measure (days billed, or of the reading period) / basis. */
type BoundRule = { upTo: Dec; measure: Dec | number; basis: Dec | number };

/** A version's rule for tier j of a component, as tierBounds scales it; undefined when it has no such bound. */
function boundRule(component: { model: string } | undefined, j: number, seg: SegmentContext, context: ModelContext): BoundRule | null | undefined {
  if (component === undefined || (component.model !== 'graduated' && component.model !== 'volume')) return null;
  const c = component as PreparedTiered<string>;
  const t = c.tiers[j];
  if (t === undefined || t.upTo === null) return undefined;
  const p = c.tierProration;
  if (p === null) return { upTo: t.upTo, measure: seg.billDays, basis: seg.billDays };
  return { upTo: t.upTo, measure: p.period === 'readingPeriod' ? (context.readingDays ?? seg.billDays) : seg.billDays, basis: p.basisDays };
}

const sameNumber = (a: Dec | number, b: Dec | number) => (typeof a === 'number' && typeof b === 'number' ? a === b : new Dec(a).eq(b));
const sameRule = (a: BoundRule, b: BoundRule) => a.upTo.eq(b.upTo) && sameNumber(a.measure, b.measure) && sameNumber(a.basis, b.basis);

/**
 * What the bill's earlier segments gave tier j, when some earlier version's rule for it
 * differs from this one: their exact allowance, each by its own version's rule (bound x
 * measure x its days / (billDays x basis); nothing from a version without the component),
 * and the bounds they were given, as their lines' traces say (each rounded by its own
 * version's decimals and rule). Undefined when all agree (the running total of days then
 * says the same) or one left the tier open.
 */
export function earlierAllowance(code: string, j: number, own: BoundRule, seg: SegmentContext, context: ModelContext): { exact: Dec; given: Dec } | undefined {
  // Compared first, summed only when they differ: every line of a later segment asks (issue 12's speed).
  const rules: (BoundRule | null)[] = [];
  let differs = false;
  for (let i = 0; i < seg.index; i++) {
    const s = seg.segments[i] as SegmentOfBill;
    if (s.days === 0) continue;
    const rule = boundRule(s.components.get(code), j, seg, context);
    if (rule === undefined) return undefined;
    if (rule === null || !sameRule(rule, own)) differs = true;
    rules.push(rule);
  }
  if (!differs) return undefined;
  let exact = new Dec(0);
  let given = new Dec(0);
  let k = 0;
  for (let i = 0; i < seg.index; i++) {
    const s = seg.segments[i] as SegmentOfBill;
    if (s.days === 0) continue;
    const rule = rules[k++];
    if (!rule) continue;
    exact = exact.plus(rule.upTo.times(rule.measure).times(s.days).div(new Dec(rule.basis).times(seg.billDays)));
    const c = s.components.get(code) as PreparedTiered<string>;
    const t = s.traces[c.index] as { tierProration?: TierProrationTrace; segmentBounds?: SegmentBoundsTrace } | undefined;
    const bound = (t?.tierProration ?? t?.segmentBounds)?.bounds[j]?.scaled;
    // Earlier segments are rated before this one: a bound missing from their trace is a bug.
    if (bound === undefined) throw new Error(`${code}: the earlier segment's bound of tier ${j + 1} is not in its trace`);
    given = given.plus(bound);
  }
  return { exact, given };
}

/**
 * A segment's bound: its share of the bill's (shareOfBill, rounded on the running total of
 * days) or, after a version that wrote the bound otherwise, the running total of the exact
 * allowance (the earlier segments' by their versions, and this one's) rounded by this
 * version's rule, less the bounds the earlier segments were given: the bounds of the
 * segments then add up to the allowance of the versions in force (a baseline of 12.1 kWh a
 * day for 14 days and 16.4 for 17 is 448.2, 448: 169 + 279, not 169 + 278 from 16.4 x 31).
 *
 * `prorated` (tier proration), when every segment has the same rule for the bound (one
 * allowance, oneAllowance): the bill's bound is prorated and rounded by the rule once, as
 * one bill's, and each segment takes its share of it by days to the consumption's decimals
 * (SPLIT_DECIMALS), as the consumption is split. Rounded per segment by the rule
 * (300 kL a year over 92 days, 44 + 48 of them, to whole kL: 36 + 40 = 76), the bounds no
 * longer followed the consumption's split (76 kL: 36.347826 + 39.652174), so one segment
 * went past its bound while the other left allowance unused: a version identical to the one
 * before billed 178.49 where one bill is 178.22 (an outside check of published tariffs).
 */
function segmentBound(
  code: string,
  j: number,
  own: BoundRule,
  seg: SegmentContext,
  context: ModelContext,
  decimals: number,
  rounding: RoundingMode,
  prorated = false,
): { scaled: Dec; carried?: ScaledBound['carried']; ofBill?: Dec } {
  const earlier = earlierAllowance(code, j, own, seg, context);
  if (prorated && oneAllowance(code, j, own, seg, context, { decimals, rounding })) {
    const ofBill = roundMoney(own.upTo.times(own.measure).div(own.basis), decimals, rounding);
    return { scaled: shareOfBill(ofBill, seg.billDays, seg.billDays, context, SPLIT_DECIMALS, 'halfUp'), ofBill };
  }
  if (earlier === undefined) return { scaled: shareOfBill(own.upTo, own.measure, own.basis, context, decimals, rounding) };
  const mine = own.upTo.times(own.measure).times(context.activeDays).div(new Dec(own.basis).times(seg.billDays));
  const scaled = roundMoney(earlier.exact.plus(mine), decimals, rounding).minus(earlier.given);
  // Never below nothing: the earlier parts may have been given more than the whole rounds to.
  return { scaled: scaled.isNegative() ? new Dec(0) : scaled, carried: { allowance: earlier.exact.toFixed(), rounded: earlier.given.toFixed() } };
}

/**
 * Every segment of the bill with billed days has this rule for tier j of the component, its
 * proration's decimals and rounding included: the bill has one allowance, shared by days.
 * (With another rounding in a later version, each segment took its share of a bound of its
 * own, 10 and 11, and the segments' bounds were neither bill's: a reviewer.)
 */
function oneAllowance(code: string, j: number, own: BoundRule, seg: SegmentContext, context: ModelContext, rounded: { decimals: number; rounding: RoundingMode }): boolean {
  for (const s of seg.segments) {
    if (s.days === 0) continue;
    const c = s.components.get(code);
    const rule = boundRule(c, j, seg, context);
    if (!rule || !sameRule(rule, own)) return false;
    const p = (c as PreparedTiered<string>).tierProration;
    if (p === null || p.decimals !== rounded.decimals || p.rounding !== rounded.rounding) return false;
  }
  return true;
}

/** What a segment's bounds read of the earlier segments (and, under tier proration, whether all agree), for the lines cache's key: '' when nothing. */
export function earlierBoundsKey(component: PreparedTiered<string>, context: ModelContext, seg: SegmentContext): string {
  // As tierBounds asks: a consumption's bounds in a segment, not a level's.
  if (component.tierProration === null ? consumptionPart(component.input, context) === undefined : component.input?.kind !== 'metered') return '';
  let key = '';
  component.tiers.forEach((_, j) => {
    const own = boundRule(component, j, seg, context);
    const earlier = own ? earlierAllowance(component.code, j, own, seg, context) : undefined;
    if (earlier !== undefined) key += `${j}:${earlier.exact.toString()}:${earlier.given.toString()};`;
    const p = component.tierProration;
    if (own && p !== null && oneAllowance(component.code, j, own, seg, context, p)) key += `${j}=;`;
  });
  return key;
}
