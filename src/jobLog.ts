// The log of a worker's jobs: one pino logger per process (the level of LOG_LEVEL, the same
// JSON lines as the HTTP server's), a child per job carrying its ids, so every line of a
// job says which job (jobId, task, attempt) and which term or delivery it was about.
import { pino, type Logger } from 'pino';
import type { Job } from 'graphile-worker';

const byLevel = new Map<string, Logger>();

/** The process's job logger at this level (made once per level, so that every task list of the process shares it). */
export function workerLog(level: string): Logger {
  let log = byLevel.get(level);
  if (!log) byLevel.set(level, (log = pino({ level })));
  return log;
}

/** The child logger of one job, with the job's ids and the given ones (termId, deliveryId ...). */
export function jobLog(log: Logger, job: Pick<Job, 'id' | 'task_identifier' | 'attempts'>, ids: Record<string, unknown> = {}): Logger {
  return log.child({ jobId: job.id, task: job.task_identifier, attempt: job.attempts, ...ids });
}
