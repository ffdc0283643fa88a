// graphile-worker frees the jobs of a worker that died (kill -9, a lost machine) only
// after four hours. Each worker pool here beats in worker_heartbeat; every live worker
// frees the jobs held by pools that stopped beating, so another worker takes them over
// within seconds. A job taken over is safe to run twice: the bill run's jobs are built
// to find their work already done. It relies on graphile-worker's public jobs view and
// force_unlock_workers, and on a job's locked_by being the id its pool announces in
// 'pool:create': test/jobs/queueShape.test.ts checks all three against the pinned version.
import os from 'node:os';
import type { WorkerEvents } from 'graphile-worker';
import type pg from 'pg';

export type Liveness = { stop: () => Promise<void> };

/** Call before run(), with the events emitter given to it: pools are announced while run() starts. */
export function keepAlive(db: pg.Pool, events: WorkerEvents, staleSeconds: number): Liveness {
  const pools = new Set<string>();
  // The jobs this process is running now. A job still locked by one of its pools but not
  // running is an orphan: its release (graphile-worker's failJob or completeJob) was lost
  // while the database restarted, and as the pool still beats nobody would take the job
  // over (test/hardening/faults.test.ts, "immediate shutdown mid-run": the run stalled
  // at 49 of 50 chunks).
  const running = new Set<string>();
  const every = Math.max(500, Math.floor((staleSeconds * 1000) / 4));
  const beat = async () => {
    if (pools.size === 0) return;
    await db.query(
      `INSERT INTO worker_heartbeat (pool_id, host, pid) SELECT id, $2, $3 FROM unnest($1::text[]) AS id
       ON CONFLICT (pool_id) DO UPDATE SET beat_at = now()`,
      [[...pools], os.hostname(), process.pid],
    );
  };
  // Frees jobs locked by a pool whose beat is stale (or that never beat, once the lock
  // itself is that old), then forgets pools long gone.
  const sweep = async () => {
    const dead = await db.query<{ locked_by: string }>(
      `SELECT DISTINCT j.locked_by FROM graphile_worker.jobs j
        WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM worker_heartbeat h WHERE h.pool_id = j.locked_by AND h.beat_at > now() - make_interval(secs => $1))`,
      [staleSeconds],
    );
    if (dead.rows.length > 0) {
      await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [dead.rows.map((r) => r.locked_by)]);
    }
    await db.query(`DELETE FROM worker_heartbeat WHERE beat_at < now() - interval '1 day'`);
    // Orphans of this process's own pools: unlocked as graphile-worker's own release would
    // (the job row, and its named queue when it holds one), to be run again.
    if (pools.size > 0) {
      await db.query(
        `WITH j AS (
           UPDATE graphile_worker._private_jobs SET locked_by = NULL, locked_at = NULL
            WHERE locked_by = ANY($1::text[]) AND locked_at < now() - make_interval(secs => $2) AND NOT (id::text = ANY($3::text[]))
           RETURNING job_queue_id)
         UPDATE graphile_worker._private_job_queues q SET locked_by = NULL, locked_at = NULL
           FROM j WHERE q.id = j.job_queue_id AND q.locked_by = ANY($1::text[])`,
        [[...pools], staleSeconds, [...running]],
      );
    }
  };
  events.on('pool:create', ({ workerPool }) => {
    pools.add(workerPool.id);
    void beat().catch(() => {});
  });
  events.on('pool:release', ({ workerPool }) => {
    pools.delete(workerPool.id);
  });
  events.on('job:start', ({ job }) => {
    running.add(String(job.id));
  });
  events.on('job:complete', ({ job }) => {
    running.delete(String(job.id));
  });
  const timer = setInterval(() => {
    void beat()
      .then(sweep)
      .catch(() => {}); // the database away for a moment: the next tick tries again
  }, every);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      const ids = [...pools];
      pools.clear();
      if (ids.length > 0) await db.query('DELETE FROM worker_heartbeat WHERE pool_id = ANY($1::text[])', [ids]).catch(() => {});
    },
  };
}
