import type { Amount } from './fields.ts';
import { Dec, parseDecimal } from './money.ts';
import type { CheckContext, Sign } from './models/model.ts';
import { CHARGE_MODELS, chargeModel, type Component } from './models/registry.ts';
import type { Tariff, TariffValue } from './tariff.ts';

/** One thing wrong with a tariff: where (a JSON path from the service object) and what. */
export type Issue = { path: string; message: string };

/** No price or quantity in a tariff needs more than this; bigger is a typo (or 1e+21 from a float). */
const LIMIT = new Dec('1e15');
const MAX_DECIMALS = 12;


/**
 * Checks what the schema cannot: codes unique per array (and input codes
 * unique across metered and unmetered inputs, since `input` names either),
 * tiers ascending with only the last open, every `input`, `of` and
 * `{ value }` reference resolved, no percentage cycle, minimum <= maximum,
 * every number a finite decimal of sane size. Empty answer: valid.
 *
 * Assumes the shape already passed the TypeBox schema, but does not crash on
 * a wrong type either (it reports it), since a tariff may come from storage.
 */
export function checkTariff(tariff: Tariff, root = 'service'): Issue[] {
  const issues: Issue[] = [];
  const values = tariff.values ?? [];
  const metered = tariff.meteredInputs ?? [];
  const unmetered = tariff.unmeteredInputs ?? [];
  const connection = tariff.connectionInputs ?? [];
  const components = tariff.components ?? [];

  uniqueCodes(values, `${root}.values`, issues);
  uniqueCodes(connection, `${root}.connectionInputs`, issues);
  uniqueCodes(components, `${root}.components`, issues);
  // Metered and unmetered share one namespace: `input` may name either.
  const inputCodes = new Map<string, string>();
  for (const [name, list] of [['meteredInputs', metered], ['unmeteredInputs', unmetered]] as const) {
    list.forEach((item, i) => {
      const path = `${root}.${name}[${i}]`;
      const seen = inputCodes.get(item.code);
      if (seen !== undefined) issues.push({ path: `${path}.code`, message: `duplicate input code '${item.code}' (also ${seen})` });
      else inputCodes.set(item.code, path);
    });
  }

  const valueByCode = new Map<string, TariffValue>();
  values.forEach((v, i) => {
    if (!valueByCode.has(v.code)) valueByCode.set(v.code, v);
    checkNumber(v.value, `${root}.values[${i}].value`, 'any', issues);
  });

  metered.forEach((m, i) => {
    const path = `${root}.meteredInputs[${i}]`;
    if (!Number.isInteger(m.decimals) || m.decimals < 0 || m.decimals > 6) {
      issues.push({ path: `${path}.decimals`, message: 'must be an integer from 0 to 6' });
    }
    if (m.register !== undefined && m.register !== 'cumulative' && m.register !== 'maximum') {
      issues.push({ path: `${path}.register`, message: "must be 'cumulative' or 'maximum'" });
    }
    // A demand register reads the highest demand since it was reset: it never counts past a dial's end.
    if (m.register === 'maximum' && m.rolloverAt !== undefined) {
      issues.push({ path: `${path}.rolloverAt`, message: 'a maximum (demand) register does not roll over: its reading is the period\'s highest demand, not a running total' });
    } else if (m.rolloverAt !== undefined) {
      const r = checkNumber(m.rolloverAt, `${path}.rolloverAt`, 'positive', issues);
      if (r !== null && Number.isInteger(m.decimals) && r.decimalPlaces() > m.decimals) {
        issues.push({ path: `${path}.rolloverAt`, message: `has more decimals than the meter's ${m.decimals}` });
      }
    }
  });
  unmetered.forEach((u, i) => {
    if (u.default !== undefined) checkNumber(u.default, `${root}.unmeteredInputs[${i}].default`, 'nonNegative', issues);
  });

  const amount = (a: Amount | undefined, path: string, sign: Sign): Dec | null => {
    if (a === undefined) return null;
    if (typeof a === 'object' && a !== null) {
      const v = valueByCode.get(a.value);
      if (v === undefined) {
        issues.push({ path: `${path}.value`, message: `no values entry with code '${String(a.value)}'` });
        return null;
      }
      const d = parseDecimal(v.value);
      if (d === null) return null; // reported on the values entry itself
      if (!signOk(d, sign)) {
        issues.push({ path: `${path}.value`, message: `value '${a.value}' is ${d.toFixed()}, ${SIGN_TEXT[sign]}` });
      }
      return d;
    }
    return checkNumber(a, path, sign, issues);
  };

  metered.forEach((m, i) => {
    const c = m.conversion;
    if (c === undefined) return;
    const path = `${root}.meteredInputs[${i}].conversion`;
    amount(c.factor, `${path}.factor`, 'positive');
    if (!Number.isInteger(c.decimals) || c.decimals < 0 || c.decimals > 6) issues.push({ path: `${path}.decimals`, message: 'must be an integer from 0 to 6' });
  });

  const componentIndex = new Map<string, number>();
  components.forEach((c, i) => {
    if (!componentIndex.has(c.code)) componentIndex.set(c.code, i);
  });

  const ctx: CheckContext = {
    issues,
    number: (x, path, sign) => checkNumber(x, path, sign, issues),
    amount,
    componentIndex,
    inputKind: (code) => {
      const m = metered.find((x) => x.code === code);
      if (m !== undefined) return m.register === 'maximum' ? 'maximum' : 'cumulative';
      return unmetered.some((x) => x.code === code) ? 'unmetered' : undefined;
    },
  };
  components.forEach((c, i) => {
    const path = `${root}.components[${i}]`;
    const model = chargeModel(c.model);
    if (model === undefined) {
      issues.push({ path: `${path}.model`, message: `unknown charge model '${String(c.model)}' (one of ${CHARGE_MODELS.join(', ')})` });
      return;
    }
    if (c.category !== undefined && c.category !== 'charge' && c.category !== 'tax') {
      issues.push({ path: `${path}.category`, message: "must be 'charge' or 'tax'" });
    }
    if (model.usesInput) {
      const input = (c as { input?: unknown }).input;
      if (typeof input !== 'string' || input === '') {
        issues.push({ path: `${path}.input`, message: `a ${c.model} component needs an input` });
      } else if (!inputCodes.has(input)) {
        issues.push({ path: `${path}.input`, message: `no metered or unmetered input with code '${input}'` });
      } else if ((c as { tierProration?: { period?: unknown } }).tierProration?.period === 'readingPeriod' && !metered.some((m) => m.code === input)) {
        // The reading period is the days between two readings: an unmetered input has none.
        issues.push({ path: `${path}.tierProration.period`, message: `'readingPeriod' needs a metered input; '${input}' is unmetered` });
      } else if ((c as { tierProration?: { period?: unknown } }).tierProration?.period === 'readingPeriod' && metered.some((m) => m.code === input && m.register === 'maximum')) {
        // A demand is the highest reached, not used over the days between two readings.
        issues.push({ path: `${path}.tierProration.period`, message: `'readingPeriod' needs a cumulative meter; '${input}' is a maximum (demand) register` });
      }
      // A share of the consumption (sewage on 70% of the water): of a meter's, not of a level.
      const share = (c as { inputShare?: { percentage?: Amount; maximum?: Amount } }).inputShare;
      if (share !== undefined) {
        if (typeof input === 'string' && inputCodes.has(input) && !metered.some((m) => m.code === input)) {
          issues.push({ path: `${path}.inputShare`, message: `a share of the consumption needs a metered input; '${input}' is unmetered` });
        }
        amount(share.percentage, `${path}.inputShare.percentage`, 'positive');
        amount(share.maximum, `${path}.inputShare.maximum`, 'positive');
      }
      // A level of the subscription the quantity is held against (levelBound.ts): an unmetered input's.
      const bounds = (['floor', 'excessOver'] as const).filter((k) => (c as Record<string, unknown>)[k] !== undefined);
      if (bounds.length > 1) issues.push({ path: `${path}.excessOver`, message: 'a component is held to a floor or priced on an excess, not both' });
      for (const k of bounds) {
        const b = (c as unknown as Record<string, { input?: unknown; percentage?: Amount }>)[k]!;
        if (typeof b.input !== 'string' || !unmetered.some((u) => u.code === b.input)) {
          const metered_ = metered.some((m) => m.code === b.input);
          issues.push({ path: `${path}.${k}.input`, message: metered_ ? `'${String(b.input)}' is metered: a ${k} is a level of the subscription, an unmetered input` : `no unmetered input with code '${String(b.input)}'` });
        }
        amount(b.percentage, `${path}.${k}.percentage`, 'positive');
      }
      // A ratchet looks back over a demand register's readings (levelBound.ts).
      const ratchet = (c as { ratchet?: { percentage?: Amount } }).ratchet;
      if (ratchet !== undefined) {
        const m = metered.find((x) => x.code === input);
        if (typeof input === 'string' && inputCodes.has(input) && m?.register !== 'maximum') {
          issues.push({ path: `${path}.ratchet`, message: `a ratchet looks back over a demand register's readings; '${input}' is ${m === undefined ? 'an unmetered input' : 'a cumulative meter'}` });
        }
        if ((c as { excessOver?: unknown }).excessOver !== undefined) issues.push({ path: `${path}.ratchet`, message: 'a ratchet holds a quantity up, not with an excessOver' });
        amount(ratchet.percentage, `${path}.ratchet.percentage`, 'positive');
      }
    }
    model.check(c as never, path, ctx);
    const min = amount(c.minimum, `${path}.minimum`, 'any');
    const max = amount(c.maximum, `${path}.maximum`, 'any');
    if (min !== null && max !== null && min.gt(max)) {
      issues.push({ path: `${path}.minimum`, message: `minimum ${min.toFixed()} is above maximum ${max.toFixed()}` });
    }
  });

  findCycles(components, componentIndex, root, issues);
  return issues;
}

const SIGN_TEXT: Record<Sign, string> = {
  any: 'must be a number',
  nonNegative: 'must not be negative',
  positive: 'must be above zero',
};

function signOk(d: Dec, sign: Sign): boolean {
  return sign === 'any' || (sign === 'positive' ? d.gt(0) : !d.isNegative() || d.isZero());
}

/**
 * What is wrong with a number a tariff or a subscription gives (a rate, a bound, a deposit,
 * a level such as seats), or null: beyond 15 digits before the point or 12 after it, no
 * bill can be rated from it, so it is refused where it is given, on its field (an attacker
 * saved a deposit of 1e20 and seats of 1e20, and every bill after failed instead).
 */
export function outOfRange(d: Dec): string | null {
  if (d.abs().gte(LIMIT)) return `${d.toFixed()} is out of range (at most 15 digits before the point)`;
  if (d.decimalPlaces() > MAX_DECIMALS) return `has more than ${MAX_DECIMALS} decimals`;
  return null;
}

export function checkNumber(x: unknown, path: string, sign: Sign, issues: Issue[]): Dec | null {
  const d = parseDecimal(x);
  if (d === null) {
    issues.push({ path, message: `not a decimal number: ${JSON.stringify(x) ?? String(x)}` });
    return null;
  }
  const range = outOfRange(d);
  if (range !== null) {
    issues.push({ path, message: range });
    return null;
  }
  if (!signOk(d, sign)) {
    issues.push({ path, message: `${d.toFixed()} ${SIGN_TEXT[sign]}` });
    return null;
  }
  return d;
}

function uniqueCodes(list: readonly { code: string }[], path: string, issues: Issue[]): void {
  const first = new Map<string, number>();
  list.forEach((item, i) => {
    const j = first.get(item.code);
    if (j !== undefined) {
      issues.push({ path: `${path}[${i}].code`, message: `duplicate code '${item.code}' (also ${path}[${j}])` });
    } else first.set(item.code, i);
  });
}

/** A component computed from others (a percentage's `of`) cannot be in a loop: it would have no evaluation order. */
function findCycles(components: readonly Component[], index: ReadonlyMap<string, number>, root: string, issues: Issue[]): void {
  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const colour = new Array<number>(components.length).fill(WHITE);
  const stack: number[] = [];
  const visit = (i: number): void => {
    colour[i] = GREY;
    stack.push(i);
    const c = components[i];
    const dependsOn = c === undefined ? undefined : chargeModel(c.model)?.dependsOn;
    if (c !== undefined && dependsOn !== undefined) {
      for (const code of dependsOn.codes(c as never)) {
        const j = index.get(code);
        if (j === undefined || j === i) continue; // reported elsewhere
        if (colour[j] === GREY) {
          const loop = stack.slice(stack.indexOf(j)).map((k) => components[k]?.code ?? '?');
          issues.push({
            path: `${root}.components[${i}].${dependsOn.field}`,
            message: `${c.model} components form a cycle: ${[...loop, code].join(' -> ')}`,
          });
        } else if (colour[j] === WHITE) visit(j);
      }
    }
    stack.pop();
    colour[i] = BLACK;
  };
  for (let i = 0; i < components.length; i++) if (colour[i] === WHITE) visit(i);
}
