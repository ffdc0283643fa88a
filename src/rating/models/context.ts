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
};
