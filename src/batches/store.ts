// SQL for batches. A batch is also made by a template that names it (templates/store.ts
// linkBatches); both paths write the same row.
import type { Queryable } from '../db/pool.ts';
import { localTimeSql } from '../calendar/calendar.ts';

export type BatchRow = {
  batch_id: string;
  app_code: number;
  batch_code: string;
  label: string;
  created_at: string;
  created_by: string;
  service_codes: string[];
  subscription_count: string;
};

export async function insertBatch(db: Queryable, appCode: number, code: string, label: string, by: string): Promise<string | undefined> {
  const r = await db.query<{ batch_id: string }>(
    `INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (app_code, batch_code) DO NOTHING RETURNING batch_id`,
    [appCode, code, label, by],
  );
  return r.rows[0]?.batch_id;
}

export async function updateBatchLabel(db: Queryable, appCode: number, code: string, label: string): Promise<boolean> {
  const r = await db.query('UPDATE batch SET label = $3 WHERE app_code = $1 AND batch_code = $2', [appCode, code, label]);
  return r.rowCount === 1;
}

export async function listBatches(db: Queryable, appCode: number, code?: string): Promise<BatchRow[]> {
  const r = await db.query<BatchRow>(
    `SELECT b.batch_id, b.app_code, b.batch_code, b.label,
            ${localTimeSql('b.created_at')} AS created_at, b.created_by,
            COALESCE((SELECT array_agg(s.service_code ORDER BY s.service_code)
                        FROM service_batch sb JOIN service s ON s.service_id = sb.service_id
                       WHERE sb.batch_id = b.batch_id), '{}') AS service_codes,
            (SELECT count(*) FROM subscription x
              WHERE x.app_code = b.app_code AND x.batch_id = b.batch_id AND x.status <> 'terminated') AS subscription_count
       FROM batch b JOIN app a ON a.app_code = b.app_code
      WHERE b.app_code = $1 AND ($2::text IS NULL OR b.batch_code = $2)
      ORDER BY b.batch_id`,
    [appCode, code ?? null],
  );
  return r.rows;
}

/** Batch ids by code, for the codes that exist in the app. */
export async function batchIdsByCode(db: Queryable, appCode: number, codes: string[]): Promise<Map<string, string>> {
  const r = await db.query<{ batch_code: string; batch_id: string }>(
    'SELECT batch_code, batch_id FROM batch WHERE app_code = $1 AND batch_code = ANY($2::text[])',
    [appCode, codes],
  );
  return new Map(r.rows.map((x) => [x.batch_code, x.batch_id]));
}
