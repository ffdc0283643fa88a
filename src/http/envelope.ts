// The common response envelope of interface.md, and the schema of its failure form from
// product.md (the failure body itself is built by the error mapper, errors.ts).
import { Type, type TSchema } from 'typebox';

export const SUCCESS_MESSAGE = 'Request succeeded.';

export function ok<T>(data: T, message = SUCCESS_MESSAGE) {
  return { success: true as const, statusCode: 200 as const, message, error: null, data };
}

export const ErrorDetailSchema = Type.Object({ path: Type.String(), message: Type.String() }, { title: 'ErrorDetail' });

export const FailureSchema = Type.Object(
  {
    success: Type.Literal(false),
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.Object({ code: Type.String(), details: Type.Optional(Type.Array(ErrorDetailSchema)) }),
    data: Type.Null(),
  },
  { $id: 'Failure', title: 'Failure', description: 'Every failure of a business route.' },
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
