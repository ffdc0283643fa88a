// Request and answer shapes of the tariff simulation operations (docs/simulation.md).
import { Type, type Static } from 'typebox';
import { AccountNumber, Id, Money, Paging, PagingInput } from '../primitives.ts';
import { Code, DecimalString, Tariff } from '../rating/tariff.ts';
import { BillLine } from '../bills/schemas.ts';
import { RATE_PARAMETERS } from './solve.ts';

export const SimulationId = Id;

export const SolveRequest = Type.Object(
  {
    componentCode: Code,
    tierIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: 99, description: 'the tier (0 first) of a graduated or volume component' })),
    parameter: Type.Optional(Type.Enum([...RATE_PARAMETERS], { description: "which number: default the model's own (flat amount, perUnit/tier rate, package price, percentage)" })),
    target: Type.Union([Type.Literal('revenueNeutral'), DecimalString], {
      description: "'revenueNeutral' (the revenue of the term's tariff) or a revenue, decimal text",
    }),
    measure: Type.Optional(Type.Enum(['total', 'charges'], { description: "the revenue solved for: 'total' (charges and tax, default) or 'charges'" })),
  },
  { additionalProperties: false, description: "One rate of the draft solved for a target revenue; the draft is rated with the rate found" },
);
export type SolveRequest = Static<typeof SolveRequest>;

export const SimulateTariffData = Type.Object(
  {
    termID: Id,
    label: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^\\x00]*$' })),
    draft: Type.Optional(
      Type.Object(
        {
          values: Tariff.properties.values,
          meteredInputs: Tariff.properties.meteredInputs,
          unmeteredInputs: Tariff.properties.unmeteredInputs,
          connectionInputs: Tariff.properties.connectionInputs,
          components: Tariff.properties.components,
        },
        { additionalProperties: false, description: "A tariff not saved: the pricing arrays of a template, checked as make-service checks them" },
      ),
    ),
    draftVersion: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: "another saved version of the term's template" })),
    solve: Type.Optional(SolveRequest),
    bands: Type.Optional(
      Type.Array(DecimalString, { minItems: 1, maxItems: 100, description: 'consumption band upper bounds, ascending; absent: deciles of the roster' }),
    ),
    background: Type.Optional(Type.Boolean({ description: 'true: always a job, even for a roster that fits one chunk' })),
  },
  { additionalProperties: false, description: 'exactly one of draft and draftVersion' },
);
export type SimulateTariffData = Static<typeof SimulateTariffData>;

const Amounts = Type.Object({ charges: Money, tax: Money, total: Money });
const Distribution = {
  subscriptions: Type.Integer(),
  currentTotal: Money,
  draftTotal: Money,
  difference: Money,
  minDifference: Type.Union([Money, Type.Null()]),
  maxDifference: Type.Union([Money, Type.Null()]),
  increased: Type.Integer(),
  decreased: Type.Integer(),
  unchanged: Type.Integer(),
};

export const SimulationSummary = Type.Object({
  rated: Type.Integer({ description: 'subscriptions rated both ways' }),
  failed: Type.Integer({ description: 'subscriptions not rated one way or both (in no revenue)' }),
  current: Amounts,
  draft: Amounts,
  difference: Amounts,
  bands: Type.Array(
    Type.Object({
      from: Type.Union([Type.String(), Type.Null()], { description: 'consumption above this (null: from the lowest)' }),
      to: Type.Union([Type.String(), Type.Null()], { description: 'consumption up to this, included (null: no upper bound)' }),
      ...Distribution,
    }),
  ),
  bandsKind: Type.Enum(['given', 'deciles']),
  batches: Type.Array(Type.Object({ batchCode: Type.String(), ...Distribution })),
});
export type SimulationSummary = Static<typeof SimulationSummary>;

export const SolveAnswer = Type.Object({
  componentCode: Type.String(),
  tierIndex: Type.Union([Type.Integer(), Type.Null()]),
  parameter: Type.String(),
  measure: Type.String(),
  target: Type.String({ description: "as asked: 'revenueNeutral' or a revenue" }),
  targetRevenue: Type.Union([Money, Type.Null()]),
  startRate: Type.String({ description: "the draft's rate before solving" }),
  rate: Type.Union([Type.String(), Type.Null()], { description: "the rate found, at the currency's minor unit" }),
  revenue: Type.Union([Money, Type.Null()], { description: 'the revenue the rate found gives' }),
  step: Type.String(),
  evaluations: Type.Integer({ description: 'ratings of the roster the search made' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why no rate was found' }),
});
export type SolveAnswer = Static<typeof SolveAnswer>;

export const SimulationRecord = Type.Object({
  simulationID: Type.Integer(),
  termID: Type.Integer(),
  label: Type.String(),
  draftVersion: Type.Union([Type.Integer(), Type.Null()], { description: 'the saved version simulated, or null for a draft sent' }),
  status: Type.Enum(['Queued', 'Running', 'Done', 'Failed']),
  progress: Type.Object({ subscriptions: Type.Integer(), chunksDone: Type.Integer(), chunksTotal: Type.Integer(), percent: Type.Integer() }),
  bands: Type.Union([Type.Array(Type.String()), Type.Null()]),
  solve: Type.Union([SolveAnswer, Type.Null()]),
  summary: Type.Union([SimulationSummary, Type.Null()]),
  draft: Type.Unknown({ description: 'the draft tariff as rated (a solved rate in place)' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  createdBy: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});
export type SimulationRecord = Static<typeof SimulationRecord>;

export const GetSimulationsData = Type.Object(
  { simulationID: Type.Optional(Id), termID: Type.Optional(Id), status: Type.Optional(Type.Enum(['Queued', 'Running', 'Done', 'Failed'])), ...PagingInput },
  { additionalProperties: false },
);

export const RESULT_SORTS = ['difference', '-difference', 'size', 'subscriptionID'] as const;
export type ResultSort = (typeof RESULT_SORTS)[number];

export const GetResultsData = Type.Object(
  {
    simulationID: Id,
    sort: Type.Optional(Type.Enum([...RESULT_SORTS], { description: "'difference' (largest fall first), '-difference' (largest rise first, default), 'size' (largest either way first), 'subscriptionID'" })),
    failed: Type.Optional(Type.Boolean({ description: 'true: only those not rated; false: only those rated both ways' })),
    batchCode: Type.Optional(Code),
    accountNumber: Type.Optional(AccountNumber),
    ...PagingInput,
  },
  { additionalProperties: false },
);
export type GetResultsData = Static<typeof GetResultsData>;

const Side = Type.Union([Type.Object({ charges: Money, tax: Money, total: Money, lines: Type.Array(BillLine) }), Type.Null()]);
const Refusal = Type.Object({ code: Type.String(), reason: Type.String(), details: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })) });

export const SimulationResult = Type.Object({
  subscriptionID: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.String(),
  accountName: Type.String(),
  batchCode: Type.String(),
  consumption: Type.Union([Type.String(), Type.Null()]),
  current: Side,
  draft: Side,
  difference: Type.Union([Amounts, Type.Null()], { description: 'draft minus current; null when not rated both ways' }),
  failure: Type.Union([Type.Object({ current: Type.Optional(Refusal), draft: Type.Optional(Refusal) }), Type.Null()]),
});
export type SimulationResult = Static<typeof SimulationResult>;

export const ResultsAnswer = Type.Object({ results: Type.Array(SimulationResult), paging: Paging });

export const ExportData = Type.Object(
  { simulationID: Id, sort: Type.Optional(Type.Enum([...RESULT_SORTS])) },
  { additionalProperties: false },
);
