// The template versions a term is rated by (issue 12, effective-dated versions): read here
// for the run's chunks and validate-term's dry run alike; the day-by-day rule is the
// rating core's (versionTimeline).
import type { Queryable } from '../db/pool.ts';
import { versionTimeline, type VersionPiece } from '../rating/index.ts';

export type TermVersion = VersionPiece & { serviceVersionId: string };

/**
 * The versions in force over a term's dates, in date order: among the versions made up
 * to the term's own (the version current when it was made) and every dated version,
 * the one in force on each day (versionTimeline). An undated version saved after the
 * term was made does not reach it: a term keeps the version it was made with.
 */
export async function termVersions(db: Queryable, term: { service_id: string; service_version: number; start_date: string; end_date: string }): Promise<TermVersion[]> {
  const r = await db.query<{ service_version_id: string; version: number; from: string | null }>(
    `SELECT service_version_id, version, to_char(effective_from, 'YYYY-MM-DD') AS from FROM service_version
      WHERE service_id = $1 AND (version <= $2 OR effective_dated)`,
    [term.service_id, term.service_version],
  );
  const ids = new Map(r.rows.map((x) => [x.version, x.service_version_id]));
  return versionTimeline(
    r.rows.map((x) => ({ version: x.version, from: x.from })),
    term.start_date,
    term.end_date,
  ).map((p) => ({ ...p, serviceVersionId: ids.get(p.version) as string }));
}
