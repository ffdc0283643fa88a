import { Type, type Static } from 'typebox';
import { Amount, Code } from '../fields.ts';
import { apiDate } from '../days.ts';
import { type Dec, parseDecimal, roundToIncrement, ROUNDING_MODES, type RoundingMode, ZERO } from '../money.ts';
import type { ModelResult } from '../trace.ts';
import { partOfBill, partsOf } from './billShare.ts';
import type { ModelContext, SegmentContext, SegmentOfBill } from './context.ts';
import { checkOf, componentFields, defineModel, sumOfLines, type PreparedBase } from './model.ts';

export const TotalRoundingComponent = Type.Object(
  {
    ...componentFields,
    model: Type.Literal('totalRounding'),
    of: Type.Array(Code, { minItems: 1, maxItems: 100, description: 'Codes of the components whose sum is rounded (usually every other line, taxes included)' }),
    increment: Amount,
    rounding: Type.Optional(Type.Enum([...ROUNDING_MODES], { description: 'How the sum is rounded to a multiple of increment (default halfUp)' })),
  },
  {
    additionalProperties: false,
    title: 'TotalRoundingComponent',
    description:
      'A rounding adjustment: the sum of the rounded amounts of the components in of, rounded to a multiple of increment (1: to the whole unit, as Indian bills to the rupee; 0.05: Swiss cash rounding), less that sum, on its own line',
  },
);
export type TotalRoundingComponent = Static<typeof TotalRoundingComponent>;
export type PreparedTotalRounding = PreparedBase & {
  model: 'totalRounding';
  increment: Dec;
  roundingMode: RoundingMode;
  of: { code: string; index: number }[];
};
export type TotalRoundingTrace = {
  model: 'totalRounding';
  increment: string;
  /**
   * The rule the sum is rounded by. Not `rounding`: every line's trace has that field for the
   * app's rule, which overwrote this one (an attacker's test: "rounded half up" printed on a
   * line rounded half to even).
   */
  rule: RoundingMode;
  /** The rounded amounts of the lines summed. */
  of: { code: string; amount: string }[];
  sum: string;
  rounded: string;
  /** What the line adds: rounded less sum (negative when rounded down). */
  adjustment: string;
  /** In a bill spanning a version change, on the line that rounds it: the lines of earlier segments in the sum. */
  earlier?: { version: number; code: string; amount: string }[];
  /** On an earlier segment's line of such a bill: the segment whose line rounds the bill (this line is 0). */
  measuredOn?: { version: number; start: string };
};

/**
 * Rounding lines whose increment is finer than the app's currency: a 0.005 step on a currency
 * of cents rounds the sum to half-cents, and the line, itself rounded to the cent like every
 * line, no longer makes the total a multiple of its increment. Checked when a template is
 * saved, where the app's minor units are known (templates/: makeService, updateService).
 */
export function incrementIssues(
  components: readonly { model: string; increment?: unknown }[],
  values: readonly { code: string; value: unknown }[],
  minorUnits: number,
  root = 'service',
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  components.forEach((c, i) => {
    if (c.model !== 'totalRounding') return;
    const named = typeof c.increment === 'object' && c.increment !== null ? (c.increment as { value?: unknown }).value : undefined;
    const increment = parseDecimal(named === undefined ? c.increment : values.find((v) => v.code === named)?.value);
    if (increment === null || increment.decimalPlaces() <= minorUnits) return;
    const unit = minorUnits === 0 ? '1' : `0.${'0'.repeat(minorUnits - 1)}1`;
    issues.push({
      path: `${root}.components[${i}].increment${named === undefined ? '' : '.value'}`,
      message: `must be a multiple of the currency's smallest unit (${unit}): the line itself is rounded to it, so the total would not be a multiple of ${increment.toFixed()}`,
    });
  });
  return issues;
}

/**
 * A bill's total rounded to a whole unit, or to a cash increment, on a line of its own: the
 * Indian electricity bill rounded to the rupee, the Swiss one to 5 centimes (an outside check
 * reproducing real bills found no way to print either). The adjustment is the rounded sum
 * of the components in `of` less that sum, so the bill's total is the rounded sum when `of`
 * lists every other line. Rounded once per bill: in a bill spanning a version change, on the
 * line of the last segment whose version has the component, over the lines in `of` of every
 * segment up to it (rounded in each segment, two adjustments would not round the bill).
 * The line shows the sum it rounds as its quantity and no rate: "3868.87 x 1 = 0.13" read
 * as a multiplication (a reviewer's finding).
 */
export function rateTotalRounding(component: PreparedTotalRounding, _quantity: Dec, context: ModelContext): ModelResult<TotalRoundingTrace> {
  const part = partOfBill(context);
  const trace = (sum: Dec, of: TotalRoundingTrace['of']): TotalRoundingTrace => ({
    model: 'totalRounding',
    increment: component.increment.toFixed(),
    rule: component.roundingMode,
    of,
    sum: sum.toFixed(context.minorUnits),
    rounded: sum.toFixed(context.minorUnits),
    adjustment: '0',
  });
  const mine = sumOfLines(`totalRounding ${component.code}`, component.of, context.amounts, context.minorUnits);
  let sum = mine.sum;
  let earlier: TotalRoundingTrace['earlier'];
  if (part !== undefined) {
    const parts = roundingParts(component, part);
    const last = parts[parts.length - 1];
    if (last !== undefined && last.index !== part.index) {
      return { amount: ZERO, quantity: sum, trace: { ...trace(sum, mine.lines), measuredOn: { version: last.segment.version, start: last.segment.start } } };
    }
    earlier = [];
    for (const [index, segment] of part.segments.entries()) {
      if (index >= part.index || segment.days === 0) continue;
      for (const { code, amount } of earlierLines(component, segment)) {
        sum = sum.plus(amount);
        earlier.push({ version: segment.version, code, amount: amount.toFixed(context.minorUnits) });
      }
    }
  }
  const rounded = roundToIncrement(sum, component.increment, component.roundingMode);
  const adjustment = rounded.minus(sum);
  const t = trace(sum, mine.lines);
  t.rounded = rounded.toFixed(context.minorUnits);
  t.adjustment = adjustment.toFixed();
  if (earlier !== undefined) t.earlier = earlier;
  return { amount: adjustment, quantity: sum, trace: t };
}

/**
 * The lines an earlier segment adds to the bill's sum: those its own version's rounding line
 * names, when that version has one (a component the later version dropped or renamed is still
 * on the bill: summed by the later version's list, a bill was left unrounded, 610.82), else
 * those the rounding line being rated names.
 */
function earlierLines(component: PreparedTotalRounding, segment: SegmentOfBill): { code: string; amount: Dec }[] {
  const own = segment.components.get(component.code);
  const of = own !== undefined && own.model === 'totalRounding' ? own.of : component.of;
  const out: { code: string; amount: Dec }[] = [];
  for (const ref of of) {
    const at = segment.components.get(ref.code)?.index;
    const amount = at === undefined ? undefined : segment.amounts[at];
    if (amount !== undefined) out.push({ code: ref.code, amount });
  }
  return out;
}

function roundingParts(component: PreparedTotalRounding, seg: SegmentContext) {
  return partsOf(seg, component.code, (c): c is PreparedTotalRounding => c.model === 'totalRounding');
}

/** What the line reads of the bill's other segments, for rateLine's cache key: the last part, and the earlier segments' lines it sums. */
function roundingKey(component: PreparedTotalRounding, _context: ModelContext, seg: SegmentContext): string {
  const parts = roundingParts(component, seg);
  let key = `${parts[parts.length - 1]?.index ?? -1};`;
  seg.segments.forEach((segment, index) => {
    if (index >= seg.index || segment.days === 0) return;
    for (const { code, amount } of earlierLines(component, segment)) key += `${index}:${code}=${amount.toString()},`;
    key += ';';
  });
  return key;
}

export const totalRounding = defineModel({
  name: 'totalRounding',
  schema: TotalRoundingComponent,
  usesInput: false,
  prorate: 'never',
  lineQuantity: 'base',
  check: (c, path, ctx) => {
    const increment = ctx.amount(c.increment, `${path}.increment`, 'positive');
    if (increment !== null && increment.decimalPlaces() > 6) ctx.issues.push({ path: `${path}.increment`, message: 'must have at most 6 decimals' });
    // A limit would clamp the adjustment, and the total would no longer be rounded.
    if (c.minimum !== undefined) ctx.issues.push({ path: `${path}.minimum`, message: 'a rounding line has no minimum' });
    if (c.maximum !== undefined) ctx.issues.push({ path: `${path}.maximum`, message: 'a rounding line has no maximum' });
    checkOf(c.of, c.code, path, ctx, 'a rounding line cannot round itself');
  },
  dependsOn: { field: 'of', codes: (c) => (Array.isArray(c.of) ? c.of : []) },
  prepare: (c, base, ctx): PreparedTotalRounding => ({
    ...base,
    model: 'totalRounding',
    increment: ctx.resolve(c.increment),
    roundingMode: c.rounding ?? 'halfUp',
    of: c.of.map((code) => ({ code, index: ctx.indexOf.get(code) as number })),
  }),
  rate: rateTotalRounding,
  segmentKey: roundingKey,
  explain: (t) => {
    const lines = [...(t.earlier ?? []).map((e) => `${e.code} ${e.amount} in version ${e.version}`), ...t.of.map((o) => `${o.code} ${o.amount}`)];
    if (t.measuredOn !== undefined) return `the bill is rounded once, on the line of version ${t.measuredOn.version} from ${apiDate(t.measuredOn.start)}`;
    const mode = t.rule === 'halfUp' ? 'half up' : t.rule === 'halfEven' ? 'half to even' : t.rule === 'halfDown' ? 'half down' : t.rule;
    return `${t.sum} (${lines.join(' + ')}) rounded ${mode} to a multiple of ${t.increment}: ${t.rounded}, adjustment ${t.adjustment}`;
  },
});
