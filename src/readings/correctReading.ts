import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { AppError, invalidState, notFound, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { metersOf } from './captureReadings.ts';
import type { ChainResult } from './rules.ts';
import { lockReading } from './store.ts';
import { lockSubscriptions, writeReadings } from './write.ts';

export type Correction = { readingID: number; value: string | number; readingDate?: string; kind?: 'actual' | 'estimated'; source?: string; note?: string };

/**
 * Corrects a reading by adding the corrected one beside it: the original is kept, and
 * from now on the correction is the effective reading. Only an effective reading can be
 * corrected (a correction is corrected in turn), and the new value must fit between
 * the readings before and after it.
 */
export async function correctReading(db: pg.Pool, caller: Caller, c: Correction): Promise<{ id: string; result: ChainResult }> {
  return inTransaction(db, async (tx) => {
    const original = await lockReading(tx, caller.appCode, c.readingID);
    if (!original) throw notFound('reading', 'data.readingID');
    if (original.corrected_by !== null) {
      throw invalidState(`Reading ${original.reading_id} was corrected by reading ${original.corrected_by}; correct that one.`, 'data.readingID');
    }
    const subs = await lockSubscriptions(tx, caller.appCode, [original.subscription_id]);
    const s = subs.get(original.subscription_id)!;
    const meter = (await metersOf(tx, caller.appCode, [s.service_id])).get(s.service_id)?.get(original.input_code);
    if (!meter) {
      throw invalidState(`Meter ${original.input_code} is no longer a metered input of the subscription's template.`, 'data.readingID');
    }
    const out = await writeReadings(
      tx,
      caller.appCode,
      caller.email,
      subs,
      [
        {
          subscriptionId: s.subscription_id,
          meter,
          readingDate: c.readingDate ?? original.reading_date,
          value: c.value,
          kind: c.kind ?? original.kind,
          source: c.source ?? 'correction',
          note: c.note ?? null,
          corrects: original.reading_id,
          at: (f) => `data.${f}`,
        },
      ],
      { sameDay: 'refuse', write: 'all-or-none' },
    );
    if (out.issues.length > 0) throw new AppError('VALIDATION_FAILED', 'The correction is not valid.', out.issues.map(({ path, message }) => ({ path, message })));
    return { id: out.ids[0]!, result: out.results[0]! };
  });
}
