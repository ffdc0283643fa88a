import { Type, type Static } from 'typebox';
import { Code } from '../primitives.ts';
import { named } from '../http/openapi.ts';

export const BatchCode = Code;

export const BatchRecord = named('Batch', Type.Object({
  batchID: Type.Integer(),
  appCode: Type.Integer(),
  batchCode: Type.String(),
  label: Type.String(),
  serviceCodes: Type.Array(Type.String(), { description: 'templates billed in this batch' }),
  subscriptionCount: Type.Integer({ description: 'subscriptions in the batch that are not terminated' }),
  createdAt: Type.String({ description: 'YYYY-MM-DD HH:MM:SS in the app time zone' }),
  createdBy: Type.String(),
}));
export type BatchRecord = Static<typeof BatchRecord>;
