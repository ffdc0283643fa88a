import type { Dec } from '../money.ts';
import type { SuspendedPeriod } from '../trace.ts';

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
};
