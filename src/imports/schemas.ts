import { Type, type Static } from 'typebox';
import { IMPORT_KINDS, IMPORT_STATUSES } from './store.ts';
import { named } from '../http/openapi.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
export const ImportKind = Type.Enum(IMPORT_KINDS, { description: 'accounts (each optionally with one subscription and its opening readings), subscriptions (of existing accounts), readings (of existing subscriptions)' });

export const RowErrorRecord = named('RowError', Type.Object({
  row: Type.Integer({ description: 'CSV: the record number, the header being row 1; JSON: index + 1' }),
  column: Type.String({ description: 'the column (CSV) or field (JSON), empty when the whole row is wrong' }),
  path: Type.String(),
  message: Type.String(),
}));

export const ImportRecord = named('Import', Type.Object({
  importID: Type.Integer(),
  appCode: Type.Integer(),
  kind: Type.Enum(IMPORT_KINDS),
  format: Type.String({ description: 'csv or json' }),
  fileName: Nullable(Type.String()),
  dryRun: Type.Boolean(),
  status: Type.Enum(IMPORT_STATUSES, { description: 'running; succeeded (committed); failed (nothing written); validated (dry run, every row good, nothing written)' }),
  rowsRead: Type.Integer(),
  bytesRead: Type.Integer(),
  bytesTotal: Nullable(Type.Integer()),
  percent: Nullable(Type.Integer({ description: 'bytesRead of bytesTotal, when the size is known' })),
  accountsWritten: Type.Integer({ description: 'while running: written in the import\'s transaction, visible to others only once it succeeds' }),
  subscriptionsWritten: Type.Integer(),
  readingsWritten: Type.Integer(),
  errorCount: Type.Integer(),
  errors: Type.Array(RowErrorRecord, { description: `the first ${100} bad rows` }),
  message: Nullable(Type.String()),
  startedAt: Type.String(),
  updatedAt: Type.String(),
  finishedAt: Nullable(Type.String()),
  createdBy: Type.String(),
}));
export type ImportRecord = Static<typeof ImportRecord>;
