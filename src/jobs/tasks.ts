// Every job the queue knows, by name. A task is one line that calls an operation of its
// feature; the logic lives in the feature, never here.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { termTasks } from '../billRun/tasks.ts';
import { documentTasks } from '../documents/tasks.ts';
import { deliveryTasks } from '../delivery/tasks.ts';
import { verificationTasks } from '../verification/tasks.ts';
import { webhookTasks } from '../webhooks/tasks.ts';
import { lateChargeTasks } from '../lateCharges/tasks.ts';
import { simulationTasks } from '../simulation/tasks.ts';
import { scheduleTasks } from '../schedules/tasks.ts';
import { workerLog } from '../jobLog.ts';

export function taskList(db: pg.Pool, config: Config): TaskList {
  return {
    ...termTasks(db, config.billRunChunkSize, workerLog(config.logLevel)),
    ...documentTasks(db),
    ...deliveryTasks(db, config, workerLog(config.logLevel)),
    ...verificationTasks(db),
    ...webhookTasks(db, config),
    ...lateChargeTasks(db),
    ...simulationTasks(db, config.billRunChunkSize),
    ...scheduleTasks(db, config.billRunChunkSize),
  };
}
