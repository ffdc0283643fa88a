// The schema of a bill line's trace (src/rating/trace.ts) for the OpenAPI document, so a
// generated client types `trace` instead of `unknown`. The runtime serializes the trace as
// the JSON the rating core wrote (no schema to drop a field by); the compile-time check at
// the bottom keeps this schema and the rating core's LineTrace type the same, both ways.
import { Type, type Static, type TProperties } from 'typebox';
import type { LineTrace } from '../rating/trace.ts';
import { ROUNDING_MODES } from '../rating/money.ts';
import { documentAs, named } from '../http/openapi.ts';

const Text = Type.String({ description: 'a decimal, as text' });
/** A tier bound as written and as used (rating/models/tiers.ts, ScaledBound). */
const ScaledBound = Type.Object({
  upTo: Text,
  scaled: Text,
  carried: Type.Optional(
    Type.Object(
      { allowance: Text, rounded: Text },
      { description: "after a version that wrote the bound otherwise: the earlier segments' exact allowance and the bounds they were given; scaled is the running total rounded by this version's rule, less `rounded`" },
    ),
  ),
  ofBill: Type.Optional(Type.String({ description: "under tier proration with one rule in every segment: the bill's bound, prorated and rounded by the rule once; scaled is this segment's share of it by days" })),
});
const Day = Type.String({ description: 'YYYY-MM-DD' });

const TierTrace = named(
  'TierTrace',
  Type.Object({
    tier: Type.Integer({ description: '1-based tier number as the customer reads it' }),
    from: Type.String({ description: 'lower bound (exclusive; 0 for the first tier)' }),
    upTo: Type.Union([Type.String(), Type.Null()], { description: 'upper bound (inclusive) after tier proration; null for the open tier' }),
    quantity: Type.String({ description: 'units priced in this tier' }),
    rate: Text,
    flat: Type.Optional(Text),
    flatShare: Type.Optional(
      Type.Object(
        { days: Type.Integer(), billDays: Type.Integer(), amount: Text },
        { description: "in a segment of a bill spanning a version change: the part of the flat charged here, flat x days / billDays (a tier's flat is charged once per bill)" },
      ),
    ),
    amount: Type.String({ description: 'quantity x rate + flat (or its share); rounded to the minor unit when the component rounds each tier (roundEachTier)' }),
    unrounded: Type.Optional(Type.String({ description: "with roundEachTier, where the rounding changed it: the tier's amount before it was rounded" })),
    carried: Type.Optional(
      Type.Object(
        { unrounded: Text, rounded: Text },
        { description: "with roundEachTier in a later segment, where it changed the amount: the same tier's earlier amounts, exact and billed; the amount is round(unrounded + this tier's) - rounded" },
      ),
    ),
  }),
);

const TierProrationTrace = named(
  'TierProrationTrace',
  Type.Object({
    basisDays: Type.Union([Type.Integer(), Type.String()], { description: "days the bounds are written for: a whole number, or a decimal as text ('30.4375')" }),
    period: Type.Optional(Type.Literal('readingPeriod', { description: 'the bounds were scaled by readingDays rather than activeDays' })),
    readingDays: Type.Optional(Type.String({ description: 'days between the two readings used (a segment takes activeDays / billDays of them; before 2026-11-26 a segment wrote its part here)' })),
    billDays: Type.Optional(Type.Integer({ description: "in a segment of a bill spanning a version change: the bill's billed days, of which activeDays are the segment's" })),
    activeDays: Type.Integer(),
    daysBefore: Type.Optional(
      Type.Integer({ description: "in a segment of a bill: billed days of the earlier segments; the bound used is rounded on the running total of days (the segments' bounds add up to the bill's)" }),
    ),
    suspendedDays: Type.Optional(Type.Integer()),
    decimals: Type.Integer(),
    rounding: Type.Union([Type.Literal('down'), Type.Literal('up'), Type.Literal('halfUp')]),
    bounds: Type.Array(ScaledBound, { description: 'each written bound and the bound used: upTo x activeDays / basisDays, rounded' }),
  }),
);

const ConversionTrace = named(
  'ConversionTrace',
  Type.Object(
    {
      factor: Text,
      unit: Type.String({ description: 'the unit billed' }),
      decimals: Type.Integer(),
      rounding: Type.Union([Type.Literal('halfUp'), Type.Literal('down'), Type.Literal('up')]),
      quantity: Type.String({ description: 'consumption x factor, rounded to decimals: what the lines price' }),
      earlier: Type.Optional(
        Type.Object(
          { exact: Text, billed: Text },
          { description: "in a later segment, where it changed the quantity: the earlier parts converted and billed; the quantity is round(exact + this part x factor) - billed" },
        ),
      ),
    },
    { description: "a meter whose consumption is converted before it is priced (the meter's conversion)" },
  ),
);

const ReadingTrace = named(
  'ReadingTrace',
  Type.Object({
    input: Type.String(),
    previous: Type.Object({ date: Day, value: Text, estimated: Type.Optional(Type.Literal(true, { description: 'this reading was an estimate (bills since 2026-11-26)' })) }),
    current: Type.Object({ date: Day, value: Text, estimated: Type.Optional(Type.Literal(true, { description: 'this reading was an estimate (bills since 2026-11-26)' })) }),
    estimated: Type.Boolean(),
    kind: Type.Union([Type.Literal('normal'), Type.Literal('rollover'), Type.Literal('maximum')], {
      description: "'maximum': a demand register's reading, billed as read (the period's highest demand); otherwise the consumption between the two readings, across a roll-over",
    }),
    highest: Type.Optional(
      Type.Object(
        { date: Day, value: Text, estimated: Type.Optional(Type.Literal(true)) },
        { description: "a demand register read more than once in the period: the highest reading, billed, when it is not the current one" },
      ),
    ),
    rolloverAt: Type.Optional(Text),
    consumption: Text,
    conversion: Type.Optional(ConversionTrace),
  }),
);

const SuspendedPeriod = Type.Object({ start: Day, end: Day });

/** What a quantity held to a threshold keeps (levelBound.ts): the threshold, the quantity before and after, and in a segment the bill's threshold and this part's share of it. */
const HELD = {
  threshold: Text,
  of: Text,
  quantity: Text,
  whole: Type.Optional(Text),
  share: Type.Optional(
    Type.Object(
      { by: Type.Union([Type.Literal('quantity'), Type.Literal('days')]), part: Text, of: Text },
      { description: "a segment's share of the bill's threshold: by its part of the bill's quantity, or by billed days when nothing was measured" },
    ),
  ),
};

const COMMON = {
  reading: Type.Optional(ReadingTrace),
  share: Type.Optional(
    named(
      'ShareTrace',
      Type.Object(
        { of: Text, percentage: Text, share: Text, maximum: Type.Optional(Text), quantity: Text },
        { description: "a component priced on a share of its meter's consumption (inputShare): of the consumption, the percentage, the share, the maximum and the quantity priced" },
      ),
    ),
  ),
  ratchet: Type.Optional(
    named(
      'RatchetTrace',
      Type.Object(
        {
          months: Type.Integer(),
          percentage: Text,
          highest: Type.Union([Type.Object({ date: Day, value: Text, estimated: Type.Optional(Type.Literal(true)) }), Type.Null()]),
          ...HELD,
        },
        {
          description:
            "a demand ratchet (a component's ratchet): the months looked back over, the percentage, the highest demand read in them (null: none), the threshold (a segment's share of it when the quantity is a segment's part), the quantity before and the quantity priced",
        },
      ),
    ),
  ),
  bound: Type.Optional(
    named(
      'BoundTrace',
      Type.Object(
        {
          kind: Type.Union([Type.Literal('floor'), Type.Literal('excessOver')]),
          input: Type.String(),
          level: Text,
          percentage: Text,
          ...HELD,
        },
        {
          description:
            "a quantity held against a level of the subscription (a component's floor or excessOver): the unmetered input and its value, the percentage, the threshold (a segment's share of it when the quantity is a segment's part), the quantity before and the quantity priced",
        },
      ),
    ),
  ),
  input: Type.Optional(named('InputTrace', Type.Object({ input: Type.String(), value: Type.String(), source: Type.Union([Type.Literal('subscription'), Type.Literal('default')]) }))),
  proration: Type.Optional(
    named(
      'ProrationTrace',
      Type.Object({
        activeDays: Type.Integer({ description: 'days billed: connected and not suspended' }),
        termDays: Type.Integer(),
        suspendedDays: Type.Optional(Type.Integer()),
        suspended: Type.Optional(Type.Array(SuspendedPeriod)),
        factor: Type.String({ description: 'activeDays/termDays as a fraction, e.g. "15/31", applied exactly' }),
        before: Text,
        after: Text,
        basis: Type.Optional(Type.Literal('billedDays', { description: "in a segment, a component not prorated by the term is shared by the segment's billed days over the bill's" })),
      }),
    ),
  ),
  segment: Type.Optional(
    named(
      'SegmentTrace',
      Type.Object({
        version: Type.Integer({ description: 'the template version in force over the segment' }),
        start: Day,
        end: Day,
        days: Type.Integer({ description: 'billed days of the segment' }),
        suspendedDays: Type.Optional(Type.Integer()),
        consumption: Type.Optional(
          Type.Object({
            input: Type.String(),
            quantity: Text,
            by: Type.Union([Type.Literal('days'), Type.Literal('readings'), Type.Literal('whole')], {
              description: "how the segment's part was found: shared by days, split by the readings, or the whole (a level priced by the day, perUnitPerDay)",
            }),
            from: Type.Optional(Type.Object({ date: Day, value: Text })),
            to: Type.Optional(Type.Object({ date: Day, value: Text })),
            conversion: Type.Optional(ConversionTrace),
          }),
        ),
      }),
    ),
  ),
  prepaid: Type.Optional(
    named(
      'PrepaidTrace',
      Type.Object(
        {
          basis: Type.Union([Type.Literal('arrears'), Type.Literal('catchUp'), Type.Literal('advance'), Type.Literal('credit')]),
          start: Day,
          end: Day,
          days: Type.Integer({ description: 'days billed; a credit: the unused days' }),
          unused: Type.Optional(Type.Array(SuspendedPeriod)),
          advance: Type.Optional(
            Type.Object({ billNumber: Type.String(), start: Day, end: Day, days: Type.Integer(), amount: Text }, { description: 'a credit: the advance line it gives back' }),
          ),
        },
        { description: "a Prepaid template's line: in arrears (the term's consumption), catchUp (the term's days not billed in advance), advance (the coming period), credit (unused prepaid days)" },
      ),
    ),
  ),
  limit: Type.Optional(
    named(
      'LimitTrace',
      Type.Object({
        minimum: Type.Optional(Text),
        maximum: Type.Optional(Text),
        applied: Type.Union([Type.Literal('minimum'), Type.Literal('maximum')]),
        before: Type.String({ description: 'the amount before the limit' }),
        bill: Type.Optional(
          Type.Object(
            {
              parts: Type.Array(Type.Object({ version: Type.Integer(), limit: Text, days: Type.Integer(), of: Type.Integer() })),
              earlier: Type.String({ description: "the rounded sum of the component's lines in earlier segments, counted towards the limit" }),
            },
            {
              description:
                "in a bill spanning a version change the limit is the bill's: each version's limit x its segment's days / of (the bill's billed days, or the term's for a prorated component), summed; this line is held to it less the earlier lines",
            },
          ),
        ),
      }),
    ),
  ),
  unrounded: Type.String({ description: "the amount before rounding to the currency's minor unit" }),
  carried: Type.Optional(
    Type.Object(
      { unrounded: Text, rounded: Text },
      {
        description:
          "in a segment of a bill spanning a version change: the component's lines in the earlier segments, unrounded and rounded; this line is round(carried.unrounded + unrounded) less carried.rounded, so the lines of one charge add up to it rounded once over the bill",
      },
    ),
  ),
  rounding: Type.Enum([...ROUNDING_MODES]),
};

const SegmentBoundsTrace = Type.Optional(
  named(
    'SegmentBoundsTrace',
    Type.Object(
      { days: Type.Integer(), billDays: Type.Integer(), daysBefore: Type.Optional(Type.Integer()), bounds: Type.Array(ScaledBound) },
      { description: 'tier bounds scaled to the segment of a bill spanning a version change: upTo x days / billDays, rounded on the running total of days (daysBefore: billed days of the earlier segments)' },
    ),
  ),
);

/** One charge model's trace with the fields every line's trace has. */
function lineTrace<P extends TProperties>(title: string, props: P) {
  return named(title, Type.Object({ ...props, ...COMMON }));
}

const FlatTrace = lineTrace('FlatLineTrace', { model: Type.Literal('flat'), amount: Text });
const PerUnitTrace = lineTrace('PerUnitLineTrace', { model: Type.Literal('perUnit'), quantity: Text, rate: Text });
const PerDayTrace = lineTrace('PerDayLineTrace', {
  model: Type.Literal('perDay'),
  days: Type.Integer({ description: "the days billed: the term's days connected and not suspended (in a segment, the segment's)" }),
  rate: Text,
});
const PerUnitPerDayTrace = lineTrace('PerUnitPerDayLineTrace', {
  model: Type.Literal('perUnitPerDay'),
  quantity: Type.String({ description: 'the level priced: the demand register\'s highest reading, or the unmetered input (in a segment, the whole of it)' }),
  days: Type.Integer({ description: "the days billed: the term's days connected and not suspended (in a segment, the segment's)" }),
  rate: Text,
});
const PackageTrace = lineTrace('PackageLineTrace', {
  model: Type.Literal('package'),
  quantity: Text,
  freeUnits: Type.Optional(Type.String({ description: 'units free before blocks are counted (in a segment of a bill, its share of them)' })),
  freeShare: Type.Optional(
    Type.Object(
      { freeUnits: Text, days: Type.Integer(), billDays: Type.Integer(), daysBefore: Type.Optional(Type.Integer()) },
      { description: "in a segment of a bill spanning a version change: the free units as written, shared by the segment's billed days over the bill's (rounded on the running total of days)" },
    ),
  ),
  carriedIn: Type.Optional(Type.String({ description: 'units left in the last block billed in an earlier segment of the bill, used here first' })),
  size: Text,
  blocks: Text,
  price: Text,
  left: Type.Optional(Type.String({ description: "units of this line's last block not used here: the next segment of the bill uses them first" })),
});
const CommitmentTrace = lineTrace('CommitmentLineTrace', {
  model: Type.Literal('commitment'),
  commitment: Text,
  proratedCommitment: Type.Optional(Type.Object({ activeDays: Type.Integer(), termDays: Type.Integer(), factor: Type.String(), after: Text })),
  of: Type.Array(Type.Object({ code: Type.String(), amount: Text }), { description: 'the rounded amounts of the lines that count towards it' }),
  usage: Text,
  shortfall: Text,
  bill: Type.Optional(
    Type.Object(
      {
        parts: Type.Array(Type.Object({ version: Type.Integer(), commitment: Text, days: Type.Integer(), of: Type.Integer() })),
        committed: Text,
        earlier: Type.Array(Type.Object({ version: Type.Integer(), code: Type.String(), amount: Text }), { description: 'the lines of earlier segments counted in usage' }),
      },
      {
        description:
          "in a bill spanning a version change, on the line of the last segment with the commitment: the bill's commitment (each version's x its segment's days / of: the bill's billed days, or the term's when prorated) measured once over every segment's lines",
      },
    ),
  ),
  measuredOn: Type.Optional(
    Type.Object({ version: Type.Integer(), start: Day }, { description: "on an earlier segment's line: the segment whose line measures the bill's commitment (this line is 0)" }),
  ),
});
const GraduatedTrace = lineTrace('GraduatedLineTrace', {
  model: Type.Literal('graduated'),
  quantity: Text,
  roundEachTier: Type.Optional(Type.Literal(true, { description: "each tier's amount was rounded to the minor unit by the app's rule; the line is their sum" })),
  tiers: Type.Array(TierTrace),
  tierProration: Type.Optional(TierProrationTrace),
  segmentBounds: SegmentBoundsTrace,
});
const VolumeTrace = lineTrace('VolumeLineTrace', {
  model: Type.Literal('volume'),
  quantity: Text,
  tier: TierTrace,
  tierProration: Type.Optional(TierProrationTrace),
  segmentBounds: SegmentBoundsTrace,
});
const PercentageTrace = lineTrace('PercentageLineTrace', {
  model: Type.Literal('percentage'),
  percentage: Text,
  of: Type.Array(Type.Object({ code: Type.String(), amount: Text }), { description: 'the rounded amounts of the lines it is a percentage of' }),
  base: Text,
});

const TotalRoundingTrace = lineTrace('TotalRoundingLineTrace', {
  model: Type.Literal('totalRounding'),
  increment: Text,
  rule: Type.Enum([...ROUNDING_MODES], { description: 'the rule the sum is rounded by (the line itself is rounded by rounding, the app\'s rule)' }),
  of: Type.Array(Type.Object({ code: Type.String(), amount: Text }), { description: 'the rounded amounts of the lines summed' }),
  sum: Text,
  rounded: Text,
  adjustment: Type.String({ description: 'what the line adds: rounded less sum, negative when rounded down' }),
  earlier: Type.Optional(
    Type.Array(Type.Object({ version: Type.Integer(), code: Type.String(), amount: Text }), {
      description: "in a bill spanning a version change, on the line that rounds it: the lines of earlier segments in the sum",
    }),
  ),
  measuredOn: Type.Optional(
    Type.Object({ version: Type.Integer(), start: Day }, { description: "on an earlier segment's line: the segment whose line rounds the bill (this line is 0)" }),
  ),
});

const Members = [FlatTrace, PerUnitTrace, GraduatedTrace, VolumeTrace, PackageTrace, PercentageTrace, CommitmentTrace, PerDayTrace, PerUnitPerDayTrace, TotalRoundingTrace] as const;
export const LineTraceSchema = Type.Union([...Members]);

// The schema and the rating core's type are the same, both ways (a new model or trace field
// that is not added here stops the type check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same: Same<Static<typeof LineTraceSchema>, LineTrace> = true;
// Structural typing lets either side lack an optional field: each model's keys are compared too.
type Documented = Static<typeof LineTraceSchema>;
type KeysPerModel = { [M in LineTrace['model']]: Same<keyof Extract<Documented, { model: M }>, keyof Extract<LineTrace, { model: M }>> }[LineTrace['model']];
const sameKeys: false extends KeysPerModel ? false : true = true;
void same;
void sameKeys;

documentAs('LineTrace', {
  oneOf: Members,
  discriminator: { propertyName: 'model' },
  description: 'How the amount was reached: the charge model and its figures, the reading, input, proration, limit and rounding.',
} as never);
