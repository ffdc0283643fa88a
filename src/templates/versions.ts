// Effective-dated versions (issue 12): which versions a term is rated by, and the checks
// update-service makes before dating one. The day-by-day rule is the rating core's
// (versionTimeline); the versions a term is rated by are loaded by billRun/versions.ts.
import type { Queryable } from '../db/pool.ts';

/** Statuses of a term whose roster was approved or billed: a dated version may no longer reach it. */
export const FROZEN_TERM_STATUSES = ['Approved', 'Scheduled', 'Processing', 'Processed', 'Failed', 'Posted'] as const;

/** A term of the template, approved or billed, ending on or after `from`; undefined when none. */
export async function billedTermReached(db: Queryable, serviceId: string, from: string): Promise<{ term_id: string; end_date: string; status: string } | undefined> {
  const r = await db.query<{ term_id: string; end_date: string; status: string }>(
    `SELECT term_id, to_char(end_date, 'YYYY-MM-DD') AS end_date, status FROM term
      WHERE service_id = $1 AND end_date >= $2::date AND status = ANY($3::text[])
      ORDER BY end_date DESC, term_id LIMIT 1`,
    [serviceId, from, FROZEN_TERM_STATUSES],
  );
  return r.rows[0];
}

/** effective_from of the version in force on `day` ('YYYY-MM-DD'): null when that is from the beginning. */
export async function versionInForceOn(db: Queryable, serviceId: string, day: string): Promise<string | null> {
  const r = await db.query<{ from: string | null }>(
    `SELECT to_char(effective_from, 'YYYY-MM-DD') AS from FROM service_version
      WHERE service_id = $1 AND (effective_from IS NULL OR effective_from <= $2::date)
      ORDER BY effective_from DESC NULLS LAST, version DESC LIMIT 1`,
    [serviceId, day],
  );
  return r.rows[0]?.from ?? null;
}

/** Validated terms of the template ending on or after `from`, locked: a version dated `from` changes what their preview showed. */
export async function validatedTermsReached(db: Queryable, serviceId: string, from: string): Promise<{ term_id: string; status: 'Validated' }[]> {
  const r = await db.query<{ term_id: string; status: 'Validated' }>(
    `SELECT term_id, status FROM term WHERE service_id = $1 AND end_date >= $2::date AND status = 'Validated' ORDER BY term_id FOR UPDATE`,
    [serviceId, from],
  );
  return r.rows;
}
