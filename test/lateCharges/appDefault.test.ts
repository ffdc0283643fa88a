// A template without a late-charge rule of its own takes the app's default, set by an
// admin through update-app (docs/administration.md, docs/late-charges.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { tariff } from '../terms/fixtures.ts';
import { makeAccount, postBill } from '../settlement/fixtures.ts';
import { eventually } from '../documents/support.ts';

const env = (method: string, action: string, data?: Record<string, unknown>) => ({ method, action, apiVersion: 'v2', ...(data ? { data } : {}) });

describe("the app's default late charge", () => {
  let h: Harness;
  let worker: Runner | undefined;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await worker?.stop();
    await h.close();
  });

  test('charges the bills of a template without a rule; none while the default is none; a template rule comes first', async () => {
    for (const [code, extra] of [['PLAIN', {}], ['OWN', { lateCharge: { graceDays: 0, flat: '7.00' } }]] as const) {
      const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: tariff(code, { batches: [`B-${code}`], ...extra }) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const world = async (code: string) => {
      const r = await h.db.query(
        `SELECT s.service_id, v.service_version_id, (SELECT min(batch_id) FROM service_batch sb WHERE sb.service_id = s.service_id) AS batch_id
           FROM service s JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version WHERE s.app_code = $1 AND s.service_code = $2`,
        [h.appCode, code],
      );
      return { appCode: h.appCode, serviceId: r.rows[0].service_id, versionId: r.rows[0].service_version_id, batchId: r.rows[0].batch_id };
    };
    const plain = await world('PLAIN');
    const own = await world('OWN');
    const a1 = await makeAccount(h.db, plain, 'AD-1');
    const a2 = await makeAccount(h.db, own, 'AD-2');
    await postBill(h.db, plain, a1, { billDate: '2026-12-31', dueDate: '2027-01-10', lines: ['200.00'] });
    await postBill(h.db, own, a2, { billDate: '2026-12-31', dueDate: '2027-01-10', lines: ['200.00'] });
    worker = await startWorker(h.db, h.config, 2);
    const run = async () => {
      const since = (await h.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
      assert.equal((await h.post('/billing/late-charges/run-late-charges', env('Create', 'Run Late Charges'))).status, 200);
      await eventually(async () => ((await h.db.query('SELECT 1 FROM late_charge_day WHERE app_code = $1 AND finished_at > $2', [h.appCode, since])).rowCount === 1 ? true : undefined), 'the run', 60_000);
      const r = await h.post('/billing/late-charges/get-late-charges', env('Retrieve', 'Retrieve Late Charges', {}), h.tokens.viewer);
      return (r.body.data.lateCharges as any[]).map((c) => [c.accountNumber, c.amount]).sort();
    };
    // The default is none: only the template with its own rule is charged.
    assert.deepEqual(await run(), [['AD-2', '7.00']]);
    const set = await h.post('/admin/update-app', env('Update', 'Update App', { lateCharge: { graceDays: 5, kind: 'percentage', amount: '10', minimum: '25.00', maximum: null } }));
    assert.equal(set.status, 200, JSON.stringify(set.body));
    // 10% of 200 = 20, raised to the minimum 25.00; AD-2 keeps its own rule and is not charged twice.
    assert.deepEqual(await run(), [['AD-1', '25.00'], ['AD-2', '7.00']]);
  });
});
