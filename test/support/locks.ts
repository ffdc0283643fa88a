// Waiting, in a test, until another session is blocked on a lock: the moment a concurrency
// test lets the blocking transaction go on.
import assert from 'node:assert/strict';
import type pg from 'pg';

/** Resolves once backend `pid` waits on a heavyweight lock (a row's, a table's); fails after about 5 s. */
export async function waitUntilBlocked(db: pg.Pool, pid: number, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    const w = await db.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid]);
    if (w.rowCount === 1) return;
    assert.ok(i < 200, what);
    await new Promise((r) => setTimeout(r, 25));
  }
}
