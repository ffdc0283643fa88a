import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, step, subscriptions, termOf, waitForStatus } from './fixtures.ts';

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

/** Exactly one live bill per roster subscription, numbers 1..n without a gap. */
async function assertExactlyOnce(h: Harness, termID: number, n: number) {
  const r = await h.db.query(
    `SELECT (SELECT count(*)::int FROM term_subscription WHERE term_id = $1) AS roster,
            count(*)::int AS bills, count(DISTINCT b.subscription_id)::int AS subs,
            min(b.bill_number)::int AS lo, max(b.bill_number)::int AS hi,
            count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM term_subscription ts WHERE ts.term_id = $1 AND ts.subscription_id = b.subscription_id))::int AS strays
       FROM bill b WHERE b.term_id = $1 AND b.status <> 'withdrawn'`,
    [termID],
  );
  assert.deepEqual(r.rows[0], { roster: n, bills: n, subs: n, lo: 1, hi: n, strays: 0 });
}

describe('the run survives a killed worker and is shared by several', () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await h.close();
  });

  test('kill -9 mid-run, another worker resumes: one bill per roster subscription, numbers without gaps', async () => {
    const n = 1200;
    await subscriptions(h, { n, readings: [['2026-10-31', 100], ['2026-11-30', 131]] });
    const termID = await makeTerm(h);
    const first = workerProcess(h);
    children.push(first);
    await running(first);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    // Mid-run: some chunks committed, others not yet.
    for (;;) {
      const t = await termOf(h, { termID });
      if (t.job.progress.chunksDone >= 3) break;
      assert.notEqual(t.status, 'Processed', 'the run ended before it could be killed');
      await new Promise((r) => setTimeout(r, 20));
    }
    first.kill('SIGKILL');
    await exited(first);
    const stalled = await termOf(h, { termID });
    assert.equal(stalled.status, 'Processing');
    assert.ok(stalled.job.progress.chunksDone < stalled.job.progress.chunksTotal);

    const second = workerProcess(h);
    children.push(second);
    const t = await waitForStatus(h, termID, ['Processed'], 60000);
    assert.equal(t.counts.bills, n);
    assert.equal(t.counts.failures, 0);
    assert.equal(t.job.progress.percent, 100);
    await assertExactlyOnce(h, termID, n);
    second.kill('SIGTERM');
    await exited(second);
  });

  test('two worker processes share one run', async () => {
    const n = 800;
    await subscriptions(h, { n, batchCode: 'ZONE-B', readings: [['2026-10-31', 5], ['2026-11-30', 9]] });
    const termID = await makeTerm(h, { batchCode: 'ZONE-B' });
    const a = workerProcess(h);
    const b = workerProcess(h);
    children.push(a, b);
    await Promise.all([running(a), running(b)]);
    // The first term's documents are still being rendered (a worker of concurrency 1 busy
    // with them takes no chunk, as on a slow CI machine): let the queue drain first.
    await queueDrained(h, 120000);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Processed'], 60000);
    // Bill numbers continue the app's sequence from the first test.
    const r = await h.db.query(
      `SELECT count(*)::int AS bills, count(DISTINCT subscription_id)::int AS subs, max(bill_number) - min(bill_number) + 1 AS span
         FROM bill WHERE term_id = $1`,
      [termID],
    );
    assert.deepEqual(r.rows[0], { bills: n, subs: n, span: String(n) });
    const pools = await h.db.query('SELECT count(DISTINCT done_by)::int AS n FROM term_chunk WHERE term_id = $1', [termID]);
    assert.equal(pools.rows[0].n, 2, 'both workers committed chunks');
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    await Promise.all([exited(a), exited(b)]);
  });
});
