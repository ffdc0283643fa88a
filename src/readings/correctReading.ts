import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { AppError, invalidState, notFound, type ErrorDetail } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import { checkReadingDate, lockMeterSubscriptions, metersOf } from './captureReadings.ts';
import { checkReadingValue, fitReadings, type ChainResult } from './rules.ts';
import { effectiveReadings, insertReadings, lockReading } from './store.ts';

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
    const subs = await lockMeterSubscriptions(tx, caller.appCode, [original.subscription_id]);
    const s = subs.get(original.subscription_id)!;
    const meter = (await metersOf(tx, caller.appCode, [s.service_id])).get(s.service_id)?.get(original.input_code);
    if (!meter) {
      throw invalidState(`Meter ${original.input_code} is no longer a metered input of the subscription's template.`, 'data.readingID');
    }
    const issues: ErrorDetail[] = [];
    const date = c.readingDate === undefined ? original.reading_date : checkReadingDate(s, c.readingDate, 'data.readingDate', issues);
    const value = checkReadingValue(meter, c.value, 'data.value', issues);
    if (date === null || value === null) throw new AppError('VALIDATION_FAILED', 'The correction is not valid.', issues);
    const others = (await effectiveReadings(tx, [s.subscription_id]))
      .filter((r) => r.input_code === meter.code && r.reading_id !== original.reading_id)
      .map((r) => ({ readingId: r.reading_id, date: r.reading_date, value: r.value }));
    const [result] = fitReadings(meter, others, [{ date, value, path: 'data.value' }], issues);
    if (issues.length > 0) throw new AppError('VALIDATION_FAILED', 'The correction is not valid.', issues);
    const [id] = await insertReadings(
      tx,
      caller.appCode,
      [
        {
          subscriptionId: s.subscription_id,
          inputCode: meter.code,
          date,
          value,
          kind: c.kind ?? original.kind,
          source: c.source ?? 'correction',
          note: c.note ?? null,
          corrects: original.reading_id,
        },
      ],
      caller.email,
    );
    return { id: id!, result: result! };
  });
}
