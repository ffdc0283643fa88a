import { Type, type Static } from 'typebox';
import { Amount, Code } from '../fields.ts';
import { apiDate } from '../days.ts';
import { type Dec, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import { partOfBill, partsOf } from './billShare.ts';
import type { ModelContext, SegmentContext } from './context.ts';
import { checkOf, componentFields, defineModel, sumOfLines, type PreparedBase } from './model.ts';

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
  /**
   * In a bill spanning a version change, on the line of the last segment whose version has
   * the commitment: the bill's commitment, each version's for its segment's share of the
   * days (commitment x days / of; of is the bill's billed days, or the term's days when
   * prorated), and the lines of earlier segments counted in `usage` besides `of`.
   */
  bill?: {
    parts: { version: number; commitment: string; days: number; of: number }[];
    committed: string;
    earlier: { version: number; code: string; amount: string }[];
  };
  /** On an earlier segment's line of such a bill: the segment whose line measures the commitment (this line is 0). */
  measuredOn?: { version: number; start: string };
};

/**
 * A minimum commitment per bill, topped up on its own line (Lago's plan minimum
 * commitment and a charge's true-up fee): the committed amount less the sum of the
 * already rounded amounts of the components in `of`, never below zero. With `prorate`,
 * the committed amount is scaled by the days billed while the usage lines are taken as
 * they are: a customer connected half the month commits half the minimum, and pays
 * for what was used in full. The quantity argument is not used: the usage is the line's
 * quantity.
 *
 * In a bill spanning a version change (rated in segments) the commitment is still one per
 * bill: measured once, over the lines of every segment, on the line of the last segment
 * whose version has it (acrossSegments).
 */
export function rateCommitment(component: PreparedCommitment, _quantity: Dec, context: ModelContext): ModelResult<CommitmentTrace> {
  const { sum: usage, lines: of } = usageOf(component, context.amounts, context.minorUnits);
  const part = partOfBill(context);
  if (part !== undefined) return acrossSegments(component, context, part, usage, of);
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

/**
 * The commitment of a bill rated in segments. Topped up in each segment, a 1000 commitment
 * with 300.00 of usage in each of two segments charged 700.00 twice (1400.00, not 400.00),
 * and a price rise after the change left the first segment short even when the bill was
 * not. So it is measured once: the bill's commitment is each version's for its segment's
 * share of the days, sum of commitment x days / the bill's billed days (the term's days
 * when prorated, as without segments); the usage is the lines in `of` of every segment
 * whose version has the commitment; the shortfall is on the line of the last of them, the
 * earlier ones' lines are 0 and say where it is measured.
 */
function acrossSegments(
  component: PreparedCommitment,
  context: ModelContext,
  seg: SegmentContext,
  usage: Dec,
  of: { code: string; amount: string }[],
): ModelResult<CommitmentTrace> {
  const minorUnits = context.minorUnits;
  const parts = commitmentParts(component, seg);
  const trace: CommitmentTrace = { model: 'commitment', commitment: component.commitment.toFixed(), of, usage: usage.toFixed(minorUnits), shortfall: '0' };
  const last = parts[parts.length - 1];
  if (last !== undefined && last.index !== seg.index) {
    trace.measuredOn = { version: last.segment.version, start: last.segment.start };
    return { amount: ZERO, rate: component.commitment, quantity: usage, trace };
  }
  // Sums of commitment x days per divisor, divided once: 1000 x 15/31 + 1000 x 16/31 is 1000 exactly.
  let overBillDays = ZERO;
  let overTermDays = ZERO;
  let total = usage;
  const billParts: NonNullable<CommitmentTrace['bill']>['parts'] = [];
  const earlier: NonNullable<CommitmentTrace['bill']>['earlier'] = [];
  for (const p of parts) {
    const weighted = p.component.commitment.times(p.segment.days);
    if (p.component.prorateCommitment) overTermDays = overTermDays.plus(weighted);
    else overBillDays = overBillDays.plus(weighted);
    billParts.push({ version: p.segment.version, commitment: p.component.commitment.toFixed(), days: p.segment.days, of: p.component.prorateCommitment ? context.termDays : seg.billDays });
    if (p.index === seg.index) continue;
    const before = usageOf(p.component, p.segment.amounts, minorUnits);
    total = total.plus(before.sum);
    for (const o of before.lines) earlier.push({ version: p.segment.version, ...o });
  }
  const committed = overBillDays.div(seg.billDays).plus(overTermDays.div(context.termDays));
  const shortfall = committed.gt(total) ? committed.minus(total) : ZERO;
  trace.usage = total.toFixed(minorUnits);
  trace.shortfall = shortfall.toFixed();
  trace.bill = { parts: billParts, committed: committed.toFixed(), earlier };
  return { amount: shortfall, rate: committed, quantity: total, trace };
}

/** The segments whose version has this commitment: what it is measured over. */
function commitmentParts(component: PreparedCommitment, seg: SegmentContext) {
  return partsOf(seg, component.code, (c): c is PreparedCommitment => c.model === 'commitment');
}

/** What acrossSegments reads of the bill's segments, for rateLine's cache key: each part's days and commitment, and the earlier parts' lines. */
function commitmentKey(component: PreparedCommitment, _context: ModelContext, seg: SegmentContext): string {
  let key = '';
  for (const p of commitmentParts(component, seg)) {
    key += `${p.index},${p.segment.days},${p.component.commitment.toString()},${p.component.prorateCommitment ? 1 : 0}`;
    if (p.index < seg.index) for (const ref of p.component.of) key += `,${ref.code}=${p.segment.amounts[ref.index]?.toString() ?? '-'}`;
    key += ';';
  }
  return key;
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
    checkOf(c.of, c.code, path, ctx, 'a commitment cannot count itself');
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
  segmentKey: commitmentKey,
  explain: (t) => {
    const lines = t.of.map((o) => `${o.code} ${o.amount}`);
    if (t.measuredOn !== undefined) {
      return `minimum measured once for the whole bill, on the line of version ${t.measuredOn.version} from ${apiDate(t.measuredOn.start)}: usage here ${t.usage} (${lines.join(' + ')})`;
    }
    if (t.bill !== undefined) {
      const parts = t.bill.parts.map((p) => `${p.commitment} x ${p.days}/${p.of} (version ${p.version})`).join(' + ');
      const earlier = t.bill.earlier.map((e) => `${e.code} ${e.amount} in version ${e.version}`);
      return `minimum for the whole bill ${parts} less ${t.usage} (${[...earlier, ...lines].join(' + ')})`;
    }
    return `minimum ${t.proratedCommitment === undefined ? t.commitment : `${t.commitment} x ${t.proratedCommitment.factor}`} less ${t.usage} (${lines.join(' + ')})`;
  },
});

/** The rounded amounts of a commitment's `of` lines in one segment (or bill), and their sum. */
const usageOf = (component: PreparedCommitment, amounts: readonly (Dec | undefined)[], minorUnits: number) =>
  sumOfLines(`commitment ${component.code}`, component.of, amounts, minorUnits);
