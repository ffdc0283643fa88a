import type { Dec, RoundingMode } from '../money.ts';
import type { LineTrace, SuspendedPeriod } from '../trace.ts';
import type { PreparedComponent } from './registry.ts';

/** What a charge model may know besides its component and quantity. */
export type ModelContext = {
  /** Days of the term the subscription is active: connected and not suspended. */
  activeDays: number;
  /** The suspended days taken off activeDays, for the trace; absent when none. */
  suspended?: { days: number; periods: SuspendedPeriod[] };
  /** Days of the term, both ends included. */
  termDays: number;
  /** Decimals of the currency's minor unit, for showing rounded amounts. */
  minorUnits: number;
  /** The app's rounding rule, for a model that rounds inside its line (a graduated line rounding each tier). */
  rounding: RoundingMode;
  /** Rounded amounts of the lines already rated, by component index (for percentage). */
  amounts: readonly (Dec | undefined)[];
  /**
   * Days between the two readings of the component's metered input (tier proration by
   * the reading period); in a segment, its part of them. Absent for other components.
   */
  readingDays?: Dec;
  /** Set when the term spans a version change: the segment this line is rated in (segments.ts). */
  segment?: SegmentContext;
};

/** A segment of a bill rated by one version: activeDays above are the segment's billed days. */
export type SegmentContext = {
  version: number;
  start: string;
  end: string;
  /** Billed days of the whole bill (every segment). */
  billDays: number;
  /**
   * Billed days of the bill's segments before this one: a share of the bill rounded on the
   * running total of days (tier bounds, free units) adds up to the bill's over the segments.
   */
  daysBefore: number;
  /** This segment's position in `segments`. */
  index: number;
  /**
   * Every segment of the bill in date order, this one included: what a rule given once per
   * bill (a commitment, a line's minimum and maximum, a package's started block) reads of
   * the others. Earlier segments are rated in full; later ones not yet.
   */
  segments: readonly SegmentOfBill[];
};

export type SegmentOfBill = {
  version: number;
  start: string;
  /** Billed days; 0 when suspended throughout (it then has no lines). */
  days: number;
  /** Its version's components by code. */
  components: ReadonlyMap<string, PreparedComponent>;
  /** Rounded amounts and traces of its lines by component index, filled as they are rated. */
  amounts: readonly (Dec | undefined)[];
  traces: readonly (LineTrace | undefined)[];
};
