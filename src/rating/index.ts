/**
 * The rating core: pure functions from a tariff and a subscription's period
 * data to a rated bill. No I/O, no clock, no database.
 */
export * from './tariff.ts';
export { RatingError, RATING_ERROR_CODES, type RatingErrorCode, type RatingErrorDetail } from './errors.ts';
export { Dec, toDecimal, roundMoney, formatMoney, ROUNDING_MODES, type RoundingMode } from './money.ts';
export { dayNumber, daysInclusive } from './days.ts';
export { consumptionBetween, type Consumption, type ConsumptionKind } from './consumption.ts';
export { prepareTariff, type PreparedTariff, type PreparedComponent } from './prepareTariff.ts';
export { rateLine, type RatedLine } from './rateLine.ts';
export { rateBill, type RateBillInput, type RatedBill, type MeterReadings, type ReadingPoint } from './rateBill.ts';
export type * from './trace.ts';
