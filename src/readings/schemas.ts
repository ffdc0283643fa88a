import { Type, type Static } from 'typebox';
import { Code, Id, NO_NUL } from '../primitives.ts';
import { DecimalValue } from '../rating/tariff.ts';
import { RecordDateText } from '../calendar/calendar.ts';
import { NOTE_MAX, READING_KINDS, SOURCE } from './rules.ts';
import { named } from '../http/openapi.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
export const ReadingKind = Type.Enum(READING_KINDS);
export const Source = Type.String({ minLength: 1, ...SOURCE, description: 'where the reading came from, e.g. api, handheld, import' });
export const Note = Type.String({ maxLength: NOTE_MAX, pattern: NO_NUL });

export const ReadingInput = Type.Object(
  {
    subscriptionID: Id,
    inputCode: Code,
    readingDate: RecordDateText,
    value: DecimalValue,
    kind: Type.Optional(ReadingKind),
    source: Type.Optional(Source),
    note: Type.Optional(Note),
  },
  { additionalProperties: false },
);

export const ReadingRecord = named('Reading', Type.Object({
  readingID: Type.Integer(),
  subscriptionID: Type.Integer(),
  inputCode: Type.String(),
  readingDate: Type.String(),
  value: Type.String(),
  kind: ReadingKind,
  source: Type.String(),
  note: Nullable(Type.String()),
  correctsReadingID: Nullable(Type.Integer()),
  correctedByReadingID: Nullable(Type.Integer()),
  effective: Type.Boolean({ description: 'false when another reading corrects this one' }),
  consumption: Nullable(Type.String({ description: 'units since the effective reading before (a demand register: the reading itself, its period\'s demand); null for the first and for corrected readings' })),
  consumptionKind: Nullable(Type.String({ description: 'first, normal, rollover or negative; maximum on a demand register; null for corrected readings' })),
  createdAt: Type.String(),
  createdBy: Type.String(),
}));
export type ReadingRecord = Static<typeof ReadingRecord>;
