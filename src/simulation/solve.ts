// Solving one rate of a draft tariff for a target revenue: which parameter a request
// names (a tier rate, a flat amount, a percentage ...), the draft with a value put in its
// place, and the search. Pure: the revenue of a candidate rate is a function the caller
// gives (it rates the whole roster through the bill run's code).
import { Dec, toDecimal, type Tariff } from '../rating/index.ts';
import { chargeModel } from '../rating/models/registry.ts';
import type { ErrorDetail } from '../errors.ts';

export const RATE_PARAMETERS = ['amount', 'rate', 'flat', 'price', 'percentage'] as const;
export type RateParameter = (typeof RATE_PARAMETERS)[number];

/** The rate to solve: a component by code, a tier by index (0 first) for tiered models, and which of its numbers. */
export type RateAddress = { componentCode: string; tierIndex?: number; parameter?: RateParameter };

/** The numbers of a model that may be solved, its default first: each model says them (rating/models, `solvable`). */
const parametersOf = (model: unknown): readonly RateParameter[] => chargeModel(model)?.solvable ?? [];
/** Models whose rates are a tier's (a `tiers` array). */
const tiered = (c: Record<string, unknown>): boolean => Array.isArray(c.tiers);

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
  const solvable = parametersOf(c.model);
  if (solvable.length === 0) return [{ path: `${path}.componentCode`, message: `a ${c.model} component has no rate to solve` }];
  const parameter = a.parameter ?? (solvable[0] as RateParameter);
  if (!solvable.includes(parameter)) {
    return [{ path: `${path}.parameter`, message: `a ${c.model} component has no ${parameter} to solve (it has ${solvable.join(', ')})` }];
  }
  let holder: Record<string, any> = c;
  let tierIndex: number | null = null;
  if (tiered(c)) {
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
 * Revenue is taken to grow (not strictly) with the rate, as every model prices. With
 * that, the answer is one pair of neighbouring rates lo, lo + 1 with revenue(lo) < target
 * <= revenue(lo + 1), whatever rates the search tries: it answers whichever of the two is
 * nearer (lo + 1 on a tie), so the revenue found is within one step's change of revenue of
 * the target. Each revenue is one exact rating of the roster (none computed twice), so the
 * search tries as few rates as it can: revenue is near linear in one rate (a tier's rate
 * times its quantities, rounded per bill), so it reads the rate off the line through the
 * two revenues that bracket the target, then rates that rate and its neighbour on the
 * target's side: on a line that is the pair, 4 or 5 ratings in all, where halving took 15.
 * A step that does not halve the bracket (a revenue far from linear) is followed by a
 * halving, so the search never takes more than about twice halving's ratings. Above the
 * target it extrapolates the same line (doubling where the revenue does not move).
 */
export async function solveRate(o: { start: Dec; step: Dec; target: Dec; revenue: (rate: Dec) => Promise<Dec>; known?: { rate: Dec; revenue: Dec } }): Promise<Solved> {
  const seen = new Map<number, Dec>();
  // A revenue the caller has rated already (the draft as sent): counted as an evaluation, not rated again.
  if (o.known !== undefined && o.known.rate.mod(o.step).isZero()) seen.set(o.known.rate.div(o.step).toNumber(), o.known.revenue);
  const at = async (k: number): Promise<Dec> => {
    let r = seen.get(k);
    if (r === undefined) {
      r = await o.revenue(o.step.times(k));
      seen.set(k, r);
    }
    return r;
  };
  const T = o.target;
  const zero = await at(0);
  if (zero.gte(T)) {
    if (zero.eq(T)) return { ok: true, rate: new Dec(0), revenue: zero, evaluations: seen.size };
    return { ok: false, reason: `even a rate of 0 gives a revenue of ${zero.toFixed()}, above the target ${T.toFixed()}`, evaluations: seen.size };
  }
  /** The rate where the line through (a, ra) and (b, rb) meets the target, rounded down. */
  const onLine = (a: number, ra: Dec, b: number, rb: Dec): number => T.minus(ra).times(b - a).div(rb.minus(ra)).floor().toNumber() + a;

  // Bracket the target: revenue(lo) < target <= revenue(hi).
  let lo = 0;
  let hi = Math.max(1, o.start.div(o.step).ceil().toNumber());
  while ((await at(hi)).lt(T)) {
    const [rl, rh] = [await at(lo), await at(hi)];
    // Past the line's meeting point by a little (2% of the way, at least a step), so a
    // near-linear revenue is bracketed at once; doubled where the revenue did not move.
    let next = hi * 2;
    if (rh.gt(rl)) {
      const meet = onLine(lo, rl, hi, rh);
      next = Math.min(next * 8, Math.max(hi + 1, meet + 1 + Math.ceil((meet - hi) / 50)));
    }
    lo = hi;
    if (hi >= MAX_STEPS) {
      return { ok: false, reason: `no rate up to ${o.step.times(lo).toFixed()} reaches the target ${T.toFixed()} (the revenue stops at ${(await at(lo)).toFixed()}): this rate does not move it enough`, evaluations: seen.size };
    }
    hi = Math.min(next, MAX_STEPS);
  }

  // Narrow it to neighbours.
  let halve = false;
  while (hi - lo > 1) {
    const width = hi - lo;
    const [rl, rh] = [await at(lo), await at(hi)];
    if (halve) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await at(mid)).lt(T)) lo = mid;
      else hi = mid;
    } else {
      // On the line, c is the last rate below the target: rate c, then its neighbour on the target's side.
      const c = Math.min(hi - 1, Math.max(lo + 1, onLine(lo, rl, hi, rh)));
      if ((await at(c)).lt(T)) {
        lo = c;
        if (c + 1 < hi) {
          if ((await at(c + 1)).lt(T)) lo = c + 1;
          else hi = c + 1;
        }
      } else {
        hi = c;
        if (c - 1 > lo) {
          if ((await at(c - 1)).lt(T)) lo = c - 1;
          else hi = c - 1;
        }
      }
    }
    halve = !halve && hi - lo > width / 2;
  }
  const below = await at(lo);
  const above = await at(hi);
  const k = T.minus(below).lt(above.minus(T)) ? lo : hi;
  return { ok: true, rate: o.step.times(k), revenue: await at(k), evaluations: seen.size };
}
