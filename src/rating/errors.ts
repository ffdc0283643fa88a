/**
 * The one error the rating core throws. It carries a stable code, never an
 * HTTP status: the HTTP layer and the bill-run job decide what a code means
 * to them (a 400 for a preview, a recorded per-subscription failure in a run).
 */
export const RATING_ERROR_CODES = [
  'INVALID_TARIFF', // checkTariff found issues; details lists them
  'INVALID_NUMBER', // a decimal that is not a plain finite number
  'INVALID_DATE', // not a real 'YYYY-MM-DD' calendar date
  'INVALID_PERIOD', // term end before start, subscription end before start
  'NOT_ACTIVE', // the subscription has no day inside the term
  'MISSING_READING', // a component needs a metered input with no readings
  'INVALID_READING', // negative, too many decimals, at/over the roll-over, dates reversed
  'NEGATIVE_CONSUMPTION', // current below previous and not a plausible roll-over
  'MISSING_INPUT', // an unmetered input with no subscription value and no default
  'INVALID_INPUT', // an unmetered quantity that is negative
  'INVALID_BALANCE', // balance brought forward finer than the currency's minor unit
  'INVALID_CURRENCY', // minor units not an integer 0..8, or an unknown rounding mode
  'AMOUNT_TOO_LARGE', // a line or total past the largest amount billrun keeps (money.ts)
] as const;

export type RatingErrorCode = (typeof RATING_ERROR_CODES)[number];

export type RatingErrorDetail = { path: string; message: string };

export class RatingError extends Error {
  readonly code: RatingErrorCode;
  readonly details: RatingErrorDetail[] | undefined;

  constructor(code: RatingErrorCode, message: string, details?: RatingErrorDetail[]) {
    super(message);
    this.name = 'RatingError';
    this.code = code;
    this.details = details;
  }
}

/**
 * The one catch rule for a step of the core: a RatingError is an answer (the value was
 * refused, with its reason); anything else is a fault and stays thrown.
 */
export function attempt<T>(step: () => T): { ok: true; value: T } | { ok: false; error: RatingError } {
  try {
    return { ok: true, value: step() };
  } catch (err) {
    if (err instanceof RatingError) return { ok: false, error: err };
    throw err;
  }
}
