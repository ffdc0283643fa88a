import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startHarness, type Harness } from '../support/harness.ts';
import { runChunk } from '../../src/billRun/runChunk.ts';
import { addReadings, makeTemplate, makeTerm, step, subscriptions, tariff, termOf, waitForStatus } from '../terms/fixtures.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** A worker process like `npm run worker`, on the test's database, with small chunks. */
function workerProcess(h: Harness): ChildProcess {
  return spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: h.dbUrl,
      LOG_LEVEL: 'silent',
      WORKER_CONCURRENCY: '1',
      BILLRUN_CHUNK_SIZE: '40',
      BILLRUN_WORKER_STALE_SECONDS: '2',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/**
 * Resolves once the worker says it is running: a worker still starting when the run is
 * queued leaves every chunk to the other one (seen on a slow CI machine).
 */
function running(c: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    c.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      seen += chunk.toString();
      if (seen.includes('worker running')) resolve();
    });
    c.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was running: ${seen}`)));
  });
}

async function queueDrained(h: Harness, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await h.db.query<{ task_identifier: string; n: number }>('SELECT task_identifier, count(*)::int AS n FROM graphile_worker.jobs GROUP BY 1');
    if (r.rowCount === 0) return;
    if (Date.now() > until) assert.fail(`jobs still queued: ${JSON.stringify(r.rows)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const exited = (c: ChildProcess) => new Promise((resolve) => (c.exitCode !== null ? resolve(c.exitCode) : c.once('exit', resolve)));

/**
 * Exactly one live account bill per account of the roster, numbers 1..n without a gap,
 * and every roster subscription in exactly one bill's groups (never none, never two).
 */
async function assertOncePerAccount(h: Harness, termID: number, accounts: number, subs: number) {
  const r = await h.db.query(
    `SELECT count(*)::int AS bills, count(DISTINCT b.account_id)::int AS accounts, min(b.bill_number)::int AS lo, max(b.bill_number)::int AS hi,
            count(*) FILTER (WHERE b.subscription_id IS NOT NULL)::int AS subscription_bills
       FROM bill b WHERE b.term_id = $1 AND b.status <> 'withdrawn'`,
    [termID],
  );
  assert.deepEqual(r.rows[0], { bills: accounts, accounts, lo: 1, hi: accounts, subscription_bills: 0 });
  const g = await h.db.query(
    `WITH billed AS (
       SELECT (e->>'subscriptionId')::bigint AS subscription_id, b.account_id
         FROM bill b, json_array_elements(b.groups) e WHERE b.term_id = $1 AND b.status <> 'withdrawn')
     SELECT (SELECT count(*)::int FROM term_subscription WHERE term_id = $1) AS roster,
            (SELECT count(*)::int FROM billed) AS grouped,
            (SELECT count(DISTINCT subscription_id)::int FROM billed) AS distinct_grouped,
            (SELECT count(*)::int FROM term_subscription ts WHERE ts.term_id = $1
                AND NOT EXISTS (SELECT 1 FROM billed x JOIN subscription s ON s.subscription_id = x.subscription_id
                                 WHERE x.subscription_id = ts.subscription_id AND s.account_id = x.account_id)) AS unbilled`,
    [termID],
  );
  assert.deepEqual(g.rows[0], { roster: subs, grouped: subs, distinct_grouped: subs, unbilled: 0 });
}

describe('a Post Account run survives a killed worker', () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  before(async () => {
    h = await startHarness();
    await makeTemplate(h, tariff('WATER', { postType: 'Post Account' }));
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await h.close();
  });

  test('kill -9 mid-run, another worker resumes: one bill per account holding each of its subscriptions once', async () => {
    const accounts = 600;
    // Each account: one subscription from the fixture, and a second one added below, so an
    // account's subscription ids are far apart (a chunk of subscription ids would split it).
    const first = await subscriptions(h, { n: accounts, readings: [['2026-10-31', 100], ['2026-11-30', 131]] });
    const second = await h.db.query<{ subscription_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       SELECT s.app_code, s.account_id, s.service_id, s.batch_id, s.start_date, 'fixture', 'fixture'
         FROM subscription s WHERE s.subscription_id = ANY($1::bigint[]) ORDER BY s.subscription_id RETURNING subscription_id`,
      [first.map((s) => s.subscriptionId)],
    );
    await addReadings(h, second.rows.flatMap((s) => [[s.subscription_id, '2026-10-31', 7] as [string, string, number], [s.subscription_id, '2026-11-30', 12] as [string, string, number]]));
    const termID = await makeTerm(h);
    const w1 = workerProcess(h);
    children.push(w1);
    await running(w1);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    // Mid-run: some chunks committed, others not yet.
    for (;;) {
      const t = await termOf(h, { termID });
      if (t.job.progress.chunksDone >= 3) break;
      assert.notEqual(t.status, 'Processed', 'the run ended before it could be killed');
      await new Promise((r) => setTimeout(r, 20));
    }
    w1.kill('SIGKILL');
    await exited(w1);
    const stalled = await termOf(h, { termID });
    assert.equal(stalled.status, 'Processing');
    assert.ok(stalled.job.progress.chunksDone < stalled.job.progress.chunksTotal);
    // Chunks are ranges of accounts: 40 subscriptions each, so 20 accounts each.
    assert.equal(stalled.job.progress.chunksTotal, 30);

    const w2 = workerProcess(h);
    children.push(w2);
    const t = await waitForStatus(h, termID, ['Processed'], 60000);
    assert.equal(t.counts.bills, accounts);
    assert.equal(t.counts.failures, 0);
    await assertOncePerAccount(h, termID, accounts, 2 * accounts);
    // Each account bill's total is the sum of its groups' subtotals.
    const sums = await h.db.query(
      `SELECT count(*) FILTER (WHERE b.total <> (SELECT sum((e->>'total')::numeric) FROM json_array_elements(b.groups) e))::int AS off
         FROM bill b WHERE b.term_id = $1`,
      [termID],
    );
    assert.equal(sums.rows[0].off, 0);
    w2.kill('SIGTERM');
    await exited(w2);

    // A chunk found not done again (as if its job ran a second time) rates its accounts'
    // subscriptions, finds every account billed, and writes nothing.
    const round = (await h.db.query<{ job_round: number }>('SELECT job_round FROM term WHERE term_id = $1', [termID])).rows[0]!.job_round;
    await h.db.query(`UPDATE term SET status = 'Processing' WHERE term_id = $1`, [termID]);
    await h.db.query('UPDATE term_chunk SET done_at = NULL WHERE term_id = $1 AND round = $2 AND chunk_no = 0', [termID, round]);
    const done = await runChunk(h.db, String(termID), round, 0, null, 'test');
    assert.deepEqual(done, { bills: 0, failures: 0 });
    await assertOncePerAccount(h, termID, accounts, 2 * accounts);
  });
});
