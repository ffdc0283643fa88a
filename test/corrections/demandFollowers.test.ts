// Review: a demand register's previous reading bounds the period and is not subtracted
// (docs/rating.md, "A demand register"): correcting last month's demand changes no later
// bill. cancel-bill's chain (meterChain.ts, chainFollowers) still treats a demand meter's
// previous reading as the start of a running total: the next month's bill, whose amounts
// cannot move, is cancelled and rebilled with the corrected one (a credit note and an
// identical bill for the customer), or, not posted yet, refuses the correction.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { correctionCalls, envelope } from '../corrections/support.ts';
import { businessElectricity, businessMonth } from '../fixtures/tariffs.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const plan = businessElectricity(['B1', 'B2', 'B3']);

const month = (batchCode: string, m: number) => businessMonth(m, batchCode);

describe("review: correcting last month's demand and the next month's bill", () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, plan);
  });
  after(() => close());
  const { ok, billOf } = correctionCalls(() => h);

  async function run(batchCode: string, m: number, post: boolean) {
    const termID = await makeTerm(h, month(batchCode, m));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    if (post) assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    return termID;
  }
  async function customer(batchCode: string): Promise<Sub> {
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode });
    await addReadings(h, [[s!.subscriptionId, '2026-09-30', 1000], [s!.subscriptionId, '2026-10-31', 2000], [s!.subscriptionId, '2026-11-30', 3000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-09-30', 0], [s!.subscriptionId, '2026-10-31', 48], [s!.subscriptionId, '2026-11-30', 40]], h.appCode, 'DEMAND');
    return s!;
  }
  const correctDemand = async (s: Sub, value: string) => {
    const r = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND input_code = 'DEMAND' AND reading_date = '2026-10-31'`, [s.subscriptionId]);
    await ok('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(r.rows[0].reading_id), value, note: 'misread' }));
  };

  test("the dry run of October's rebill cancels October alone: November's 40 kW bill does not change", async () => {
    const s = await customer('B1');
    const oct = await run('B1', 10, true);
    const nov = await run('B1', 11, true);
    const novBill = await billOf(s, nov);
    // November: 1000 kWh x 0.1120 + 40 kW x 12.50 = 112.00 + 500.00
    assert.equal(novBill.total, '612.00');
    await correctDemand(s, '50');
    const octBill = await billOf(s, oct);
    const dry = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: octBill.billID, reason: 'demand misread', dryRun: true }));
    assert.deepEqual(dry.creditNotes.map((c: any) => c.billID), [octBill.billID]);
  });

  test("with November processed and not posted yet, October's correction is not refused for it", async () => {
    const s = await customer('B2');
    const oct = await run('B2', 10, true);
    await run('B2', 11, false);
    await correctDemand(s, '50');
    const r = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s, oct)).billID, reason: 'demand misread', dryRun: true }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test("October retried once its demand is read, after November was billed: billed, not refused as consumption billed twice", async () => {
    // October's demand was not read (energy was): October fails MISSING_READING and is posted without it;
    // November is billed, its demand the 30/11 reading (40 kW), the period bounded by 30/09.
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'B3' });
    await addReadings(h, [[s!.subscriptionId, '2026-09-30', 1000], [s!.subscriptionId, '2026-10-31', 2000], [s!.subscriptionId, '2026-11-30', 3000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-09-30', 0], [s!.subscriptionId, '2026-11-30', 40]], h.appCode, 'DEMAND');
    const oct = await makeTerm(h, month('B3', 10));
    for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) {
      const r = await step(h, n, a, { termID: oct });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await waitForStatus(h, oct, ['Processed']);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: oct })).status, 200);
    const nov = await run('B3', 11, true);
    assert.equal((await billOf(s!, nov)).total, '612.00');
    // October's demand is read late (48 kW on 31/10), and October retried: nothing of November's 40 kW is billed again.
    await ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(s!.subscriptionId), inputCode: 'DEMAND', readingDate: '31/10/2026', value: '48', kind: 'actual' }] }));
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: oct })).status, 200);
    await waitForStatus(h, oct, ['Posted']);
    const failures = (await ok('/billing/terms/get-failures', { ...envelope('Retrieve', 'Retrieve Term Failures', { termID: oct }), operation: 'schedule' })).failures as any[];
    assert.deepEqual(failures.map((f) => [f.code, f.reason]), []);
    // 1000 kWh x 0.1120 + 48 kW x 12.50 = 112.00 + 600.00
    assert.equal((await billOf(s!, oct))?.total, '712.00');
  });
});
