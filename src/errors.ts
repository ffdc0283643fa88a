// One error type for the whole service. Domain code throws an AppError with a stable
// code, a message for humans and the failing fields; it knows nothing of HTTP, so an
// operation called from a job, the command line and a route fails the same way. The
// HTTP status and headers of each code are decided in one place: src/http/errors.ts.
import type { RatingError } from './rating/errors.ts';

export type ErrorDetail = { path: string; message: string };

export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'MALFORMED_REQUEST',
  'UNSUPPORTED_API_VERSION',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'INVALID_STATE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** RATE_LIMITED and UNAVAILABLE: when a retry may succeed (the HTTP mapper writes Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], retryAfterSeconds?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const validationFailed = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError('VALIDATION_FAILED', message, details);

export const notFound = (what: string, path?: string) =>
  new AppError('NOT_FOUND', `${what} was not found.`, path ? [{ path, message: `no ${what} with this value` }] : undefined);

export const invalidState = (message: string, path = 'data.termID') =>
  new AppError('INVALID_STATE', message, [{ path, message }]);

export const conflict = (message: string, path?: string) =>
  new AppError('CONFLICT', message, path ? [{ path, message }] : undefined);

/**
 * The one conversion of the rating core's error: what it refuses is a value the caller
 * gave (a date, a tariff, a reading), so it is VALIDATION_FAILED with the core's fields.
 */
export function fromRatingError(err: RatingError): AppError {
  return validationFailed(err.details && err.details.length > 0 ? err.details : [{ path: 'body', message: err.message }], err.message);
}

// Errors the database raises when it is down or restarting: the caller should retry.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/.test(msg);
}
