// What the late-charge tests share: the day's run through HTTP and its queue, and the
// charges as get-late-charges answers them. Today is pinned to 31/01/2027
// (test/support/harness.ts).
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { eventually } from '../documents/support.ts';

const env = (method: string, action: string, data?: Record<string, unknown>) => ({ method, action, apiVersion: 'v2', ...(data ? { data } : {}) });

/** Queues today's run through HTTP and waits until a run of today has finished after the call. */
export async function runOnce(h: Harness): Promise<void> {
  const since = (await h.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
  const r = await h.post('/billing/late-charges/run-late-charges', env('Create', 'Run Late Charges'));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.data, {});
  assert.equal(r.headers.get('x-billrun-charge-date'), '31/01/2027');
  await eventually(async () => {
    const d = await h.db.query(`SELECT 1 FROM late_charge_day WHERE app_code = $1 AND charge_date = '2027-01-31' AND finished_at > $2`, [h.appCode, since]);
    return d.rowCount === 1 ? true : undefined;
  }, 'the late-charge run finished', 60_000);
}

/** get-late-charges (as a viewer), newest first. */
export const lateCharges = async (h: Harness, data: Record<string, unknown> = {}) => {
  const r = await h.post('/billing/late-charges/get-late-charges', env('Retrieve', 'Retrieve Late Charges', data), h.tokens.viewer);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.lateCharges as any[];
};
