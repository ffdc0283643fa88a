// An exception the run's reading checks or its rating raise against one subscription:
// validate-term and get-terms (terms/schemas.ts) answer with them.
import { Type, type Static } from 'typebox';
import { named } from '../http/openapi.ts';

export const TermException = named('TermFailure', Type.Object({
  subscriptionID: Type.Integer(),
  accountID: Type.Integer(),
  accountNumber: Type.Optional(Type.String({ description: "the account's own number (terms validated before 2026-11-26 have none)" })),
  code: Type.String({ description: 'MISSING_READING, NEGATIVE_CONSUMPTION, UNUSUAL_CONSUMPTION, METER_ROLLED_OVER (a warning: a reading below the previous one billed as a roll-over) or a rating error code' }),
  severity: Type.Enum(['error', 'warning']),
  message: Type.String(),
  path: Type.Optional(Type.String()),
  readingDate: Type.Optional(
    Type.String({
      description:
        "dd/mm/yyyy, on a missing or wrong reading: the day a reading that fixes it is dated (MISSING_READING: the term's end, or the subscription's end inside the term; NEGATIVE_CONSUMPTION: the current reading's day, whose reading a term's capture-readings replaces)",
    }),
  ),
}));
export type TermException = Static<typeof TermException>;
