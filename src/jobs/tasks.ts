// Every job the queue knows, by name. A task is one line that calls an operation of its
// feature; the logic lives in the feature, never here.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Config } from '../config.ts';

export function taskList(_db: pg.Pool, _config: Config): TaskList {
  return {};
}
