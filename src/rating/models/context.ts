import type { Dec } from '../money.ts';

/** What a charge model may know besides its component and quantity. */
export type ModelContext = {
  /** Days of the term the subscription is active. */
  activeDays: number;
  /** Days of the term, both ends included. */
  termDays: number;
  /** Decimals of the currency's minor unit, for showing rounded amounts. */
  minorUnits: number;
  /** Rounded amounts of the lines already rated, by component index (for percentage). */
  amounts: readonly (Dec | undefined)[];
};
