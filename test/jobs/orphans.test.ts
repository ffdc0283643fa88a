// A job still locked by a live worker's pool that the worker is not running (its release
// lost while the database restarted) is unlocked by that worker and run again; before,
// the run stalled for good (test/hardening/faults.test.ts, "immediate shutdown mid-run").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';

describe("a worker's orphaned job", () => {
  let h: Harness;
  let worker: Runner | undefined;
  before(async () => {
    h = await startHarness({ workerStaleSeconds: 2 });
  });
  after(async () => {
    await worker?.stop();
    await h.close();
  });

  test('locked by its live pool but not running: unlocked within seconds, so the queue runs it again', async () => {
    worker = await startWorker(h.db, h.config, 1);
    let pool: string | undefined;
    for (let i = 0; i < 50 && !pool; i++) {
      pool = (await h.db.query<{ pool_id: string }>('SELECT pool_id FROM worker_heartbeat LIMIT 1')).rows[0]?.pool_id;
      if (!pool) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(pool, 'the worker beats');
    // A job due in an hour (so the worker does not take it), locked by the worker's own pool a minute ago.
    const job = await h.db.query<{ id: string }>(`SELECT id FROM graphile_worker.add_job('term-plan', '{"termId":"0","round":1}', run_at := now() + interval '1 hour')`);
    const id = job.rows[0]!.id;
    await h.db.query(`UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - interval '1 minute' WHERE id = $1`, [id, pool]);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await h.db.query<{ locked_by: string | null }>('SELECT locked_by FROM graphile_worker.jobs WHERE id = $1', [id]);
      if (r.rows[0]!.locked_by === null) break;
      assert.ok(Date.now() < deadline, 'the orphaned job is still locked after 15 s');
      await new Promise((res) => setTimeout(res, 200));
    }
  });
});
