// The keys checked per statement (migrations 109 to 111) against what a reviewer found: a
// subscription moved to another app while a reading of it was written, in either order, left the
// reading naming another app's subscription; a session's temporary table stood in for a parent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHarness, type Harness } from '../support/harness.ts';

describe('keys checked per statement: races and look-alikes (migration 111)', () => {
  let h: Harness;
  // One account, batch and template in each app, made by SQL.
  const parents: Record<'a' | 'b', { account: string; batch: string; service: string }> = {} as never;
  before(async () => {
    h = await startHarness();
    for (const [k, app] of [['a', h.appCode], ['b', h.otherAppCode]] as const) {
      const account = (await h.db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, $2, 'R', 't', 't') RETURNING account_id`, [app, `R-${k}`])).rows[0].account_id;
      const batch = (await h.db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, 'R', 't') RETURNING batch_id`, [app, `R-${k}`])).rows[0].batch_id;
      const service = (await h.db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, $2, 't', 't') RETURNING service_id`, [app, `R-${k}`])).rows[0].service_id;
      parents[k] = { account, batch, service };
    }
  });
  after(async () => {
    await h.close();
  });

  const newSubscription = async () =>
    (
      await h.db.query(
        `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
         VALUES ($1, $2, $3, $4, DATE '2025-01-01', 't', 't') RETURNING subscription_id`,
        [h.appCode, parents.a.account, parents.a.service, parents.a.batch],
      )
    ).rows[0].subscription_id as string;
  const writeReading = (c: pg.Client, subscription: string) =>
    c.query(`INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by) VALUES ($1, $2, 'METER', DATE '2025-06-01', 5, 't')`, [h.appCode, subscription]);
  // The subscription and all its parents moved to the other app: allowed only while it has no readings.
  const moveToOtherApp = (c: pg.Client, subscription: string) =>
    c.query('UPDATE subscription SET app_code = $2, account_id = $3, batch_id = $4, service_id = $5 WHERE subscription_id = $1', [
      subscription,
      h.otherAppCode,
      parents.b.account,
      parents.b.batch,
      parents.b.service,
    ]);
  const outcome = (p: Promise<unknown>) => p.then(() => 'done', (e: { code?: string }) => `failed ${e.code}`);
  /** Readings whose app is not their subscription's: the rule says there are none. */
  const readingsOfAnotherApp = async (subscription: string) =>
    (
      await h.db.query(
        `SELECT r.reading_id, r.app_code AS reading_app, s.app_code AS subscription_app
           FROM reading r JOIN subscription s ON s.subscription_id = r.subscription_id
          WHERE r.subscription_id = $1 AND r.app_code <> s.app_code`,
        [subscription],
      )
    ).rows;

  // subscription.app_code is in no unique index, so PostgreSQL counts it as no part of the row's
  // key: an UPDATE of it takes FOR NO KEY UPDATE, which does not conflict with the FOR KEY SHARE
  // the reading's check took, and the update's own check could not see the uncommitted reading.
  test('a subscription moved to another app while a reading of it is being written: the reading is not left naming another app\'s subscription', async () => {
    const subscription = await newSubscription();
    const writer = new pg.Client({ connectionString: h.dbUrl });
    const mover = new pg.Client({ connectionString: h.dbUrl });
    await writer.connect();
    await mover.connect();
    try {
      await writer.query('BEGIN');
      await writeReading(writer, subscription); // its check has locked the subscription FOR KEY SHARE
      // Refused at once, the reading's transaction still open: a subscription's app does not change (migration 111).
      const moving = await outcome(moveToOtherApp(mover, subscription));
      await writer.query('COMMIT');
      assert.equal(moving, 'failed 23001');
    } finally {
      await writer.end();
      await mover.end();
    }
    assert.deepEqual(await readingsOfAnotherApp(subscription), []);
  });

  // The other order: the move not yet committed, the reading's check locked the old version of the
  // row FOR KEY SHARE without waiting (no key column changed), found app_code as it was, and passed.
  // There is no such move to wait for now: it is refused at once.
  test('a subscription is not moved to another app, so no reading can be written under such a move', async () => {
    const subscription = await newSubscription();
    const c = new pg.Client({ connectionString: h.dbUrl });
    await c.connect();
    try {
      await assert.rejects(moveToOtherApp(c, subscription), (e: unknown) => (e as { code?: string }).code === '23001');
      assert.equal(await outcome(writeReading(c, subscription)), 'done');
    } finally {
      await c.end();
    }
    assert.deepEqual(await readingsOfAnotherApp(subscription), []);
  });

  // The foreign key named its parent table by OID; the trigger functions name it by search_path,
  // where pg_temp comes first. A session's temporary table of that name is checked instead (and
  // the function's cached plan is replanned against it).
  test('a temporary table named like a parent does not stand in for it', async () => {
    const c = new pg.Client({ connectionString: h.dbUrl });
    await c.connect();
    try {
      const subscription = await newSubscription();
      await writeReading(c, subscription); // the check's plan cached in this session, on public.subscription
      await c.query('CREATE TEMP TABLE subscription (subscription_id bigint, app_code int)');
      await c.query('INSERT INTO pg_temp.subscription VALUES (987654321, $1)', [h.appCode]);
      await c.query('BEGIN');
      try {
        await assert.rejects(writeReading(c, '987654321'), (e: unknown) => {
          const err = e as { code?: string; constraint?: string };
          assert.equal(err.code, '23503', String(e));
          assert.equal(err.constraint, 'reading_subscription_id_fkey', String(e));
          return true;
        });
      } finally {
        await c.query('ROLLBACK');
      }
    } finally {
      await c.end();
    }
  });
});
