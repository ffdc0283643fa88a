// An event's app exists: checked once per statement (migrations 107 and 108) in place of a
// foreign key checked row by row, with the key's rule whole: a row naming no app is refused,
// the whole statement with it; an app with events is neither deleted, renumbered nor
// truncated, even by a transaction that began before the events were committed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHarness, type Harness } from '../support/harness.ts';
import { waitUntilBlocked } from '../support/locks.ts';

describe('an event names an existing app (migrations 107 and 108)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  const newApp = async (name: string): Promise<number> => (await h.db.query<{ app_code: number }>('INSERT INTO app (name) VALUES ($1) RETURNING app_code', [name])).rows[0]!.app_code;
  const events = async (appCode: number) => Number((await h.db.query('SELECT count(*) AS n FROM event WHERE app_code = $1', [appCode])).rows[0].n);
  const refusedByKey = (e: unknown) => {
    const err = e as { code?: string; constraint?: string };
    return err.code === '23503' && err.constraint === 'event_app_code_fkey';
  };
  const insertEvents = (codes: number[]) =>
    h.db.query(`INSERT INTO event (app_code, type, order_key, data) SELECT c, 'test.event', 'test', '{}'::jsonb FROM unnest($1::int[]) AS c`, [codes]);

  test('a row naming no app is refused, and the rows of the same statement with it', async () => {
    const missing = (await h.db.query<{ n: number }>('SELECT coalesce(max(app_code), 0) + 1000 AS n FROM app')).rows[0]!.n;
    const before = await events(h.appCode);
    await assert.rejects(insertEvents([missing]), refusedByKey);
    await assert.rejects(insertEvents([h.appCode, h.appCode, missing]), refusedByKey);
    assert.equal(await events(h.appCode), before);
    await insertEvents([h.appCode, h.appCode]);
    assert.equal(await events(h.appCode), before + 2);
    // An update moving an event to no app is refused too.
    await assert.rejects(h.db.query(`UPDATE event SET app_code = $1 WHERE event_id = (SELECT max(event_id) FROM event)`, [missing]), refusedByKey);
  });

  test('an app with events is neither deleted nor renumbered; one without is', async () => {
    const kept = await newApp('with events');
    await insertEvents([kept]);
    await assert.rejects(h.db.query('DELETE FROM app WHERE app_code = $1', [kept]), refusedByKey);
    await assert.rejects(h.db.query('UPDATE app SET app_code = app_code + 100000 WHERE app_code = $1', [kept]), refusedByKey);
    await h.db.query('UPDATE app SET name = $2 WHERE app_code = $1', [kept, 'renamed']);
    const bare = await newApp('no events');
    assert.equal((await h.db.query('DELETE FROM app WHERE app_code = $1', [bare])).rowCount, 1);
  });

  test('an app is not deleted under events being written: the delete waits for them, then is refused', async () => {
    const app = await newApp('written to');
    const writer = new pg.Client({ connectionString: h.dbUrl });
    const deleter = new pg.Client({ connectionString: h.dbUrl });
    await writer.connect();
    await deleter.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO event (app_code, type, order_key, data) VALUES ($1, 'test.event', 'test', '{}')`, [app]);
      const deleterPid = (await deleter.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const deleting = deleter.query('DELETE FROM app WHERE app_code = $1', [app]).then(
        () => 'deleted',
        (e: unknown) => (refusedByKey(e) ? 'refused' : `failed: ${String(e)}`),
      );
      // The delete waits on the writer's lock of the app's row.
      await waitUntilBlocked(h.db, deleterPid, 'the delete waits for the events being written');
      await writer.query('COMMIT');
      assert.equal(await deleting, 'refused');
      assert.equal(await events(app), 1);
    } finally {
      await writer.end();
      await deleter.end();
    }
  });

  // A reviewer: a REPEATABLE READ transaction's snapshot, older than events committed since,
  // did not see them, and the app was deleted under them (the key refused it). Migration 108.
  test('an app is not deleted by a repeatable-read transaction whose snapshot predates its committed events', async () => {
    const app = await newApp('rr app');
    const deleter = new pg.Client({ connectionString: h.dbUrl });
    await deleter.connect();
    try {
      await deleter.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await deleter.query('SELECT count(*) FROM app'); // the snapshot is taken here
      await insertEvents([app]); // committed by another transaction, its lock of the app row released
      await assert.rejects(deleter.query('DELETE FROM app WHERE app_code = $1', [app]), refusedByKey);
      await deleter.query('ROLLBACK');
      assert.equal(await events(app), 1);
    } finally {
      await deleter.end();
    }
  });

  test('TRUNCATE app is refused while events exist, with every table it would have emptied', async () => {
    await insertEvents([h.appCode]);
    const apps = Number((await h.db.query('SELECT count(*) AS n FROM app')).rows[0].n);
    await assert.rejects(h.db.query('TRUNCATE app CASCADE'), refusedByKey);
    assert.equal(Number((await h.db.query('SELECT count(*) AS n FROM app')).rows[0].n), apps);
  });
});
