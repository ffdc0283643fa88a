import { Type, type Static } from 'typebox';
import { Amount, Code } from '../fields.ts';
import { type Dec, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';
import { componentFields, defineModel, type PreparedBase } from './model.ts';

export const CommitmentComponent = Type.Object(
  {
    ...componentFields,
    model: Type.Literal('commitment'),
    amount: Amount,
    of: Type.Array(Code, { minItems: 1, maxItems: 100, description: 'Codes of the components whose amounts count towards the commitment' }),
    prorate: Type.Optional(
      Type.Boolean({
        description: 'Scale the committed amount (not the usage) by activeDays / termDays (default false)',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'CommitmentComponent',
    description: 'A minimum spend per bill across the components in of: the shortfall (amount less their rounded amounts, never below 0) on its own line',
  },
);
export type CommitmentComponent = Static<typeof CommitmentComponent>;
export type PreparedCommitment = PreparedBase & {
  model: 'commitment';
  commitment: Dec;
  prorateCommitment: boolean;
  of: { code: string; index: number }[];
};
export type CommitmentTrace = {
  model: 'commitment';
  /** The committed amount as written. */
  commitment: string;
  /** The committed amount for the days billed, when prorated: commitment x activeDays / termDays. */
  proratedCommitment?: { activeDays: number; termDays: number; factor: string; after: string };
  /** The rounded amounts of the lines that count towards it (never prorated here). */
  of: { code: string; amount: string }[];
  usage: string;
  /** What the line adds: the commitment less the usage, or 0 when the usage reaches it. */
  shortfall: string;
};

/**
 * A minimum commitment per bill, topped up on its own line (Lago's plan minimum
 * commitment and a charge's true-up fee): the committed amount less the sum of the
 * already rounded amounts of the components in `of`, never below zero. With `prorate`,
 * the committed amount is scaled by the days billed while the usage lines are taken as
 * they are: a customer connected half the month commits half the minimum, and pays
 * for what was used in full. The quantity argument is not used: the usage is the line's
 * quantity.
 */
export function rateCommitment(component: PreparedCommitment, _quantity: Dec, context: ModelContext): ModelResult<CommitmentTrace> {
  let usage = ZERO;
  const of: { code: string; amount: string }[] = [];
  for (const ref of component.of) {
    const amount = context.amounts[ref.index];
    // rateBill evaluates in dependency order; a gap here is a bug, not bad data.
    if (amount === undefined) throw new Error(`commitment ${component.code}: '${ref.code}' not rated yet`);
    usage = usage.plus(amount);
    of.push({ code: ref.code, amount: amount.toFixed(context.minorUnits) });
  }
  let committed = component.commitment;
  const trace: CommitmentTrace = { model: 'commitment', commitment: component.commitment.toFixed(), of, usage: usage.toFixed(context.minorUnits), shortfall: '' };
  if (component.prorateCommitment && context.activeDays !== context.termDays) {
    committed = committed.times(context.activeDays).div(context.termDays);
    trace.proratedCommitment = {
      activeDays: context.activeDays,
      termDays: context.termDays,
      factor: `${context.activeDays}/${context.termDays}`,
      after: committed.toFixed(),
    };
  }
  const shortfall = committed.gt(usage) ? committed.minus(usage) : ZERO;
  trace.shortfall = shortfall.toFixed();
  return { amount: shortfall, rate: committed, quantity: usage, trace };
}

export const commitment = defineModel({
  name: 'commitment',
  schema: CommitmentComponent,
  usesInput: false,
  // rateLine must not scale the shortfall: only the commitment is prorated, here.
  prorate: 'never',
  lineQuantity: 'base',
  check: (c, path, ctx) => {
    ctx.amount(c.amount, `${path}.amount`, 'nonNegative');
    const seen = new Set<string>();
    (Array.isArray(c.of) ? c.of : []).forEach((code, j) => {
      const p = `${path}.of[${j}]`;
      if (seen.has(code)) ctx.issues.push({ path: p, message: `'${code}' is listed twice` });
      seen.add(code);
      if (code === c.code) ctx.issues.push({ path: p, message: 'a commitment cannot count itself' });
      else if (!ctx.componentIndex.has(code)) ctx.issues.push({ path: p, message: `no component with code '${code}'` });
    });
    if (!Array.isArray(c.of) || c.of.length === 0) ctx.issues.push({ path: `${path}.of`, message: 'must list at least one component' });
  },
  dependsOn: { field: 'of', codes: (c) => (Array.isArray(c.of) ? c.of : []) },
  prepare: (c, base, ctx): PreparedCommitment => ({
    ...base,
    model: 'commitment',
    commitment: ctx.resolve(c.amount),
    prorateCommitment: c.prorate === true,
    of: c.of.map((code) => ({ code, index: ctx.indexOf.get(code) as number })),
  }),
  rate: rateCommitment,
  explain: (t) =>
    `minimum ${t.proratedCommitment === undefined ? t.commitment : `${t.commitment} x ${t.proratedCommitment.factor}`} less ${t.usage} (${t.of
      .map((o) => `${o.code} ${o.amount}`)
      .join(' + ')})`,
});
