// Bill-run work is done by graphile-worker runners that take jobs from the queue in the
// database, so any number of worker processes, on one machine or many, share one run.
import { EventEmitter } from 'node:events';
import { run, type Runner, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { silentLogger } from '../db/migrate.ts';
import { taskList } from './tasks.ts';
import { LATE_CHARGE_CRONTAB } from '../lateCharges/tasks.ts';
import { SCHEDULE_CRONTAB } from '../schedules/tasks.ts';
import { keepAlive } from './liveness.ts';
import { isDatabaseUnavailable } from '../errors.ts';

/** How long the queue's own bookkeeping waits for a database that went away before giving up. */
const QUEUE_WAITS_FOR_DATABASE_MS = 120_000;

/**
 * The pool as graphile-worker sees it: a connection refused while PostgreSQL restarts is
 * waited out instead of thrown, and a pooled connection that died with the server is
 * replaced before use, and a job's completion cut off mid-statement is sent again.
 * graphile-worker retries only a few error codes, and when
 * marking a failed job fails with ECONNREFUSED the rejection goes unhandled and kills the
 * worker process: a restart of the database mid-run then stalled the run
 * (test/hardening/faults.test.ts). The callback form (its LISTEN connection, which has
 * its own back-off) and everything else go to the pool itself; the tasks use the pool
 * directly and fail fast, to be retried by the queue.
 */
// graphile-worker's statements that complete or fail a job: a delete or update of the job
// row (guarded by the job's id and lock), so running one again on a new connection is
// harmless. Taking a job (select ... for update skip locked) is never repeated: a lost
// answer there would leave a job locked by a live worker. This reads graphile-worker's
// private SQL: the library offers no retry for a connection lost mid-release (see
// docs/operations.md), so its version is pinned exactly and test/jobs/queueShape.test.ts
// fails when an upgrade changes these statements.
export const RELEASES_A_JOB = /^\s*(with j as \(\s*)?(delete from|update)\s+\S*_private_jobs\b/i;

/** A pooled client whose job-release statements are run again on a new connection when the old one died mid-statement. */
function releasesRetried(first: pg.PoolClient, reconnect: () => Promise<pg.PoolClient>): pg.PoolClient {
  let current = first;
  return new Proxy(first, {
    get(_target, prop) {
      if (prop === 'query') {
        return async (config: unknown, values?: unknown) => {
          try {
            return await current.query(config as never, values as never);
          } catch (err) {
            const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
            if (!isDatabaseUnavailable(err) || !RELEASES_A_JOB.test(text) || /skip locked/i.test(text)) throw err;
            current.release(err as Error);
            current = await reconnect();
            return current.query(config as never, values as never);
          }
        };
      }
      if (prop === 'release') return (err?: Error | boolean) => current.release(err);
      const value = Reflect.get(current, prop, current);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

function patientPool(db: pg.Pool, waitMs: number): pg.Pool {
  const connect: () => Promise<pg.PoolClient> = async () => {
    const deadline = Date.now() + waitMs;
    for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
      try {
        const client = await db.connect();
        // An idle connection that died with the server is found here, not by the queue's own query.
        await client.query('SELECT 1').catch((err: Error) => {
          client.release(err);
          throw err;
        });
        return releasesRetried(client, connect);
      } catch (err) {
        if (!isDatabaseUnavailable(err) || Date.now() + delay > deadline) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'connect') return (callback?: unknown) => (typeof callback === 'function' ? target.connect(callback as never) : connect());
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export async function startWorker(db: pg.Pool, config: Config, concurrency = config.workerConcurrency): Promise<Runner> {
  const events = new EventEmitter() as WorkerEvents;
  // Jobs of a worker killed mid-run are taken over in seconds, not graphile-worker's four hours.
  const liveness = keepAlive(db, events, config.workerStaleSeconds);
  const runner = await run({
    pgPool: patientPool(db, QUEUE_WAITS_FOR_DATABASE_MS),
    taskList: taskList(db, config),
    crontab: [LATE_CHARGE_CRONTAB, SCHEDULE_CRONTAB].join('\n'),
    concurrency,
    pollInterval: 500,
    noHandleSignals: true,
    logger: silentLogger(),
    events,
  });
  const stop = runner.stop.bind(runner);
  runner.stop = async (reason?: string) => {
    await stop(reason);
    await liveness.stop();
  };
  return runner;
}
