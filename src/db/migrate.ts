// Forward-only plain SQL migrations (src/db/migrations/NNN.do.name.sql), applied by
// postgrator. A released file is never edited: its checksum is verified on every start.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Two processes starting at once must not both apply the same file.
const LOCK_KEY = 7_404_611;

export async function migrate(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    const postgrator = new Postgrator({
      migrationPattern: path.join(MIGRATIONS, '*'),
      driver: 'pg',
      schemaTable: 'schema_version',
      validateChecksums: true,
      execQuery: (query) => client.query(query),
    });
    const applied = await postgrator.migrate();
    // The job queue keeps its own tables in the graphile_worker schema.
    await runWorkerMigrations({ connectionString: url, logger: silentLogger() });
    return applied.map((m) => m.filename);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

import { Logger } from 'graphile-worker';
export function silentLogger(): Logger {
  return new Logger(() => () => {});
}
