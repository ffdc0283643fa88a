// The run's failures of a term: which subscriptions were not billed and why, for the
// officer who fixes their data and calls retry-failures.
import type { Caller } from '../auth/roles.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import { listFailures } from '../billRun/termStore.ts';

export async function getFailures(db: Queryable, caller: Caller, termId: number, limit: number, offset: number) {
  const page = await listFailures(db, caller.appCode, termId, limit, offset);
  if (!page) throw notFound('term', 'data.termID');
  return {
    failures: page.rows.map((f) => ({
      subscriptionID: Number(f.subscription_id),
      accountID: Number(f.account_id),
      accountNumber: f.account_number,
      code: f.code,
      reason: f.reason,
      details: f.details,
      failedAt: f.failed_at,
    })),
    paging: { limit, offset, total: page.total },
  };
}
