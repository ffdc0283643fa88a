// One error type for the whole service. Domain code throws an AppError with a stable
// code; only mapError (below) knows HTTP statuses, so an operation called from a job
// and from a route fails the same way.

export type ErrorDetail = { path: string; message: string };

export const ERROR_STATUS = Object.freeze({
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNSUPPORTED_API_VERSION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const);

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
  get statusCode(): number {
    return ERROR_STATUS[this.code];
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

// Errors the database raises when it is down or restarting: the client should retry.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/.test(msg);
}
