// The keys of account, subscription and reading, checked once per statement (migration 109) in
// place of foreign keys checked row by row, with each key's rule whole and the app made part
// of it: a row naming a missing parent, or one of another app, is refused with the whole
// statement (a COPY included); a parent with children is neither deleted, re-keyed nor
// truncated, even by a transaction that began before the children were committed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startHarness, type Harness } from '../support/harness.ts';
import { waitUntilBlocked } from '../support/locks.ts';
import { makeAccount, makeSubscription, makeTemplate } from '../subscriptions/fixtures.ts';

describe('account, subscription and reading name existing parents of their app (migration 109)', () => {
  let h: Harness;
  let subscriptionId: number;
  let accountId: number;
  let otherAccountId: number;
  let ids: { serviceId: string; batchId: string; otherBatchId: string };
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
    accountId = await makeAccount(h, 'K-1');
    subscriptionId = await makeSubscription(h, 'K-1');
    otherAccountId = await makeAccount(h, 'K-OTHER', {}, h.tokens.otherAdmin);
    const r = await h.db.query(
      `SELECT (SELECT service_id FROM subscription WHERE subscription_id = $1) AS "serviceId",
              (SELECT batch_id FROM subscription WHERE subscription_id = $1) AS "batchId",
              (SELECT batch_id FROM batch WHERE app_code = $2 LIMIT 1) AS "otherBatchId"`,
      [subscriptionId, h.otherAppCode],
    );
    ids = r.rows[0];
    if (!ids.otherBatchId) {
      ids.otherBatchId = (await h.db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'K-B', 'K-B', 'test') RETURNING batch_id`, [h.otherAppCode])).rows[0].batch_id;
    }
  });
  after(async () => {
    await h.close();
  });

  const refusedBy = (constraint: string) => (e: unknown) => {
    const err = e as { code?: string; constraint?: string };
    assert.equal(err.code, '23503', String(e));
    assert.equal(err.constraint, constraint, String(e));
    return true;
  };
  const count = async (table: string) => Number((await h.db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const insertSubscriptions = (rows: { app: number; account: number | string; service: string; batch: string }[]) =>
    h.db.query(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       SELECT r.app, r.account, r.service, r.batch, DATE '2025-01-01', 'test', 'test'
         FROM jsonb_to_recordset($1::jsonb) AS r(app int, account bigint, service bigint, batch bigint)`,
      [JSON.stringify(rows)],
    );
  const insertReadings = (rows: { app: number; subscription: number }[]) =>
    h.db.query(
      `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
       SELECT r.app, r.subscription, 'METER', DATE '2025-06-01', 5, 'test' FROM jsonb_to_recordset($1::jsonb) AS r(app int, subscription bigint)`,
      [JSON.stringify(rows)],
    );

  test('a subscription naming a missing account, or an account, batch or template of another app, is refused with its statement', async () => {
    const good = { app: h.appCode, account: accountId, service: ids.serviceId, batch: ids.batchId };
    const before = await count('subscription');
    await assert.rejects(insertSubscriptions([good, { ...good, account: 99_999_999 }]), refusedBy('subscription_account_id_fkey'));
    await assert.rejects(insertSubscriptions([good, { ...good, account: otherAccountId }]), refusedBy('subscription_account_id_fkey'));
    await assert.rejects(insertSubscriptions([good, { ...good, batch: ids.otherBatchId }]), refusedBy('subscription_batch_id_fkey'));
    await assert.rejects(insertSubscriptions([{ ...good, service: '99999999' }]), refusedBy('subscription_service_id_fkey'));
    // The app named by none of its parents: the account's key says it.
    await assert.rejects(insertSubscriptions([{ ...good, app: h.otherAppCode }]), refusedBy('subscription_account_id_fkey'));
    assert.equal(await count('subscription'), before);
    await insertSubscriptions([good, good]);
    assert.equal(await count('subscription'), before + 2);
  });

  test('a COPY of readings with one naming another app\'s subscription writes none of them', async () => {
    const before = await count('reading');
    const client = new pg.Client({ connectionString: h.dbUrl });
    await client.connect();
    try {
      const lines = [`${h.appCode}\t${subscriptionId}\tMETER\t2025-07-01\t7\ttest\n`, `${h.otherAppCode}\t${subscriptionId}\tMETER\t2025-07-02\t8\ttest\n`];
      await assert.rejects(
        pipeline(Readable.from(lines), client.query(copyFrom('COPY reading (app_code, subscription_id, input_code, reading_date, value, created_by) FROM STDIN'))),
        (e: unknown) => {
          const err = e as { code?: string; detail?: string };
          assert.equal(err.code, '23503');
          assert.match(String(err.detail), new RegExp(`\\(app_code, subscription_id\\)=\\(${h.otherAppCode}, ${subscriptionId}\\) is not present in table "subscription"`));
          return true;
        },
      );
    } finally {
      await client.end();
    }
    assert.equal(await count('reading'), before);
    await assert.rejects(insertReadings([{ app: h.appCode, subscription: 99_999_999 }]), refusedBy('reading_subscription_id_fkey'));
    await insertReadings([{ app: h.appCode, subscription: subscriptionId }]);
    assert.equal(await count('reading'), before + 1);
  });

  test('an account naming no app is refused; a key changed by an update is checked too', async () => {
    await assert.rejects(
      h.db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES (99999, 'K-X', 'X', 'test', 'test')`),
      refusedBy('account_app_code_fkey'),
    );
    await assert.rejects(h.db.query('UPDATE subscription SET account_id = $2 WHERE subscription_id = $1', [subscriptionId, otherAccountId]), refusedBy('subscription_account_id_fkey'));
    await assert.rejects(h.db.query('UPDATE reading SET app_code = $2 WHERE subscription_id = $1', [subscriptionId, h.otherAppCode]), refusedBy('reading_subscription_id_fkey'));
    const sameApp = await makeAccount(h, 'K-2');
    await h.db.query('BEGIN');
    try {
      assert.equal((await h.db.query('UPDATE subscription SET account_id = $2 WHERE subscription_id = $1', [subscriptionId, sameApp])).rowCount, 1);
    } finally {
      await h.db.query('ROLLBACK');
    }
  });

  test('a parent with children is neither deleted, re-keyed nor truncated; one without is deleted', async () => {
    await assert.rejects(h.db.query('DELETE FROM account WHERE account_id = $1', [accountId]), refusedBy('subscription_account_id_fkey'));
    await assert.rejects(h.db.query('UPDATE account SET account_id = account_id + 10000000 WHERE account_id = $1', [accountId]), refusedBy('subscription_account_id_fkey'));
    // A batch or template moved to another app would leave its subscriptions in the first.
    await assert.rejects(h.db.query('UPDATE batch SET app_code = $2 WHERE batch_id = $1', [ids.batchId, h.otherAppCode]), refusedBy('subscription_batch_id_fkey'));
    await assert.rejects(h.db.query('UPDATE service SET app_code = $2 WHERE service_id = $1', [ids.serviceId, h.otherAppCode]), refusedBy('subscription_service_id_fkey'));
    const lone = (await h.db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, 'K-LONE', 'K-LONE', 'test') RETURNING batch_id`, [h.appCode])).rows[0].batch_id;
    await insertSubscriptions([{ app: h.appCode, account: accountId, service: ids.serviceId, batch: lone }]);
    await assert.rejects(h.db.query('DELETE FROM batch WHERE batch_id = $1', [lone]), refusedBy('subscription_batch_id_fkey'));
    await assert.rejects(h.db.query('TRUNCATE account CASCADE'), refusedBy('subscription_account_id_fkey'));
    await assert.rejects(h.db.query('TRUNCATE subscription CASCADE'), refusedBy('reading_subscription_id_fkey'));
    await h.db.query('UPDATE account SET name = $2 WHERE account_id = $1', [accountId, 'Renamed']);
    const bare = await makeAccount(h, 'K-BARE');
    assert.equal((await h.db.query('DELETE FROM account WHERE account_id = $1', [bare])).rowCount, 1);
    const withAccounts = (await h.db.query<{ app_code: number }>('INSERT INTO app (name) VALUES ($1) RETURNING app_code', ['with accounts'])).rows[0]!.app_code;
    await h.db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, 'K-Y', 'Y', 'test', 'test')`, [withAccounts]);
    await assert.rejects(h.db.query('DELETE FROM app WHERE app_code = $1', [withAccounts]), refusedBy('account_app_code_fkey'));
  });

  test('an account is not deleted under a subscription being written: the delete waits for it, then is refused', async () => {
    const account = await makeAccount(h, 'K-3');
    const writer = new pg.Client({ connectionString: h.dbUrl });
    const deleter = new pg.Client({ connectionString: h.dbUrl });
    await writer.connect();
    await deleter.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by) VALUES ($1, $2, $3, $4, DATE '2025-01-01', 'test', 'test')`,
        [h.appCode, account, ids.serviceId, ids.batchId],
      );
      const deleterPid = (await deleter.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const deleting = deleter.query('DELETE FROM account WHERE account_id = $1', [account]).then(
        () => 'deleted',
        (e: { code?: string; constraint?: string }) => (e.code === '23503' && e.constraint === 'subscription_account_id_fkey' ? 'refused' : `failed: ${String(e)}`),
      );
      await waitUntilBlocked(h.db, deleterPid, 'the delete waits for the subscription being written');
      await writer.query('COMMIT');
      assert.equal(await deleting, 'refused');
    } finally {
      await writer.end();
      await deleter.end();
    }
  });

  test('a subscription is not written for an account deleted by a transaction not yet committed', async () => {
    const account = await makeAccount(h, 'K-4');
    const deleter = new pg.Client({ connectionString: h.dbUrl });
    await deleter.connect();
    try {
      await deleter.query('BEGIN');
      await deleter.query('DELETE FROM account WHERE account_id = $1', [account]);
      const writing = insertSubscriptions([{ app: h.appCode, account, service: ids.serviceId, batch: ids.batchId }]).then(
        () => 'written',
        (e: { code?: string; constraint?: string }) => (e.code === '23503' && e.constraint === 'subscription_account_id_fkey' ? 'refused' : `failed: ${String(e)}`),
      );
      await new Promise((r) => setTimeout(r, 200));
      await deleter.query('COMMIT');
      assert.equal(await writing, 'refused');
      assert.equal(Number((await h.db.query('SELECT count(*) AS n FROM subscription WHERE account_id = $1', [account])).rows[0].n), 0);
    } finally {
      await deleter.end();
    }
  });

  // Migration 110: a ledger entry's account is checked by the balance update of its statement.
  test('ledger entries naming an account of another app, or none, are refused with their statement; an account with entries is kept', async () => {
    const account = await makeAccount(h, 'K-LEDGER');
    const entries = (rows: { app: number; account: number }[]) =>
      h.db.query(
        `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, created_by)
         SELECT r.app, r.account, DATE '2026-01-01', 'opening_balance', 10, 'test' FROM jsonb_to_recordset($1::jsonb) AS r(app int, account bigint)`,
        [JSON.stringify(rows)],
      );
    const balance = async () => (await h.db.query('SELECT balance::text AS b FROM account WHERE account_id = $1', [account])).rows[0].b;
    const good = { app: h.appCode, account };
    await assert.rejects(entries([good, { app: h.appCode, account: otherAccountId }]), refusedBy('ledger_entry_app_account_fkey'));
    await assert.rejects(entries([good, { app: h.appCode, account: 99_999_999 }]), refusedBy('ledger_entry_app_account_fkey'));
    assert.equal(await balance(), '0.0000');
    await entries([good, good]);
    assert.equal(await balance(), '20.0000');
    await assert.rejects(h.db.query('DELETE FROM account WHERE account_id = $1', [account]), (e: unknown) => (e as { code?: string }).code === '23503');
    await assert.rejects(h.db.query('UPDATE account SET app_code = $2 WHERE account_id = $1', [account, h.otherAppCode]), refusedBy('ledger_entry_app_account_fkey'));
  });

  test('a repeatable-read transaction, whose snapshot may predate committed children, deletes no parent', async () => {
    const account = await makeAccount(h, 'K-5');
    const deleter = new pg.Client({ connectionString: h.dbUrl });
    await deleter.connect();
    try {
      await deleter.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await deleter.query('SELECT count(*) FROM account');
      await insertSubscriptions([{ app: h.appCode, account, service: ids.serviceId, batch: ids.batchId }]);
      await assert.rejects(deleter.query('DELETE FROM account WHERE account_id = $1', [account]), (e: unknown) => {
        const err = e as { code?: string; message?: string };
        assert.equal(err.code, '23503', String(e));
        assert.match(String(err.message), /only at READ COMMITTED/);
        return true;
      });
      await deleter.query('ROLLBACK');
    } finally {
      await deleter.end();
    }
  });
});
