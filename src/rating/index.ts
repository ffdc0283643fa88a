/**
 * The rating core: pure functions from a tariff and a subscription's period
 * data to a rated bill. No I/O, no clock, no database.
 */
export * from './tariff.ts';
export { attempt, RatingError, RATING_ERROR_CODES, type RatingErrorCode, type RatingErrorDetail } from './errors.ts';
export { Dec, toDecimal, roundMoney, formatMoney, ROUNDING_MODES, type RoundingMode } from './money.ts';
export { dayNumber, daysInclusive } from './days.ts';
export { consumptionBetween, type Consumption, type ConsumptionKind } from './consumption.ts';
export { CHARGE_MODELS, chargeModel, explainModel } from './models/registry.ts';
export { prepareTariff, type PreparedTariff, type PreparedComponent } from './prepareTariff.ts';
export { rateLine, type RatedLine } from './rateLine.ts';
export { rateBill, type RateBillInput, type RatedBill, type BillSegment, type MeterReadings, type ReadingPoint } from './rateBill.ts';
export { versionTimeline, splitSegments, type DatedVersion, type VersionPiece, type TariffVersion, type Segment, type SegmentConsumption, type SplitInput, type SplitMeter } from './segments.ts';
export type * from './trace.ts';
export { apiDate } from './days.ts';
export { meterConsumption, missingReading, type LastReadingOnly } from './meterReadings.ts';
export { sumBills, totalsText, TOTAL_FIELDS, type BillTotals, type TotalField } from './billTotals.ts';
export { dailyHistory, estimateReading, unusualConsumption, unusualDemand, UNUSUAL_FACTOR, MIN_HISTORY_PERIODS, type HistoryReading, type MeterHistory, type Unusual } from './readingHistory.ts';
export { checkLateCharge, LateChargeRule, prepareLateCharge, rateLateCharge, type LateChargeTrace, type PreparedLateCharge } from './lateCharge.ts';
export { comingPeriod, explainPrepaid, ratePrepaidBill, sectionTariff, type PrepaidAdvance, type PrepaidAdvanceLine, type PrepaidInput, type PrepaidOutcome, type PrepaidRatedBill, type PrepaidUse } from './prepaid.ts';
export { accountBill, type AccountBill, type AccountBillGroup } from './accountBill.ts';
