// Bill-run work is done by graphile-worker runners that take jobs from the queue in the
// database, so any number of worker processes, on one machine or many, share one run.
import { run, type Runner } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { silentLogger } from '../db/migrate.ts';
import { taskList } from './tasks.ts';

export async function startWorker(db: pg.Pool, config: Config, concurrency = config.workerConcurrency): Promise<Runner> {
  return run({
    pgPool: db,
    taskList: taskList(db, config),
    concurrency,
    pollInterval: 500,
    noHandleSignals: true,
    logger: silentLogger(),
  });
}
