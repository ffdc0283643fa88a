// The endpoints' dispatch jobs on the graphile-worker queue, added with its SQL API in
// the caller's transaction (the event's, a replay's). One job per endpoint at a time:
// the job key folds a burst of events into one job, and the named queue keeps a second
// job (added while the first runs) from running beside it.
import type { Queryable } from '../db/pool.ts';

export const DISPATCH_TASK = 'webhook-dispatch';
// After bill-run work (priority 0), with e-mails (delivery/store.ts).
const PRIORITY = 5;

export type DispatchPayload = { endpointId: string };

/** Queues the dispatch of the given endpoints at runAt (null: now). */
export async function queueDispatch(db: Queryable, endpointIds: readonly string[], runAt: Date | null = null): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('endpointId', id), job_key := 'webhook:' || id, queue_name := 'webhook:' || id,
                                    run_at := coalesce($3::timestamptz, now()), max_attempts := 25, priority := $4)
       FROM unnest($2::text[]) id`,
    [DISPATCH_TASK, endpointIds, runAt, PRIORITY],
  );
}
