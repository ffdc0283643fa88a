import { checkTariff } from './checkTariff.ts';
import { RatingError } from './errors.ts';
import type { Amount } from './fields.ts';
import { Dec, toDecimal } from './money.ts';
import type { PrepareContext, PreparedBase } from './models/model.ts';
import { chargeModel, type Dispatch, type PreparedComponent } from './models/registry.ts';
import type { Tariff } from './tariff.ts';
import type { PreparedBound } from './levelBound.ts';

/** A component's floor or excessOver as the tariff gives it (models/model.ts, levelBoundFields). */
type LevelBoundGiven = { input: string; percentage?: Amount };

/**
 * A tariff checked once and turned into decimals, references resolved and
 * components put in evaluation order. A bill run rates up to a million bills
 * against one tariff, so this work is done once per tariff object, not once
 * per bill (see prepareTariff's cache).
 */

export type PreparedMeteredInput = {
  kind: 'metered';
  code: string;
  unit: string;
  decimals: number;
  rolloverAt: Dec | null;
  /** 'maximum': a demand register, its period's quantity the current reading's value (meterReadings.ts). */
  register: 'cumulative' | 'maximum';
  /** The consumption converted before it is priced (meterReadings.ts, billedQuantity). */
  conversion: PreparedConversion | null;
  /** Position in PreparedTariff.meteredNeeded, or -1 when no component uses it. */
  slot: number;
};
export type PreparedConversion = { factor: Dec; unit: string; decimals: number; rounding: 'halfUp' | 'down' | 'up' };
export type PreparedUnmeteredInput = {
  kind: 'unmetered';
  code: string;
  default: Dec | null;
  slot: number;
};
export type PreparedInput = PreparedMeteredInput | PreparedUnmeteredInput;

export type { PreparedComponent } from './models/registry.ts';
export type { PreparedTier, PreparedTierProration } from './models/tiers.ts';

export type PreparedTariff = {
  /** In the template's order. */
  components: PreparedComponent[];
  /** Every percentage after the components it is a percentage of; otherwise the template's order. */
  evaluationOrder: PreparedComponent[];
  /** Metered inputs some component uses: the bill needs readings for exactly these. */
  meteredNeeded: PreparedMeteredInput[];
  /** Unmetered inputs some component uses. */
  unmeteredNeeded: PreparedUnmeteredInput[];
  /** Components by code: a bill in segments finds a component in the other segments' versions by it. */
  byCode: ReadonlyMap<string, PreparedComponent>;
};

type Cached = { ok: true; prepared: PreparedTariff } | { ok: false; error: RatingError };

// Keyed by the tariff object itself: the caller treats a tariff as immutable
// once rated (a term keeps the template as it was), and a bill run passes the
// same object for every bill of the term.
const cache = new WeakMap<object, Cached>();

/**
 * Checks (checkTariff) and prepares a tariff; the answer is cached per tariff
 * object. Throws INVALID_TARIFF with every issue in `details`.
 */
export function prepareTariff(tariff: Tariff): PreparedTariff {
  let hit = cache.get(tariff);
  if (hit === undefined) {
    try {
      hit = { ok: true, prepared: build(tariff) };
    } catch (e) {
      if (!(e instanceof RatingError)) throw e;
      hit = { ok: false, error: e };
    }
    cache.set(tariff, hit);
  }
  if (!hit.ok) throw hit.error;
  return hit.prepared;
}

function build(tariff: Tariff): PreparedTariff {
  const issues = checkTariff(tariff, 'tariff');
  if (issues.length > 0) {
    const first = issues[0];
    throw new RatingError(
      'INVALID_TARIFF',
      `The tariff is not valid: ${first?.path}: ${first?.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
      issues,
    );
  }
  const values = new Map<string, Dec>();
  for (const v of tariff.values ?? []) values.set(v.code, toDecimal(v.value));
  const resolve = (a: Amount): Dec => (typeof a === 'object' ? (values.get(a.value) as Dec) : toDecimal(a));
  const optional = (a: Amount | undefined): Dec | null => (a === undefined ? null : resolve(a));

  const inputs = new Map<string, PreparedInput>();
  for (const m of tariff.meteredInputs ?? []) {
    inputs.set(m.code, {
      kind: 'metered',
      code: m.code,
      unit: m.unit,
      decimals: m.decimals,
      rolloverAt: m.rolloverAt === undefined ? null : toDecimal(m.rolloverAt),
      register: m.register ?? 'cumulative',
      conversion:
        m.conversion === undefined ? null : { factor: resolve(m.conversion.factor), unit: m.conversion.unit, decimals: m.conversion.decimals, rounding: m.conversion.rounding ?? 'halfUp' },
      slot: -1,
    });
  }
  for (const u of tariff.unmeteredInputs ?? []) {
    inputs.set(u.code, { kind: 'unmetered', code: u.code, default: u.default === undefined ? null : toDecimal(u.default), slot: -1 });
  }
  const meteredNeeded: PreparedMeteredInput[] = [];
  const unmeteredNeeded: PreparedUnmeteredInput[] = [];
  const inputOf = (code: string): PreparedInput => {
    const input = inputs.get(code) as PreparedInput;
    if (input.slot === -1) {
      if (input.kind === 'metered') input.slot = meteredNeeded.push(input) - 1;
      else input.slot = unmeteredNeeded.push(input) - 1;
    }
    return input;
  };

  const source = tariff.components ?? [];
  const indexOf = new Map<string, number>();
  source.forEach((c, i) => indexOf.set(c.code, i));

  const ctx: PrepareContext = { resolve, indexOf };
  // The level a quantity is held against is read like any unmetered input: needed, so the bill reads it.
  const ratchetOf = (c: { ratchet?: { percentage: Amount; months: number } }) => (c.ratchet === undefined ? null : { percentage: resolve(c.ratchet.percentage), months: c.ratchet.months });
  const boundOf = (c: { floor?: LevelBoundGiven; excessOver?: LevelBoundGiven }): PreparedBound | null => {
    const [kind, given] = c.floor !== undefined ? (['floor', c.floor] as const) : c.excessOver !== undefined ? (['excessOver', c.excessOver] as const) : [null, null];
    if (kind === null) return null;
    return { kind, input: inputOf(given.input) as PreparedUnmeteredInput, percentage: given.percentage === undefined ? toDecimal(100) : resolve(given.percentage) };
  };
  const shareOf = (x: { percentage: Amount; maximum?: Amount } | undefined) =>
    x === undefined ? null : { percentage: resolve(x.percentage), maximum: x.maximum === undefined ? null : resolve(x.maximum) };
  const components = source.map((c, index): PreparedComponent => {
    // checkTariff has refused unknown models.
    const model = chargeModel(c.model) as Dispatch;
    const base: PreparedBase = {
      index,
      code: c.code,
      name: c.name,
      category: c.category ?? 'charge',
      prorate: model.prorate === 'never' ? false : ((c as { prorate?: boolean }).prorate ?? model.prorate === 'on'),
      minimum: optional(c.minimum),
      maximum: optional(c.maximum),
      input: model.usesInput ? inputOf((c as { input: string }).input) : null,
      levelInput: model.levelInput === true,
      bound: boundOf(c as { floor?: LevelBoundGiven; excessOver?: LevelBoundGiven }),
      ratchet: ratchetOf(c as { ratchet?: { percentage: Amount; months: number } }),
      inputShare: shareOf((c as { inputShare?: { percentage: Amount; maximum?: Amount } }).inputShare),
      dependsOn: (model.dependsOn?.codes(c as never) ?? []).map((code) => indexOf.get(code) as number),
    };
    return model.prepare(c as never, base, ctx) as PreparedComponent;
  });

  const byCode = new Map(components.map((c) => [c.code, c]));
  return { components, evaluationOrder: evaluationOrder(components), meteredNeeded, unmeteredNeeded, byCode };
}

/**
 * Depth first in the template's order, each component's dependsOn first
 * (a percentage's `of`), so a percentage of a percentage (VAT on a sewer
 * surcharge) sees a finished amount. checkTariff has already refused cycles.
 */
function evaluationOrder(components: readonly PreparedComponent[]): PreparedComponent[] {
  const done = new Array<boolean>(components.length).fill(false);
  const order: PreparedComponent[] = [];
  const visit = (c: PreparedComponent): void => {
    if (done[c.index]) return;
    done[c.index] = true;
    for (const i of c.dependsOn) {
      const dep = components[i];
      if (dep !== undefined) visit(dep);
    }
    order.push(c);
  };
  for (const c of components) visit(c);
  return order;
}
