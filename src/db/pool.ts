import pg from 'pg';

// numeric (1700) and bigint (20) come back as strings: amounts must never pass through
// a binary float, and identifiers beyond 2^53 must not be silently rounded.
pg.types.setTypeParser(1700, (v) => v);
pg.types.setTypeParser(20, (v) => v);
// date (1082) stays the calendar date it is, never a midnight in some time zone.
pg.types.setTypeParser(1082, (v) => v);

export type Db = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  // An idle client whose server went away emits 'error'; without a listener that kills the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs fn in one transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
