// Solving one rate of a draft tariff for a target revenue: which parameter a request
// names (a tier rate, a flat amount, a percentage ...), the draft with a value put in its
// place, and the search. Pure: the revenue of a candidate rate is a function the caller
// gives (it rates the whole roster through the bill run's code).
import { Dec, toDecimal, type Tariff } from '../rating/index.ts';
import type { ErrorDetail } from '../errors.ts';

export const RATE_PARAMETERS = ['amount', 'rate', 'flat', 'price', 'percentage'] as const;
export type RateParameter = (typeof RATE_PARAMETERS)[number];

/** The rate to solve: a component by code, a tier by index (0 first) for tiered models, and which of its numbers. */
export type RateAddress = { componentCode: string; tierIndex?: number; parameter?: RateParameter };

/** The number each model is priced by when the request names none. */
const DEFAULT_PARAMETER: Record<string, RateParameter> = { flat: 'amount', perUnit: 'rate', graduated: 'rate', volume: 'rate', package: 'price', percentage: 'percentage' };
/** The numbers of each model that may be solved. */
const PARAMETERS: Record<string, RateParameter[]> = {
  flat: ['amount'],
  perUnit: ['rate'],
  graduated: ['rate', 'flat'],
  volume: ['rate', 'flat'],
  package: ['price'],
  percentage: ['percentage'],
};
const TIERED = new Set(['graduated', 'volume']);

type Located = { parameter: RateParameter; componentIndex: number; tierIndex: number | null; current: Dec };

/**
 * Where the addressed rate is in the tariff and its value now (a reference to a `values`
 * entry read through it; a tier's absent flat is 0), or the request's fields at fault.
 */
export function locateRate(tariff: Tariff, a: RateAddress, path: string): Located | ErrorDetail[] {
  const components = tariff.components ?? [];
  const componentIndex = components.findIndex((c) => c.code === a.componentCode);
  const c = components[componentIndex] as Record<string, any> | undefined;
  if (c === undefined) return [{ path: `${path}.componentCode`, message: `the draft has no component "${a.componentCode}"` }];
  const parameter = a.parameter ?? (DEFAULT_PARAMETER[c.model] as RateParameter);
  if (!(PARAMETERS[c.model] ?? []).includes(parameter)) {
    return [{ path: `${path}.parameter`, message: `a ${c.model} component has no ${parameter} to solve (it has ${(PARAMETERS[c.model] ?? []).join(', ')})` }];
  }
  let holder: Record<string, any> = c;
  let tierIndex: number | null = null;
  if (TIERED.has(c.model)) {
    const tiers = c.tiers as unknown[];
    if (a.tierIndex === undefined) return [{ path: `${path}.tierIndex`, message: `a ${c.model} component's rate is a tier's: give tierIndex (0 to ${tiers.length - 1})` }];
    if (a.tierIndex >= tiers.length) return [{ path: `${path}.tierIndex`, message: `component "${a.componentCode}" has ${tiers.length} tier(s): tierIndex is 0 to ${tiers.length - 1}` }];
    tierIndex = a.tierIndex;
    holder = tiers[tierIndex] as Record<string, any>;
  } else if (a.tierIndex !== undefined) {
    return [{ path: `${path}.tierIndex`, message: `a ${c.model} component has no tiers` }];
  }
  const raw = holder[parameter];
  let current: Dec;
  if (raw === undefined) current = new Dec(0);
  else if (typeof raw === 'object' && raw !== null) current = toDecimal((tariff.values ?? []).find((v) => v.code === raw.value)?.value ?? 0);
  else current = toDecimal(raw);
  return { parameter, componentIndex, tierIndex, current };
}

/** A copy of the tariff with the located number set to `value` (decimal text); the original is not touched. */
export function withRate(tariff: Tariff, at: Located, value: string): Tariff {
  const components = [...(tariff.components ?? [])] as Record<string, any>[];
  const c = { ...components[at.componentIndex] };
  if (at.tierIndex === null) c[at.parameter] = value;
  else {
    const tiers = [...c.tiers];
    tiers[at.tierIndex] = { ...tiers[at.tierIndex], [at.parameter]: value };
    c.tiers = tiers;
  }
  components[at.componentIndex] = c;
  return { ...tariff, components: components as Tariff['components'] };
}

export type Solved =
  | { ok: true; rate: Dec; revenue: Dec; evaluations: number }
  | { ok: false; reason: string; evaluations: number };

/** Rates searched stop doubling here: 2^46 steps (7e11 at cents) is past any tariff. */
const MAX_STEPS = 2 ** 46;

/**
 * The rate, a whole number of `step`s from 0 up, whose revenue is nearest the target.
 * Revenue is taken to grow (not strictly) with the rate, as every model prices: the
 * search doubles an upper bound from the current rate until the revenue reaches the
 * target, then halves [lo, hi] with revenue(lo) < target <= revenue(hi) until they are
 * one step apart, and answers whichever of the two is nearer (hi on a tie). So the
 * revenue found is within one step's change of revenue of the target. Each revenue is
 * one exact rating of the roster; none is computed twice.
 */
export async function solveRate(o: { start: Dec; step: Dec; target: Dec; revenue: (rate: Dec) => Promise<Dec> }): Promise<Solved> {
  const seen = new Map<number, Dec>();
  const at = async (k: number): Promise<Dec> => {
    let r = seen.get(k);
    if (r === undefined) {
      r = await o.revenue(o.step.times(k));
      seen.set(k, r);
    }
    return r;
  };
  const zero = await at(0);
  if (zero.gte(o.target)) {
    if (zero.eq(o.target)) return { ok: true, rate: new Dec(0), revenue: zero, evaluations: seen.size };
    return { ok: false, reason: `even a rate of 0 gives a revenue of ${zero.toFixed()}, above the target ${o.target.toFixed()}`, evaluations: seen.size };
  }
  let lo = 0;
  let hi = Math.max(1, o.start.div(o.step).ceil().toNumber());
  while ((await at(hi)).lt(o.target)) {
    lo = hi;
    hi *= 2;
    if (hi > MAX_STEPS) {
      return { ok: false, reason: `no rate up to ${o.step.times(lo).toFixed()} reaches the target ${o.target.toFixed()} (the revenue stops at ${(await at(lo)).toFixed()}): this rate does not move it enough`, evaluations: seen.size };
    }
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await at(mid)).lt(o.target)) lo = mid;
    else hi = mid;
  }
  const below = await at(lo);
  const above = await at(hi);
  const k = o.target.minus(below).lt(above.minus(o.target)) ? lo : hi;
  return { ok: true, rate: o.step.times(k), revenue: await at(k), evaluations: seen.size };
}
