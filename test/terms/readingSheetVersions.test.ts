// Review: get-reading-sheet on a term spanning a version change that adds a meter. A
// subscription terminated before the new version's first day is billed by the old version
// alone (rateSegments.ts: the versions in force over its part of the term), which reads no
// such meter; the sheet still lists that meter for it, dated at its end, and unreadOnly
// keeps it in every second round.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { Harness } from '../support/harness.ts';
import { addReadings, env, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import { fetchFile } from '../documents/support.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const v1 = {
  code: 'BIZ',
  name: 'Small business electricity',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 14,
  meteredInputs: [{ code: 'ENERGY', label: 'Energy', unit: 'kWh', decimals: 0 }],
  components: [{ code: 'ENERGY', name: 'Energy', model: 'perUnit', input: 'ENERGY', rate: '0.1120' }],
  batches: ['B1'],
} as ServiceDefinition;
// From 16/11/2026 a demand charge on a demand register.
const v2 = {
  ...v1,
  meteredInputs: [...v1.meteredInputs!, { code: 'DEMAND', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
  components: [...v1.components!, { code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate: '12.50' }],
} as ServiceDefinition;

describe('review: the reading sheet of a term spanning a version that adds a meter', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('a subscription terminated before the new version is not asked for its meter', async () => {
    await makeTemplate(h, v1);
    const [stays] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'B1' });
    const [ends] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'B1', endDate: '2026-11-10' });
    await addReadings(h, [[stays!.subscriptionId, '2026-10-31', 1000], [stays!.subscriptionId, '2026-11-30', 2000], [ends!.subscriptionId, '2026-10-31', 1000], [ends!.subscriptionId, '2026-11-10', 1300]], h.appCode, 'ENERGY');
    await addReadings(h, [[stays!.subscriptionId, '2026-11-15', 0], [stays!.subscriptionId, '2026-11-30', 40]], h.appCode, 'DEMAND');
    const termID = await makeTerm(h, { serviceCode: 'BIZ', batchCode: 'B1' });
    const u = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service: v2, effectiveFrom: '16/11/2026' });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);

    const rows: Record<string, string>[] = parse((await fetchFile(h, '/billing/terms/get-reading-sheet', env({ termID }, 'Retrieve', 'Retrieve Reading Sheet'))).bytes, { columns: true });
    const unread: Record<string, string>[] = parse((await fetchFile(h, '/billing/terms/get-reading-sheet', env({ termID, unreadOnly: true }, 'Retrieve', 'Retrieve Reading Sheet'))).bytes, { columns: true });

    // The terminated subscription is billed without a demand reading: its bill is the energy alone (300 kWh x 0.1120).
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.deepEqual((v.body.data.exceptions ?? []).filter((e: any) => e.severity === 'error'), []);
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    const got = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } }, h.tokens.viewer);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const bills = got.body.data.bills;
    const endsBill = bills.find((b: any) => String(b.subscriptionID) === ends!.subscriptionId);
    assert.deepEqual(endsBill.lines.map((l: any) => [l.componentCode, l.amount]), [['ENERGY', '33.60']]);

    // The sheet: no DEMAND row for it (there was one, dated 10/11/2026, and it stayed in the unread round).
    assert.deepEqual(rows.filter((r) => r.subscriptionID === ends!.subscriptionId).map((r) => r.inputCode), ['ENERGY']);
    assert.deepEqual(unread.map((r) => [r.subscriptionID, r.inputCode]), []);
  });
});
