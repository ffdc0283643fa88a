// A fingerprint of every row of every table of the app's schema and of the job queue,
// to prove that a refused request changed nothing.
import type pg from 'pg';

export async function databaseDigest(db: pg.Pool): Promise<Record<string, string>> {
  const tables = await db.query<{ schema: string; name: string }>(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND (n.nspname = 'public' OR (n.nspname = 'graphile_worker' AND c.relname = '_private_jobs'))
      ORDER BY 1, 2`,
  );
  const out: Record<string, string> = {};
  for (const t of tables.rows) {
    // Login bookkeeping changes on purpose when the fuzzer logs in; tokens are not data.
    // Nor are worker heartbeats, which a worker writes on its own clock: a test slower
    // than one beat (a loaded machine) saw them change between two digests.
    if (t.name === 'access_token' || t.name === 'schema_version' || t.name === 'worker_heartbeat') continue;
    const q = `SELECT count(*) AS n, coalesce(md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))), '') AS h FROM ${t.schema}.${t.name} x`;
    const r = await db.query<{ n: string; h: string }>(q);
    out[`${t.schema}.${t.name}`] = `${r.rows[0]!.n}:${r.rows[0]!.h}`;
  }
  return out;
}
