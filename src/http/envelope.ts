// The common response envelope of interface.md, and its failure form from product.md.
import { Type, type TSchema } from 'typebox';
import { AppError, ERROR_STATUS, isDatabaseUnavailable, type ErrorDetail } from './errors.ts';

export const SUCCESS_MESSAGE = 'Request succeeded.';

export function ok<T>(data: T, message = SUCCESS_MESSAGE) {
  return { success: true as const, statusCode: 200 as const, message, error: null, data };
}

export type FailureBody = {
  success: false;
  statusCode: number;
  message: string;
  error: { code: string; details?: ErrorDetail[] };
  data: null;
};

export function failure(err: AppError): FailureBody {
  return {
    success: false,
    statusCode: err.statusCode,
    message: err.message,
    error: err.details && err.details.length > 0 ? { code: err.code, details: err.details } : { code: err.code },
    data: null,
  };
}

export const ErrorDetailSchema = Type.Object({ path: Type.String(), message: Type.String() });

export const FailureSchema = Type.Object(
  {
    success: Type.Literal(false),
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.Object({ code: Type.String(), details: Type.Optional(Type.Array(ErrorDetailSchema)) }),
    data: Type.Null(),
  },
  { $id: 'Failure', description: 'Every failure of a business route.' },
);

export function successSchema(data: TSchema) {
  return Type.Object({
    success: Type.Literal(true),
    statusCode: Type.Literal(200),
    message: Type.String(),
    error: Type.Null(),
    data,
  });
}

type FastifyLikeError = {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[];
  validationContext?: string;
};

/** Turns anything thrown while answering into an AppError; unknown crashes become INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
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
      return new AppError('MALFORMED_JSON', 'The body is empty; send a JSON object.', [{ path: 'body', message: 'is empty' }]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('MALFORMED_JSON', 'Content-Length does not match the body.');
  }
  if (err instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('MALFORMED_JSON', 'The body is not valid JSON.', [{ path: 'body', message: 'is not valid JSON' }]);
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError('UNAVAILABLE', 'The database is not reachable; try again shortly.', undefined, { 'Retry-After': '5' });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === e.statusCode)?.[0] ?? 'VALIDATION_FAILED') as keyof typeof ERROR_STATUS;
    return new AppError(code, e.message ?? 'The request is not valid.');
  }
  return new AppError('INTERNAL', 'Something went wrong on our side; it has been logged.');
}

function validationDetails(
  errors: NonNullable<FastifyLikeError['validation']>,
  context: string | undefined,
): ErrorDetail[] {
  const root = context === 'body' || context === undefined ? '' : context;
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const v of errors) {
    // An all-digit segment of the instance path is an array index; a property name
    // reported by `required` or `additionalProperties` is a name even when it is "0".
    const segments: { name: string; index: boolean }[] = v.instancePath
      .split('/')
      .filter(Boolean)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((name) => ({ name, index: /^\d+$/.test(name) }));
    let message = v.message ?? 'is not valid';
    if (v.keyword === 'required' && typeof v.params.missingProperty === 'string') {
      segments.push({ name: v.params.missingProperty, index: false });
      message = 'is required';
    } else if (v.keyword === 'additionalProperties' && typeof v.params.additionalProperty === 'string') {
      segments.push({ name: v.params.additionalProperty, index: false });
      message = 'is not a known field';
    } else if (v.keyword === 'const' || v.keyword === 'enum') {
      const allowed = (v.params.allowedValue ?? v.params.allowedValues) as unknown;
      message = `must be ${Array.isArray(allowed) ? 'one of ' + allowed.map((a) => JSON.stringify(a)).join(', ') : JSON.stringify(allowed)}`;
    }
    let path = root;
    for (const s of segments) path += s.index ? `[${s.name}]` : path === '' ? s.name : `.${s.name}`;
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ path: path || 'body', message });
  }
  return details;
}
