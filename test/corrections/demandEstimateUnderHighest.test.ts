// Review 2: the cascade from estimates and a demand bill whose period ends on an estimate
// while an earlier actual reading of the period is its highest.
//
// September's register was not read at month end: validate-term's estimateMissing put 30/09 at
// last month's 45.0 kW. The check read of 15/09 (60.0 kW, the register reset) then arrived from
// the handheld before the run, so the bill priced 60.0 kW, its highest; its period still ends on
// the estimate (current: the estimate's id in the bill's source). The actual read of 30/09, 75.0 kW,
// then replaces the estimate (correct-reading). A rebill reads 75.0 kW: the month's demand was
// higher than the bill's. demandReplaced (src/corrections/estimates.ts) looks only at bills flagged
// `estimated`, and demandOf (src/rating/meterReadings.ts) flags the demand estimated only when the
// reading billed is an estimate: this bill, rated with an estimate, is "not estimated" and the
// cascade leaves it out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import { correctionCalls, envelope } from '../corrections/support.ts';
import { businessElectricity } from '../fixtures/tariffs.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const plan = businessElectricity(['E1']);

describe('review 2: an estimated month-end demand under an actual highest', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, plan);
  });
  after(() => close());
  const { ok, billOf } = correctionCalls(() => h);

  test("get-estimated-bills lists September's bill once the estimate its period ended on is replaced by the actual 75.0 kW", async () => {
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'E1' });
    const sub = Number(s!.subscriptionId);
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-31', 1000], [s!.subscriptionId, '2026-09-30', 2000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-31', 45]], h.appCode, 'DEMAND');
    const termID = await makeTerm(h, { serviceCode: 'BIZ', batchCode: 'E1', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID, estimateMissing: true });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const estimate = (await h.db.query(`SELECT reading_id, value::text FROM reading WHERE subscription_id = $1 AND input_code = 'DEMAND' AND reading_date = '2026-09-30' AND kind = 'estimated'`, [s!.subscriptionId])).rows[0];
    assert.ok(estimate, 'the month-end demand estimated');
    // The check read of 15/09 arrives before the run.
    await ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: sub, inputCode: 'DEMAND', readingDate: '15/09/2026', value: '60.0', kind: 'actual' }] }));
    for (const [name, action] of [['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) assert.equal((await step(h, name, action, { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Posted']);
    const sep = await billOf(s!, termID);
    const demand = sep.lines.find((l: any) => l.componentCode === 'DEMAND');
    assert.equal(demand.quantity, '60.0', demand.explanation);
    assert.equal(demand.trace.reading.current.estimated, true, 'the period ends on the estimate');

    // The register's actual read of 30/09 replaces the estimate: the month's demand was 75.0 kW.
    await ok('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(estimate.reading_id), value: '75.0', kind: 'actual' }));
    const listed = await ok('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: sub }), h.tokens.viewer);
    // billrun: [] (the bill is flagged estimated: false, since the reading billed, 15/09, is actual).
    assert.deepEqual(listed.bills.map((b: any) => b.billID), [sep.billID], `bill.estimated ${sep.estimated}; ${JSON.stringify(listed)}`);
  });
});
