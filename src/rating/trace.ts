import type { ConsumptionKind } from './consumption.ts';
import type { Dec } from './money.ts';
import type { RoundingMode } from './money.ts';

/**
 * How a line's amount was reached, kept on the bill so an officer can explain
 * it to a customer. Plain JSON: every number is decimal text.
 */

export type TierTrace = {
  /** 1-based tier number as the customer reads it. */
  tier: number;
  /** Lower bound (exclusive; 0 for the first tier). */
  from: string;
  /** Upper bound (inclusive), after tier proration; null for the open tier. */
  upTo: string | null;
  /** Units priced in this tier. */
  quantity: string;
  rate: string;
  flat?: string;
  /** quantity x rate + flat. */
  amount: string;
};

export type TierProrationTrace = {
  basisDays: number;
  activeDays: number;
  /** Connected days not counted in activeDays because the subscription was suspended. */
  suspendedDays?: number;
  decimals: number;
  rounding: 'down' | 'up' | 'halfUp';
  /** Each written bound and the bound used: upTo x activeDays / basisDays, rounded. */
  bounds: { upTo: string; scaled: string }[];
};

export type FlatTrace = { model: 'flat'; amount: string };
export type PerUnitTrace = { model: 'perUnit'; quantity: string; rate: string };
export type GraduatedTrace = {
  model: 'graduated';
  quantity: string;
  tiers: TierTrace[];
  tierProration?: TierProrationTrace;
};
export type VolumeTrace = {
  model: 'volume';
  quantity: string;
  /** The tier the total reaches; all units at its rate. */
  tier: TierTrace;
  tierProration?: TierProrationTrace;
};
export type PackageTrace = { model: 'package'; quantity: string; size: string; blocks: string; price: string };
export type PercentageTrace = {
  model: 'percentage';
  percentage: string;
  /** The rounded amounts of the lines it is a percentage of. */
  of: { code: string; amount: string }[];
  base: string;
};
export type ModelTrace = FlatTrace | PerUnitTrace | GraduatedTrace | VolumeTrace | PackageTrace | PercentageTrace;

export type ReadingTrace = {
  input: string;
  previous: { date: string; value: string };
  current: { date: string; value: string };
  estimated: boolean;
  kind: Exclude<ConsumptionKind, 'negative'>;
  rolloverAt?: string;
  consumption: string;
};

export type InputTrace = { input: string; value: string; source: 'subscription' | 'default' };

/** Days a subscription was suspended, both dates included, 'YYYY-MM-DD'. */
export type SuspendedPeriod = { start: string; end: string };

export type ProrationTrace = {
  /** Days billed: connected and not suspended. */
  activeDays: number;
  termDays: number;
  /** Connected days taken off activeDays because the subscription was suspended, and when. */
  suspendedDays?: number;
  suspended?: SuspendedPeriod[];
  /** activeDays/termDays as a fraction, e.g. "15/31": applied exactly, never as a rounded decimal. */
  factor: string;
  before: string;
  after: string;
};

export type LimitTrace = {
  minimum?: string;
  maximum?: string;
  applied: 'minimum' | 'maximum';
  /** The amount before the limit. */
  before: string;
};

export type LineTrace = ModelTrace & {
  reading?: ReadingTrace;
  input?: InputTrace;
  proration?: ProrationTrace;
  limit?: LimitTrace;
  /** The amount before rounding to the currency's minor unit. */
  unrounded: string;
  rounding: RoundingMode;
};

/** What a charge model answers: the unrounded amount, the rate shown on the line, and its trace. */
export type ModelResult<T extends ModelTrace = ModelTrace> = {
  amount: Dec;
  rate?: Dec;
  /** Overrides the line quantity (a percentage line shows its base). */
  quantity?: Dec;
  trace: T;
};
