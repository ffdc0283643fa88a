// graphile-worker is pinned to one exact version (package.json) because the worker
// leans on its private shape in two places: src/jobs/worker.ts recognises the statements
// that complete or fail a job by their text (to send them again after a database
// restart), and src/jobs/liveness.ts matches a pool's id (from its events) to the jobs'
// locked_by and frees them with force_unlock_workers. An upgrade that changes any of it
// fails here, not silently in production.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { run, type Runner, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { RELEASES_A_JOB } from '../../src/jobs/worker.ts';
import { silentLogger } from '../../src/db/migrate.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** The pool as the queue sees it, every statement's text written down. */
function recording(db: pg.Pool, seen: string[]): pg.Pool {
  const client = (c: pg.PoolClient) =>
    new Proxy(c, {
      get(target, prop) {
        if (prop === 'query') {
          return (config: unknown, ...rest: unknown[]) => {
            seen.push(typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? ''));
            return (target.query as (...a: unknown[]) => unknown)(config, ...rest);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'connect') return (cb?: unknown) => (typeof cb === 'function' ? target.connect(cb as never) : target.connect().then(client));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('graphile-worker, as the worker relies on it', () => {
  let h: Harness;
  let runner: Runner | undefined;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await runner?.stop().catch(() => {});
    await h.close();
  });

  test('its statements that complete and fail a job are the ones worker.ts sends again; taking a job is not; a held job names its pool and is freed by force_unlock_workers', async () => {
    const seen: string[] = [];
    const pools: string[] = [];
    const events = new EventEmitter() as WorkerEvents;
    events.on('pool:create', ({ workerPool }) => pools.push(workerPool.id));
    let letGo = () => {};
    const held = new Promise<void>((r) => (letGo = r));
    let holding = () => {};
    const isHeld = new Promise<void>((r) => (holding = r));
    runner = await run({
      pgPool: recording(h.db, seen),
      taskList: {
        ok: async () => {},
        bad: async () => {
          throw new Error('a failure on purpose');
        },
        hold: async () => {
          holding();
          await held;
        },
      },
      concurrency: 2,
      pollInterval: 100,
      noHandleSignals: true,
      logger: silentLogger(),
      events,
    });
    // With and without a named queue: graphile-worker writes each differently.
    const add = (task: string, queue: string | null) => h.db.query('SELECT graphile_worker.add_job($1, $2::json, queue_name := $3, max_attempts := 1)', [task, '{}', queue]);
    for (const [task, queue] of [['ok', null], ['ok', 'q1'], ['bad', null], ['bad', 'q2']] as const) await add(task, queue);
    // The held job comes once the others are over: force_unlock_workers below frees every
    // job of the pool, and a failing job freed in flight lost its last_error (flaky on PG 15).
    for (let i = 0; i < 100; i++) {
      const left = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'ok' OR last_error IS NULL OR locked_by IS NOT NULL`);
      if (left.rows[0]!.n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await add('hold', null);
    await isHeld;
    const lock = await h.db.query<{ locked_by: string | null }>(`SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = 'hold'`);
    assert.ok(lock.rows[0]?.locked_by, 'a job being run is locked');
    assert.ok(pools.includes(lock.rows[0]!.locked_by!), 'the lock names a pool announced by pool:create (liveness.ts beats for those)');
    await h.db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [[lock.rows[0]!.locked_by]]);
    const freed = await h.db.query<{ locked_by: string | null }>(`SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = 'hold'`);
    assert.equal(freed.rows[0]?.locked_by, null, 'force_unlock_workers frees the job');

    letGo();
    const failed = await h.db.query<{ last_error: string | null }>(`SELECT last_error FROM graphile_worker.jobs WHERE task_identifier = 'bad'`);
    assert.deepEqual(failed.rows.map((r) => r.last_error), ['a failure on purpose', 'a failure on purpose']);
    assert.equal((await h.db.query(`SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'ok'`)).rowCount, 0, 'the ok jobs completed');
    await runner.stop();
    runner = undefined;

    const releases = seen.filter((t) => RELEASES_A_JOB.test(t));
    const completes = releases.filter((t) => /^\s*(with j as \(\s*)?delete from/i.test(t));
    const fails = releases.filter((t) => /last_error\s*=/i.test(t));
    assert.ok(completes.some((t) => /job_queues/.test(t)) && completes.some((t) => !/job_queues/.test(t)), `completing a job, with and without a queue, is recognised:\n${seen.join('\n---\n')}`);
    assert.ok(fails.some((t) => /job_queues/.test(t)) && fails.some((t) => !/job_queues/.test(t)), `failing a job, with and without a queue, is recognised:\n${seen.join('\n---\n')}`);
    const takes = seen.filter((t) => /skip locked/i.test(t));
    assert.ok(takes.length > 0, 'jobs are taken with skip locked');
    // Every statement that writes a job row is either a release (safe to send again) or a take (never sent again).
    for (const t of seen.filter((s) => /^\s*(with j as \(\s*)?(delete from|update)\b/i.test(s) && /_private_jobs/.test(s))) {
      assert.ok(RELEASES_A_JOB.test(t) || /skip locked/i.test(t), `a job write worker.ts does not know:\n${t}`);
    }
  });
});
