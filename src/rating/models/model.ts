import { Type, type Static, type TObject } from 'typebox';
import type { Issue } from '../checkTariff.ts';
import { Amount, Category, Code, Label } from '../fields.ts';
import { type Dec, ZERO } from '../money.ts';
import type { PreparedInput } from '../prepareTariff.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext, SegmentContext } from './context.ts';
import type { PreparedBound } from '../levelBound.ts';

/**
 * What a charge model is: one module under models/ exporting one of these,
 * listed once in registry.ts. Everything that differs from one model to the
 * next is here; checkTariff, prepareTariff, rateLine, the templates' schema
 * and the explanation of a bill line read it through the registry.
 */
export type ChargeModel<Name extends string, S extends TObject, P extends PreparedBase & { model: Name }, T extends { model: Name }> = {
  name: Name;
  /** The component's JSON shape (TypeBox): the template's request schema and OpenAPI are built from it. */
  schema: S;
  /** True when the component's `input` names the metered or unmetered input whose quantity it prices. */
  usesInput: boolean;
  /** `prorate` when the component does not say: 'on' or 'off'; 'never' when the model has no proration. */
  prorate: 'on' | 'off' | 'never';
  /** The line's quantity: '1', the base it is taken of (money), or the measured quantity. */
  lineQuantity: 'one' | 'base' | 'measured';
  /**
   * True when the model prices its input as a level held over the days (a demand, a capacity)
   * and multiplies by the days itself: in a segment of a bill spanning a version change it
   * takes the meter's whole quantity, not the segment's share by days (rateSegments.ts).
   */
  levelInput?: boolean;
  /**
   * True when the amount is a price per day billed (perDay, perUnitPerDay): proportional to the
   * days as a prorated line is, so a Prepaid advance of it is credited for the days not used
   * (prepaid.ts), though the model never prorates.
   */
  byTheDay?: boolean;
  /**
   * The numbers a simulation may solve for (simulate-tariff's solve, src/simulation/solve.ts),
   * the first the default; a tier's on a tiered model (`tiers`). None: not solvable.
   */
  solvable?: readonly ('amount' | 'rate' | 'flat' | 'price' | 'percentage')[];
  /**
   * Checks what the schema cannot, reporting into ctx.issues with paths under `path`.
   * The fields every component has (category, input, minimum, maximum) are checked by checkTariff.
   */
  check(component: Static<S>, path: string, ctx: CheckContext): void;
  /** The field naming the components this one is computed from (rated first, never in a loop), and their codes. */
  dependsOn?: { field: string; codes(component: Static<S>): readonly string[] };
  /** The component in decimals, references resolved; called only on a tariff that passed its checks. */
  prepare(component: Static<S>, base: PreparedBase, ctx: PrepareContext): P;
  /** The unrounded amount and its trace; proration, limits and rounding are rateLine's. */
  rate(component: P, quantity: Dec, context: ModelContext): ModelResult<T>;
  /**
   * For a model whose rate reads the bill's other segments (a rule given once per bill:
   * models/billShare.ts), what it reads of them as text: rateLine keeps rated lines in a
   * cache keyed by what they were rated from, and two lines alike in their own segment but
   * not in what the earlier segments left them must not be taken for one another.
   */
  segmentKey?(component: P, context: ModelContext, segment: SegmentContext): string;
  /** The model's part of a bill line's explanation, from its trace only. */
  explain(trace: T): string;
};

export type Sign = 'any' | 'nonNegative' | 'positive';

/**
 * The already rounded amounts of the lines a component is computed from (`of`: a percentage's
 * base, a commitment's usage, a rounding line's sum), each as the trace lists it, and their sum.
 * `owner` names the component in the error a gap raises: lines are rated in dependency order,
 * so one not rated yet is a bug, not bad data.
 */
export function sumOfLines(owner: string, of: readonly { code: string; index: number }[], amounts: readonly (Dec | undefined)[], minorUnits: number): { sum: Dec; lines: { code: string; amount: string }[] } {
  let sum = ZERO;
  const lines: { code: string; amount: string }[] = [];
  for (const ref of of) {
    const amount = amounts[ref.index];
    if (amount === undefined) throw new Error(`${owner}: '${ref.code}' not rated yet`);
    sum = sum.plus(amount);
    lines.push({ code: ref.code, amount: amount.toFixed(minorUnits) });
  }
  return { sum, lines };
}

/**
 * The check of a component computed from others (`of`: a percentage, a commitment, a
 * rounding line): at least one, each an existing other component, none twice. `itself` is
 * the words for naming its own code.
 */
export function checkOf(of: unknown, own: string, path: string, ctx: CheckContext, itself: string): void {
  const codes = Array.isArray(of) ? (of as string[]) : [];
  const seen = new Set<string>();
  codes.forEach((code, j) => {
    const p = `${path}.of[${j}]`;
    if (seen.has(code)) ctx.issues.push({ path: p, message: `'${code}' is listed twice` });
    seen.add(code);
    if (code === own) ctx.issues.push({ path: p, message: itself });
    else if (!ctx.componentIndex.has(code)) ctx.issues.push({ path: p, message: `no component with code '${code}'` });
  });
  if (codes.length === 0) ctx.issues.push({ path: `${path}.of`, message: 'must list at least one component' });
}

export type CheckContext = {
  issues: Issue[];
  /** A decimal of sane size and the sign asked for, or null (reported). */
  number(x: unknown, path: string, sign: Sign): Dec | null;
  /** A price parameter: a decimal or a `{ value }` that resolves, or null (reported). Undefined is allowed. */
  amount(a: Amount | undefined, path: string, sign: Sign): Dec | null;
  /** Index of each component code in the template (the first, when a code is repeated). */
  componentIndex: ReadonlyMap<string, number>;
  /** What an input code names: an unmetered input, a cumulative meter, a demand (maximum) register, or nothing. */
  inputKind(code: unknown): 'unmetered' | 'cumulative' | 'maximum' | undefined;
};

export type PrepareContext = {
  resolve(a: Amount): Dec;
  /** Index of each component code in the template. */
  indexOf: ReadonlyMap<string, number>;
};

/** What every prepared component has, whatever its model. */
export type PreparedBase = {
  /** Position in the template's components array (the order lines are shown in). */
  index: number;
  code: string;
  name: string;
  category: Category;
  prorate: boolean;
  minimum: Dec | null;
  maximum: Dec | null;
  /** The input whose quantity the model prices; null for a model that uses none. */
  input: PreparedInput | null;
  /** The model prices its input as a level by the day (ChargeModel.levelInput): a segment takes the whole of a meter's quantity. */
  levelInput: boolean;
  /** A share of the metered input's consumption priced instead of the whole (InputShare); null: the whole. */
  inputShare: { percentage: Dec; maximum: Dec | null } | null;
  /** The quantity held against a level of the subscription (levelBound.ts); null: as measured. */
  bound: PreparedBound | null;
  /** A demand ratchet (levelBound.ts): at least percentage% of the highest demand read in `months` before the period; null: none. */
  ratchet: { percentage: Dec; months: number } | null;
  /** Indexes of the components this one is computed from (rated before it). */
  dependsOn: number[];
};

/** Lets TypeScript infer a model's types from its object, and checks it against ChargeModel. */
export function defineModel<Name extends string, S extends TObject, P extends PreparedBase & { model: Name }, T extends { model: Name }>(
  model: ChargeModel<Name, S, P, T>,
): ChargeModel<Name, S, P, T> {
  return model;
}

// ---------------------------------------------------------------- schema pieces

/** The fields every component has, whatever its model. */
export const componentFields = {
  code: Code,
  name: Label,
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  category: Type.Optional(Category),
  minimum: Type.Optional(Amount),
  maximum: Type.Optional(Amount),
};

/**
 * A share of a metered input's consumption, the quantity a component prices instead of the
 * whole: sewage billed on 70% of the water used, at most 35 kL a bill (a municipal bill prints
 * "Sewerage: 70% of 40 kL = 28 kL"). Only on a component whose input is metered.
 */
export const InputShare = Type.Object(
  { percentage: Amount, maximum: Type.Optional(Amount) },
  {
    additionalProperties: false,
    description:
      'The share of the metered consumption priced: percentage (above 0; 70 is seven tenths) of it, at most maximum units a bill (in a bill spanning a version change, each segment its share of the maximum by days)',
  },
);
export const inputShareField = Type.Optional(InputShare);

/**
 * A level of the subscription (an unmetered input: a contract or notified demand) the
 * quantity is held against (levelBound.ts): `floor`, priced at no less than percentage% of
 * it; `excessOver`, only what is above percentage% of it.
 */
const LevelBound = (what: string) =>
  Type.Object(
    {
      input: Type.String({ minLength: 1, maxLength: 64, description: 'Code of an unmetered input: the subscription\'s level (a contract demand, a notified maximum demand)' }),
      percentage: Type.Optional(Amount),
    },
    { additionalProperties: false, description: what },
  );
export const levelBoundFields = {
  floor: Type.Optional(
    LevelBound(
      'The quantity priced is at least percentage (default 100) percent of the subscription\'s level: a billing demand not less than 60% of the contract demand. In a bill spanning a version change a segment\'s part of a metered quantity is held to the same part of it',
    ),
  ),
  excessOver: Type.Optional(
    LevelBound(
      'The quantity priced is only what is above percentage (default 100) percent of the subscription\'s level, 0 when not above: the demand above the notified maximum demand, at a penalty rate',
    ),
  ),
  ratchet: Type.Optional(
    Type.Object(
      { percentage: Amount, months: Type.Integer({ minimum: 1, maximum: 36, description: 'how many months before the period the demand history is read over' }) },
      {
        additionalProperties: false,
        description:
          'A demand ratchet, on a demand register (register maximum): the quantity priced is at least percentage percent of the highest demand read in the months before the period (a billing demand not less than 75% of the highest of the last eleven months). With a floor, the greater of both',
      },
    ),
  ),
};

export const inputField = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Code of a metered input (the period consumption) or an unmetered input (the subscription quantity)',
});

export const prorateField = Type.Optional(
  Type.Boolean({ description: 'Scale the amount by activeDays / termDays (default: true for flat, false otherwise)' }),
);
