import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { makeTemplate, subscriptions } from '../terms/fixtures.ts';
import { processedTerm } from './support.ts';

// A term's documents once shared one named queue, which graphile-worker works one job
// per poll interval: 1,200 documents took 40 s on two idle workers.
describe("a term's documents through the queue", () => {
  let h: Harness;
  let worker: Runner | undefined;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
  });
  after(async () => {
    await worker?.stop();
    await h.close();
  });

  test('render on every free worker slot at once, not one job at a time', async () => {
    const subs = await subscriptions(h, { n: 300, readings: [['2026-10-31', 100]] });
    worker = await startWorker(h.db, h.config, 3);
    const termID = await processedTerm(h, subs);
    let most = 0;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await h.db.query<{ running: number; left: number }>(
        `SELECT count(*) FILTER (WHERE locked_by IS NOT NULL)::int AS running, count(*)::int AS left
           FROM graphile_worker.jobs WHERE task_identifier LIKE 'documents-%'`,
      );
      most = Math.max(most, r.rows[0]!.running);
      if (r.rows[0]!.left === 0) break;
      assert.ok(Date.now() < deadline, 'the documents were not rendered within two minutes');
      await new Promise((res) => setTimeout(res, 10));
    }
    const d = await h.db.query(`SELECT count(*) FILTER (WHERE status = 'rendered')::int AS rendered, count(*)::int AS n FROM bill_document WHERE term_id = $1`, [termID]);
    assert.deepEqual(d.rows[0], { rendered: 300, n: 300 });
    assert.ok(most >= 2, `at most ${most} render job ran at a time`);
  });
});
