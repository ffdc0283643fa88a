import type { ConsumptionKind } from './consumption.ts';
import type { Dec } from './money.ts';
import type { RoundingMode } from './money.ts';
import type { ModelTrace } from './models/registry.ts';

/**
 * How a line's amount was reached, kept on the bill so an officer can explain
 * it to a customer. Plain JSON: every number is decimal text.
 */

/** A charge model's part of the trace; each model's own is in its module (models/). */
export type { ModelTrace } from './models/registry.ts';
export type { TierTrace, TierProrationTrace } from './models/tiers.ts';

export type ReadingTrace = {
  input: string;
  /** `estimated`: this reading was an estimate (bills since 2026-11-26; before, only the flag below). */
  previous: { date: string; value: string; estimated?: true };
  current: { date: string; value: string; estimated?: true };
  /** Either reading was an estimate. */
  estimated: boolean;
  kind: Exclude<ConsumptionKind, 'negative'>;
  /** A demand register read more than once in the period: the reading billed, higher than `current` (meterReadings.ts). */
  highest?: { date: string; value: string; estimated?: true };
  rolloverAt?: string;
  consumption: string;
  /** A meter whose consumption is converted before it is priced: what was billed (not on a bill rated in segments: each segment's consumption says its own). */
  conversion?: ConversionTrace;
};

/** consumption x factor, rounded to decimals by rounding: `quantity` in `unit` is what the lines price. */
export type ConversionTrace = {
  factor: string;
  unit: string;
  decimals: number;
  rounding: 'halfUp' | 'down' | 'up';
  quantity: string;
  /**
   * In a later segment of a bill spanning a version change, where it changed the quantity: the
   * bill's earlier parts converted (exact) and billed. The quantity is then rounded on the
   * running total, round(exact before + this part x factor) - billed before, so the parts add up
   * to the bill's consumption converted once (36.5 + 36.5 ccf at a factor of 1 billed 74).
   */
  earlier?: { exact: string; billed: string };
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
  /**
   * In a segment of a bill spanning a version change, a component not prorated by the
   * term is still shared by days: factor is the segment's billed days over the bill's
   * ('billedDays', termDays then holds the bill's billed days).
   */
  basis?: 'billedDays';
};

/** The segment of a bill a line was rated in, when the term spans a version change. */
export type SegmentTrace = {
  /** The template version in force over the segment. */
  version: number;
  start: string;
  end: string;
  /** Billed days of the segment (suspended days not counted). */
  days: number;
  suspendedDays?: number;
  /** The line's metered input: its part of the consumption and how it was split. */
  consumption?: {
    input: string;
    quantity: string;
    /** 'whole': a level priced by the day (perUnitPerDay) takes the whole demand in every segment. */
    by: 'days' | 'readings' | 'whole';
    from?: { date: string; value: string };
    to?: { date: string; value: string };
    /** The segment's part converted by its version's factor (a meter with a conversion). */
    conversion?: ConversionTrace;
  };
};

/**
 * On a Prepaid template's bill (prepaid.ts): which period the line covers and how.
 * 'arrears': the term's consumption (and what is computed from it); 'catchUp': fixed and
 * unmetered charges for the term's days not billed in advance (a subscription started
 * inside the term); 'advance': fixed and unmetered charges for the coming period;
 * 'credit': the unused days of a period billed in advance, given back.
 */
export type PrepaidTrace = {
  basis: 'arrears' | 'catchUp' | 'advance' | 'credit';
  /** The days the line covers, both included (a credit: its first and last unused day). */
  start: string;
  end: string;
  /** Days billed (a credit: the unused days). */
  days: number;
  /** A credit: the unused days as periods. */
  unused?: SuspendedPeriod[];
  /** A credit: the advance line it gives back, the bill that billed it and the days it paid for. */
  advance?: { billNumber: string; start: string; end: string; days: number; amount: string };
};

export type LimitTrace = {
  minimum?: string;
  maximum?: string;
  applied: 'minimum' | 'maximum';
  /** The amount before the limit. */
  before: string;
  /**
   * In a bill spanning a version change, the limit above is the bill's: each version's
   * limit for its segment's share of the days (limit x days / of: the bill's billed days,
   * or the term's days for a prorated component), summed; the component's lines in earlier
   * segments (`earlier`, their rounded sum) count towards it, so this line is held to the
   * limit less them.
   */
  bill?: { parts: { version: number; limit: string; days: number; of: number }[]; earlier: string };
};

/**
 * A component priced on a share of its meter's consumption (inputShare): of the consumption
 * billed, the percentage, the share, the maximum (a segment's part of it) and the quantity priced.
 */
export type ShareTrace = { of: string; percentage: string; share: string; maximum?: string; quantity: string };

/**
 * A quantity held against a level of the subscription (levelBound.ts): a floor or an excess,
 * the unmetered input and its value, the percentage, the threshold (a segment's share of it
 * when the quantity is a segment's part), the quantity before and the quantity priced.
 */
/**
 * A demand ratchet (levelBound.ts): the months looked back over, the percentage, the highest
 * demand read in them (null: none), the threshold (a segment's share of it when the quantity
 * is a segment's part), the quantity before and the quantity priced.
 */
/** A segment's share of a bill's threshold (levelBound.ts): by its part of the quantity, or by billed days when nothing was measured. */
export type ThresholdShare = { by: 'quantity' | 'days'; part: string; of: string };

export type RatchetTrace = {
  months: number;
  percentage: string;
  highest: { date: string; value: string; estimated?: true } | null;
  threshold: string;
  of: string;
  quantity: string;
  /** In a segment: the bill's threshold, of which `threshold` is this part's share. */
  whole?: string;
  share?: ThresholdShare;
};

export type BoundTrace = {
  kind: 'floor' | 'excessOver';
  input: string;
  level: string;
  percentage: string;
  threshold: string;
  of: string;
  quantity: string;
  /** In a segment: the bill's threshold, of which `threshold` is this part's share. */
  whole?: string;
  share?: ThresholdShare;
};

export type LineTrace = ModelTrace & {
  reading?: ReadingTrace;
  /** The share of the reading's consumption the line prices (inputShare). */
  share?: ShareTrace;
  /** The quantity held up by the demand read in the months before (a ratchet), before any floor. */
  ratchet?: RatchetTrace;
  /** The quantity held against a level of the subscription (floor, excessOver). */
  bound?: BoundTrace;
  input?: InputTrace;
  proration?: ProrationTrace;
  limit?: LimitTrace;
  segment?: SegmentTrace;
  prepaid?: PrepaidTrace;
  /** The amount before rounding to the currency's minor unit. */
  unrounded: string;
  /**
   * In a segment of a bill spanning a version change: the component's lines in the earlier
   * segments, unrounded and as rounded. The line is round(carried.unrounded + unrounded) less
   * carried.rounded, so the component's lines add up to its amount over the bill rounded once.
   * Present only where that differs from the line rounded alone.
   */
  carried?: { unrounded: string; rounded: string };
  rounding: RoundingMode;
};

/** What a charge model answers: the unrounded amount, the rate shown on the line, and its trace. */
export type ModelResult<T extends { model: string } = ModelTrace> = {
  amount: Dec;
  rate?: Dec;
  /** Overrides the line quantity (a percentage line shows its base). */
  quantity?: Dec;
  trace: T;
};
