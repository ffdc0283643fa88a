// Writing many rows fast: PostgreSQL COPY in its text format, inside the import's
// transaction. COPY is several times faster than INSERT for the same rows because the
// server parses one stream instead of planning a statement per batch.
import { from as copyFrom } from 'pg-copy-streams';
import type pg from 'pg';
import type { Queryable } from './pool.ts';

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One field in COPY text format: null is \N, and backslash, tab and line breaks are escaped. */
export function copyField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = typeof v === 'string' ? v : String(v);
  return SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : s;
}

export function copyLine(fields: (string | number | null | undefined)[]): string {
  let out = copyField(fields[0]);
  for (let i = 1; i < fields.length; i++) out += '\t' + copyField(fields[i]);
  return out + '\n';
}

/** COPYs lines (each ending in \n) into table(columns) through client. */
export async function copyInto(client: pg.PoolClient | pg.Client, table: string, columns: string[], lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  await (await startCopy(client, table, columns, lines)).done;
}

/**
 * Starts a COPY of lines into table(columns) and answers once the lines are with the
 * connection, with the COPY's end to await. The lines are handed over only when the server
 * has taken the COPY (a round trip): a caller that went on to work in JavaScript right
 * after starting it kept them in this process until it yielded, and the server idle
 * meanwhile (issue 15, a readings import).
 */
export async function startCopy(client: pg.PoolClient | pg.Client, table: string, columns: string[], lines: string[]): Promise<{ done: Promise<void> }> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  done.catch(() => {}); // the caller awaits it
  // All the lines in one write (a chunk is bounded: 5,000 rows): written as the stream
  // drained, in pieces, they waited for the event loop and so the COPY for this process; and
  // pieces queued inside pg-copy-streams when the server refused the COPY threw from its
  // 'drain' handler, past every catch (a reviewer's test over a slow connection).
  const handed = new Promise<void>((resolve, reject) => stream.write(lines.join(''), (err) => (err ? reject(err) : resolve())));
  await Promise.race([handed, done]);
  stream.end();
  return { done };
}

/**
 * n fresh ids from a table's identity sequence, so that rows can point at each other
 * before they are written. A sequence is outside transactions, so any connection may
 * draw them (an import draws the next chunk's on the pool while its own connection
 * writes); ids drawn and not used are a gap, as after a rollback. One row of text, not
 * n rows: the rows were half the time of the call.
 */
export async function allocateIds(db: Queryable, sequence: string, n: number): Promise<string[]> {
  if (n === 0) return [];
  const r = await db.query<{ ids: string }>("SELECT string_agg(nextval($1::regclass)::text, ',') AS ids FROM generate_series(1, $2)", [sequence, n]);
  return r.rows[0]!.ids.split(',');
}

export async function identitySequence(client: pg.PoolClient | pg.Client, table: string, column: string): Promise<string> {
  const r = await client.query<{ s: string }>('SELECT pg_get_serial_sequence($1, $2) AS s', [table, column]);
  return r.rows[0]!.s;
}
