// Bill-run work is done by graphile-worker runners that take jobs from the queue in the
// database, so any number of worker processes, on one machine or many, share one run.
import { EventEmitter } from 'node:events';
import { run, type Runner, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { silentLogger } from '../db/migrate.ts';
import { taskList } from './tasks.ts';
import { keepAlive } from './liveness.ts';

export async function startWorker(db: pg.Pool, config: Config, concurrency = config.workerConcurrency): Promise<Runner> {
  const events = new EventEmitter() as WorkerEvents;
  // Jobs of a worker killed mid-run are taken over in seconds, not graphile-worker's four hours.
  const liveness = keepAlive(db, events, config.workerStaleSeconds);
  const runner = await run({
    pgPool: db,
    taskList: taskList(db, config),
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
