// The one mapper from errors to HTTP answers. Domain code throws an AppError
// (src/errors.ts) that carries a code only; here each code gets its status and headers,
// and anything else thrown while answering (Fastify's own errors, Node's HTTP parser,
// the rating core, a database that went away) becomes an AppError first, so every
// answer of a business route is the envelope and every sandbox answer is { code, message }.
import { AppError, fromRatingError, isDatabaseUnavailable, type ErrorCode, type ErrorDetail } from '../errors.ts';
import { RatingError } from '../rating/errors.ts';
import { AMOUNT_PATTERN, CODE_PATTERN, DECIMAL_PATTERN, IDENTIFIER_MESSAGE, IDENTIFIER_PATTERN, LOCAL_TIME_PATTERN, LOCAL_TIME_SPACE_PATTERN, NO_NUL, NOT_BLANK, SANDBOX_LIMIT_PATTERN, VISIBLE_LINE, VISIBLE_LINE_MESSAGE, VISIBLE_TEXT, VISIBLE_TEXT_MESSAGE } from '../primitives.ts';
import { CHARGE_MODELS } from '../rating/models/registry.ts';
import { DMY_PATTERN, RECORD_DATE_MESSAGE, RECORD_DATE_PATTERN } from '../calendar/calendar.ts';
import { EMAIL, NAME, NAME_MESSAGE, PHONE, PHONE_MESSAGE } from '../accounts/rules.ts';
import { DECIMAL_STRING_PATTERN } from '../rating/fields.ts';
import { CURRENCY_PATTERN, USER_EMAIL_PATTERN } from '../admin/appRules.ts';
import { SOURCE } from '../readings/rules.ts';

// A pattern in words: the identifier rule spelled out as a regex holds invisible
// characters, and "must match pattern ..." showed them to a person as a blank.
// The values a discriminated union's tag may take, for the error that names them.
const DISCRIMINATOR_VALUES: Record<string, readonly string[]> = { model: CHARGE_MODELS };

/** Each pattern of a request's fields in words (a test holds that every pattern of the OpenAPI document's requests has them). */
export const PATTERN_WORDS: Record<string, string> = {
  [IDENTIFIER_PATTERN]: IDENTIFIER_MESSAGE,
  [CODE_PATTERN]: 'must be letters, digits, _ . - (starting with a letter or digit)',
  [DMY_PATTERN]: 'must be a date, dd/mm/yyyy',
  [RECORD_DATE_PATTERN]: RECORD_DATE_MESSAGE,
  // A billing officer read `must match pattern "^[0-9]{1,15}(\.[0-9]{1,4})?$"` under an
  // amount typed as 1,000.50 in the console: each rule in words.
  [DECIMAL_PATTERN]: 'must be a number written with digits and an optional decimal point, such as 1250.5 (no sign, spaces or thousands separators)',
  [AMOUNT_PATTERN]: 'must be an amount such as 1250.50: up to 15 digits, a point and up to 4 decimals, no sign, spaces or thousands separators',
  [LOCAL_TIME_PATTERN]: 'must be a date and time, YYYY-MM-DDThh:mm:ss',
  [LOCAL_TIME_SPACE_PATTERN]: 'must be a date and time, YYYY-MM-DD hh:mm:ss (or with a T)',
  [NO_NUL]: 'holds a NUL character (\\u0000), which text cannot hold',
  [VISIBLE_TEXT]: VISIBLE_TEXT_MESSAGE,
  [VISIBLE_LINE]: VISIBLE_LINE_MESSAGE,
  [SANDBOX_LIMIT_PATTERN]: 'must be a whole number from 1 to 100',
  [PHONE.pattern]: PHONE_MESSAGE,
  [NAME.pattern]: NAME_MESSAGE,
  [DECIMAL_STRING_PATTERN]: 'must be a number written with digits, an optional minus sign and decimal point, such as 1234.5 (no spaces or thousands separators)',
  [EMAIL.pattern]: 'must be an e-mail address, such as name@example.com',
  [USER_EMAIL_PATTERN]: 'must be an e-mail address, such as name@example.com',
  [SOURCE.pattern]: 'must start with a letter or digit, then letters, digits, spaces and _ . : / -',
  [CURRENCY_PATTERN]: 'must be three capital letters, an ISO 4217 code such as USD',
  [NOT_BLANK]: 'must hold something besides spaces',
};

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  MALFORMED_REQUEST: 400,
  UNSUPPORTED_API_VERSION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
});

/** Seconds to wait before a retry when the error does not say: the database is usually back by then. */
const UNAVAILABLE_RETRY_SECONDS = 5;

export const statusOf = (err: AppError): number => ERROR_STATUS[err.code];

export function headersOf(err: AppError): Record<string, string> {
  const wait = err.retryAfterSeconds ?? (err.code === 'UNAVAILABLE' ? UNAVAILABLE_RETRY_SECONDS : undefined);
  return wait === undefined ? {} : { 'Retry-After': String(wait) };
}

export type FailureBody = {
  success: false;
  statusCode: number;
  message: string;
  error: { code: string; details?: ErrorDetail[] };
  data: null;
};

/**
 * The most details an answer lists; the message says how many there were. A fuzzer's
 * 100,000 bad items in one array came back as 100,002 details: a 43.6 MB answer that took
 * 2.7 s and left the server 1.5 GB larger.
 */
export const MAX_DETAILS = 100;

export function failure(err: AppError): FailureBody {
  const details = err.details ?? [];
  const more = details.length - MAX_DETAILS;
  return {
    success: false,
    statusCode: statusOf(err),
    message: more > 0 ? `${err.message} (the first ${MAX_DETAILS} of ${details.length > 10 * MAX_DETAILS ? `more than ${10 * MAX_DETAILS}` : details.length} problems are listed)` : err.message,
    error: details.length > 0 ? { code: err.code, details: more > 0 ? details.slice(0, MAX_DETAILS) : details } : { code: err.code },
    data: null,
  };
}

/** The sandbox answers outside the envelope, by its path; everything else is a business route. */
export const isSandboxUrl = (url: string | undefined) => url !== undefined && (url === '/sandbox' || url.startsWith('/sandbox/') || url.startsWith('/sandbox?'));

/** The body of an error answer in the shape of the route's family. */
export function errorBody(err: AppError, url: string | undefined): FailureBody | { code: string; message: string } {
  if (!isSandboxUrl(url)) return failure(err);
  // The sandbox's { code, message } has no details: the bad fields go into the message.
  const fields = (err.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
  return { code: err.code, message: fields ? `${err.message} ${fields}` : err.message };
}

/** A field's path as the client wrote the body: data.rows[2].name. */
export function fieldPath(segments: readonly (string | number)[], root = ''): string {
  let path = root;
  for (const s of segments) path += typeof s === 'number' ? `[${s}]` : path === '' ? s : `.${s}`;
  return path || 'body';
}

type ValidationError = { instancePath: string; schemaPath?: string; keyword: string; params: Record<string, unknown>; message?: string };

type FastifyLikeError = {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: ValidationError[];
  validationContext?: string;
  rawPacket?: Buffer;
};

/** Turns anything thrown while answering into an AppError; unknown crashes become INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof RatingError) return fromRatingError(err);
  const e = (err ?? {}) as FastifyLikeError;
  if (e.validation) {
    return new AppError('VALIDATION_FAILED', 'The request is not valid.', validationDetails(e.validation, e.validationContext));
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', [{ path: 'Content-Type', message: 'must be application/json' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than this service accepts.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return emptyBody();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('MALFORMED_JSON', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('MALFORMED_REQUEST', 'The path of the request is not a valid URL.', [{ path: 'url', message: 'is not valid percent-encoding' }]);
    // Node's HTTP parser refused the request before any route could run (clientError).
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', 'The request headers are larger than this service accepts.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time.');
  }
  if (typeof e.code === 'string' && e.code.startsWith('HPE_')) {
    return new AppError('MALFORMED_REQUEST', 'The request is not valid HTTP.', badHeaderDetails(Buffer.isBuffer(e.rawPacket) ? e.rawPacket : undefined));
  }
  if (err instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('MALFORMED_JSON', 'The body is not valid JSON.', [{ path: 'body', message: 'is not valid JSON' }]);
  }
  // numeric_value_out_of_range: a sum past its column (an account's balance is
  // numeric(20,4)); twelve payments of 999,999,999,999,999.99 were a 500 on the eleventh,
  // and one such account a 500 on posting its whole term. The transaction rolled back.
  if (e.code === '22003') {
    return new AppError('VALIDATION_FAILED', 'A number is past what billrun keeps (a balance or total past 16 digits before the decimal point); nothing was written.', [
      { path: 'data', message: 'makes a number past what billrun keeps, such as a balance past 9999999999999999.9999' },
    ]);
  }
  // deadlock_detected, serialization_failure: two requests wrote the same rows at once and
  // PostgreSQL refused one; its transaction rolled back whole, so the client retries it. They
  // were 500s (an attacker's concurrent payments on one account); the locks that made them
  // are fixed where they were found (settlement/store.ts lockAccounts), this is the net.
  if (e.code === '40P01' || e.code === '40001') {
    return new AppError('CONFLICT', 'Another request was writing the same records at the same time; nothing of this one was written. Send it again.', [
      { path: 'data', message: 'was written by another request at the same time; send it again' },
    ]);
  }
  // The client went away while sending its body (Node's 'aborted', which Fastify marks 400):
  // its ECONNRESET read as the database's, a 503 logged as an error with its stack (an
  // outside check). Nobody hears this answer; the log says what happened, at info.
  if (e.code === 'ECONNRESET' && e.statusCode === 400) {
    return new AppError('MALFORMED_REQUEST', 'The connection closed before the body had arrived.', [{ path: 'body', message: 'ended before Content-Length was reached' }]);
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError('UNAVAILABLE', 'The database is not reachable; try again shortly.');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === e.statusCode)?.[0] ?? 'VALIDATION_FAILED') as ErrorCode;
    return new AppError(code, e.message ?? 'The request is not valid.');
  }
  return new AppError('INTERNAL', 'Something went wrong on our side; it has been logged.');
}

export const emptyBody = () => new AppError('MALFORMED_JSON', 'The body is empty; send a JSON object.', [{ path: 'body', message: 'is empty' }]);

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Names the header the parser choked on, from the bytes it kept: a client can then fix that one. */
function badHeaderDetails(raw: Buffer | undefined): ErrorDetail[] {
  const lines = (raw?.toString('latin1') ?? '').split('\r\n');
  for (const line of lines.slice(1)) {
    if (line === '') break;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : line;
    if (colon <= 0 || !HEADER_NAME.test(name)) return [{ path: name.slice(0, 64), message: 'is not a valid header name' }];
    if (CONTROL.test(line.slice(colon + 1))) return [{ path: name, message: 'holds a control character' }];
  }
  return [{ path: 'request', message: 'is not valid HTTP/1.1' }];
}

/**
 * A value that may take one of several shapes (anyOf: an amount as text or a number, a late
 * charge or null) failed all of them, and ajv says so for each: "-5" for an amount was three
 * details, of which two ("must be number", "must match a schema in anyOf") told the client
 * nothing. When the value has the type of some branch, that branch's errors say what is
 * wrong: the other branches' type errors and the summary go. When it has none of the
 * types, one detail names them all ("must be string or number"); a value none of a choice
 * of words gets one detail naming the words ("must be one of "term", "readingPeriod"").
 */
function plainAnyOf(errors: readonly ValidationError[]): ValidationError[] {
  const dropped = new Set<ValidationError>();
  const added: ValidationError[] = [];
  for (const a of errors) {
    if (a.keyword !== 'anyOf' || a.schemaPath === undefined) continue;
    const prefix = `${a.schemaPath}/`;
    const branches = errors.filter((e) => e.schemaPath?.startsWith(prefix));
    // A choice of words (a union of literals, as tierProration.period): one detail naming them.
    const constMisses = branches.filter((e) => e.keyword === 'const' && e.instancePath === a.instancePath && e.schemaPath!.slice(prefix.length).split('/').length === 2);
    if (constMisses.length > 0 && constMisses.length === branches.length) {
      dropped.add(a);
      for (const c of constMisses) dropped.add(c);
      added.push({ instancePath: a.instancePath, keyword: 'enum', params: { allowedValues: constMisses.map((c) => c.params.allowedValue) } });
      continue;
    }
    const typeMisses = branches.filter((e) => e.keyword === 'type' && e.instancePath === a.instancePath && e.schemaPath!.slice(prefix.length).split('/').length === 2);
    const explained = branches.filter((e) => !typeMisses.includes(e));
    if (typeMisses.length === 0) continue;
    dropped.add(a);
    for (const t of typeMisses) dropped.add(t);
    if (explained.length === 0) {
      const types = typeMisses.flatMap((t) => t.params.type).filter((t): t is string => typeof t === 'string');
      added.push({ instancePath: a.instancePath, keyword: 'type', params: {}, message: `must be ${[...new Set(types)].join(' or ')}` });
    }
  }
  return dropped.size === 0 ? [...errors] : [...errors.filter((e) => !dropped.has(e)), ...added];
}

function validationDetails(all: NonNullable<FastifyLikeError['validation']>, context: string | undefined): ErrorDetail[] {
  const root = context === 'body' || context === undefined ? '' : context;
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const errors = plainAnyOf(all);
  for (const v of errors) {
    // failure() lists MAX_DETAILS: past a few times that, the count is all the client gets.
    if (details.length > 10 * MAX_DETAILS) break;
    // An all-digit segment of the instance path is an array index; a property name
    // reported by `required` or `additionalProperties` is a name even when it is "0".
    const segments: (string | number)[] = v.instancePath
      .split('/')
      .filter(Boolean)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((name) => (/^\d+$/.test(name) ? Number(name) : name));
    let message = v.message ?? 'is not valid';
    if (v.keyword === 'required' && typeof v.params.missingProperty === 'string') {
      segments.push(v.params.missingProperty);
      message = 'is required';
    } else if (v.keyword === 'additionalProperties' && typeof v.params.additionalProperty === 'string') {
      segments.push(v.params.additionalProperty);
      message = 'is not a known field';
    } else if (v.keyword === 'discriminator' && typeof v.params.tag === 'string') {
      // A union told apart by one field (a component's `model`): the tag is missing or
      // names no member; the members' own errors are never reached.
      segments.push(v.params.tag);
      const allowed = DISCRIMINATOR_VALUES[v.params.tag];
      message = v.params.error === 'mapping' && allowed ? `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : 'is required';
    } else if (v.keyword === 'pattern' && typeof v.params.pattern === 'string' && PATTERN_WORDS[v.params.pattern]) {
      message = PATTERN_WORDS[v.params.pattern]!;
    } else if (['minLength', 'maxLength', 'minItems', 'maxItems'].includes(v.keyword) && typeof v.params.limit === 'number') {
      // ajv's "must NOT have fewer than 1 characters", in plain words.
      const n = v.params.limit;
      const what = v.keyword.endsWith('Items') ? (n === 1 ? 'item' : 'items') : n === 1 ? 'character' : 'characters';
      const most = v.keyword.startsWith('min') ? 'at least' : 'at most';
      message = v.keyword === 'minLength' && n === 1 ? 'must not be empty' : v.keyword.endsWith('Items') ? `must have ${most} ${n} ${what}` : `must be ${most} ${n} ${what}`;
    } else if (v.keyword === 'const' || v.keyword === 'enum') {
      const allowed = (v.params.allowedValue ?? v.params.allowedValues) as unknown;
      message = `must be ${Array.isArray(allowed) ? 'one of ' + allowed.map((a) => JSON.stringify(a)).join(', ') : JSON.stringify(allowed)}`;
    }
    const path = fieldPath(segments, root);
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ path, message });
  }
  return details;
}
