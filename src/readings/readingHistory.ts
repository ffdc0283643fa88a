import type { Queryable } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import { consumptionBetween } from '../rating/consumption.ts';
import { Dec } from '../rating/money.ts';
import { formatDate } from '../calendar/calendar.ts';
import { metersOf } from './captureReadings.ts';
import { rolloverOf } from './rules.ts';
import type { ReadingRecord } from './schemas.ts';
import { readingHistory as historyRows } from './store.ts';

/** A subscription's readings, oldest first per meter, corrected ones beside their corrections, each effective one with its consumption. */
export async function readingHistory(db: Queryable, appCode: number, subscriptionId: number, inputCode?: string): Promise<ReadingRecord[]> {
  const sub = await db.query<{ service_id: string }>('SELECT service_id FROM subscription WHERE app_code = $1 AND subscription_id = $2', [appCode, subscriptionId]);
  if (!sub.rows[0]) throw notFound('subscription', 'data.subscriptionID');
  const meters = (await metersOf(db, appCode, [sub.rows[0].service_id])).get(sub.rows[0].service_id);
  const rows = await historyRows(db, appCode, String(subscriptionId), inputCode);
  const previous = new Map<string, string>();
  return rows.map((r) => {
    const effective = r.corrected_by_reading_id === null;
    let consumption: string | null = null;
    let consumptionKind: string | null = null;
    if (effective) {
      const prev = previous.get(r.input_code);
      const meter = meters?.get(r.input_code);
      if (meter?.register === 'maximum') {
        // A demand register's reading is its period's demand, the first one's too.
        consumption = r.value;
        consumptionKind = 'maximum';
      } else if (prev === undefined) consumptionKind = 'first';
      else {
        const c = consumptionBetween(new Dec(prev), new Dec(r.value), meter ? rolloverOf(meter) : null);
        consumption = c.quantity.toFixed();
        consumptionKind = c.kind;
      }
      previous.set(r.input_code, r.value);
    }
    return {
      readingID: Number(r.reading_id),
      subscriptionID: Number(r.subscription_id),
      inputCode: r.input_code,
      readingDate: formatDate(r.reading_date),
      value: r.value,
      kind: r.kind,
      source: r.source,
      note: r.note,
      correctsReadingID: r.corrects_reading_id === null ? null : Number(r.corrects_reading_id),
      correctedByReadingID: r.corrected_by_reading_id === null ? null : Number(r.corrected_by_reading_id),
      effective,
      consumption,
      consumptionKind,
      createdAt: r.created_at,
      createdBy: r.created_by,
    };
  });
}
