// SQL for meter readings. A correction is a new row pointing at the reading it corrects;
// the effective readings are the rows that no other row corrects (migration 003). Only
// write.ts writes here; every query that needs the effective readings takes the
// predicate below.
import type { Queryable } from '../db/pool.ts';

/**
 * SQL: the reading `alias` is effective (no row corrects it). With `watermark` (an SQL
 * expression, a reading id), as it was then: corrections written after it are not seen,
 * as a term's run reads its frozen readings.
 */
export const effectiveSql = (alias: string, watermark?: string) =>
  `NOT EXISTS (SELECT 1 FROM reading corr WHERE corr.corrects_reading_id = ${alias}.reading_id${watermark === undefined ? '' : ` AND corr.reading_id <= ${watermark}`})`;

/** SQL: the id of the reading that corrects the reading `alias`, or null while it is effective. */
export const correctedBySql = (alias: string) => `(SELECT corr.reading_id FROM reading corr WHERE corr.corrects_reading_id = ${alias}.reading_id)`;

export const READING_COLUMNS = ['app_code', 'subscription_id', 'input_code', 'reading_date', 'value', 'kind', 'source', 'note', 'corrects_reading_id', 'created_by'];
import { localTimeSql } from '../calendar/calendar.ts';

export type NewReading = {
  subscriptionId: string;
  inputCode: string;
  date: string;
  value: string;
  kind: string;
  source: string;
  note: string | null;
  corrects?: string | null;
};

export async function insertReadings(db: Queryable, appCode: number, rows: NewReading[], by: string): Promise<string[]> {
  if (rows.length === 0) return [];
  const r = await db.query<{ reading_id: string }>(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, kind, source, note, corrects_reading_id, created_by)
     SELECT $1, s, i, d, v, k, src, n, c, $10 FROM unnest($2::bigint[], $3::text[], $4::date[], $5::numeric[], $6::text[], $7::text[], $8::text[], $9::bigint[])
         WITH ORDINALITY AS u(s, i, d, v, k, src, n, c, ord)
     ORDER BY ord
     RETURNING reading_id`,
    [
      appCode,
      rows.map((x) => x.subscriptionId),
      rows.map((x) => x.inputCode),
      rows.map((x) => x.date),
      rows.map((x) => x.value),
      rows.map((x) => x.kind),
      rows.map((x) => x.source),
      rows.map((x) => x.note),
      rows.map((x) => x.corrects ?? null),
      by,
    ],
  );
  return r.rows.map((x) => x.reading_id);
}

export type EffectiveReading = { reading_id: string; subscription_id: string; input_code: string; reading_date: string; value: string; kind: string };

/** The effective readings of these subscriptions (all their meters), oldest first. */
export async function effectiveReadings(db: Queryable, subscriptionIds: string[]): Promise<EffectiveReading[]> {
  const r = await db.query<EffectiveReading>(
    `SELECT r.reading_id, r.subscription_id, r.input_code, r.reading_date, trim_scale(r.value) AS value, r.kind
       FROM reading r
      WHERE r.subscription_id = ANY($1::bigint[])
        AND ${effectiveSql('r')}
      ORDER BY r.subscription_id, r.input_code, r.reading_date, r.reading_id`,
    [subscriptionIds],
  );
  return r.rows;
}

/** A meter whose new readings are dated on or after `from`. */
export type MeterSince = { subscriptionId: string; inputCode: string; from: string };

/**
 * What fitReadings (rules.ts) reads of these meters' histories for new readings dated on or
 * after each one's `from`: its effective readings from the last effective actual reading
 * before `from` on (all of them when it has none), oldest first. A new actual reading is
 * fitted after the nearest actual reading before it, a new estimate after the nearest reading
 * of any kind, and a reading after it or on its day binds it: none of them is older than that
 * actual reading. Without a correction among the new readings only: a reading it corrects
 * leaves the chain, and the one before it may be older (writeReadings' callers that correct
 * read the whole history, effectiveReadings). An import asks for this, not the whole history:
 * a utility's meter has years of readings, and an import read all of them for each chunk's meters
 * (400,000 readings of meters with 24 readings each: 18.6 s, 9.1 s now; docs/accounts.md).
 */
export async function effectiveReadingsSince(db: Queryable, meters: readonly MeterSince[]): Promise<EffectiveReading[]> {
  if (meters.length === 0) return [];
  const r = await db.query<EffectiveReading>(
    `SELECT r.reading_id, r.subscription_id, r.input_code, r.reading_date, trim_scale(r.value) AS value, r.kind
       FROM unnest($1::bigint[], $2::text[], $3::date[]) AS m(subscription_id, input_code, from_date)
       LEFT JOIN LATERAL (
             SELECT b.reading_date FROM reading b
              WHERE b.subscription_id = m.subscription_id AND b.input_code = m.input_code
                AND b.reading_date < m.from_date AND b.kind = 'actual' AND ${effectiveSql('b')}
              ORDER BY b.reading_date DESC LIMIT 1) w ON true
       JOIN reading r ON r.subscription_id = m.subscription_id AND r.input_code = m.input_code
                     AND r.reading_date >= COALESCE(w.reading_date, '-infinity'::date)
      WHERE ${effectiveSql('r')}
      ORDER BY r.subscription_id, r.input_code, r.reading_date, r.reading_id`,
    [meters.map((m) => m.subscriptionId), meters.map((m) => m.inputCode), meters.map((m) => m.from)],
  );
  return r.rows;
}

export type ReadingRow = {
  reading_id: string;
  subscription_id: string;
  input_code: string;
  reading_date: string;
  value: string;
  kind: 'actual' | 'estimated';
  source: string;
  note: string | null;
  corrects_reading_id: string | null;
  corrected_by_reading_id: string | null;
  created_at: string;
  created_by: string;
};

export async function readingHistory(db: Queryable, appCode: number, subscriptionId: string, inputCode?: string): Promise<ReadingRow[]> {
  const r = await db.query<ReadingRow>(
    `SELECT r.reading_id, r.subscription_id, r.input_code, r.reading_date, trim_scale(r.value) AS value, r.kind, r.source, r.note, r.corrects_reading_id,
            ${correctedBySql('r')} AS corrected_by_reading_id,
            ${localTimeSql('r.created_at')} AS created_at, r.created_by
       FROM reading r JOIN app a ON a.app_code = r.app_code
      WHERE r.app_code = $1 AND r.subscription_id = $2 AND ($3::text IS NULL OR r.input_code = $3)
      ORDER BY r.input_code, r.reading_date, r.reading_id`,
    [appCode, subscriptionId, inputCode ?? null],
  );
  return r.rows;
}

/** One reading of the app, locked, with whether another row corrects it already. */
export async function lockReading(
  db: Queryable,
  appCode: number,
  readingId: number,
): Promise<{ reading_id: string; subscription_id: string; input_code: string; reading_date: string; value: string; kind: string; source: string; corrected_by: string | null } | undefined> {
  const r = await db.query(
    `SELECT r.reading_id, r.subscription_id, r.input_code, r.reading_date, trim_scale(r.value) AS value, r.kind, r.source,
            ${correctedBySql('r')} AS corrected_by
       FROM reading r WHERE r.app_code = $1 AND r.reading_id = $2 FOR UPDATE`,
    [appCode, readingId],
  );
  return r.rows[0];
}
