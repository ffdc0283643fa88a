// Review 2: estimateMissing's demand after a month billed on its highest reading.
// docs/rating.md, "A demand register": "an estimate of a missing demand (estimateMissing) is the
// reading before it, the last period's demand". Since the period's demand is its highest reading
// (withDemandHighs), the reading before is no longer the last period's demand: August billed
// 60.0 kW (a check read of 15/08 that reset the register) and ended on 40.0 kW (31/08), and
// September's missing demand is estimated at 40.0 kW (estimateReading, src/rating/readingHistory.ts,
// fed the previous reading alone by estimateMissing, src/billRun/checkReadings.ts). validate-term's
// UNUSUAL_CONSUMPTION judges a demand against "the period's before" the same way (unusualDemand,
// fed previousOf(row) by unusualConsumption): September's 50.0 kW is called more than 3 times
// August's 15.0 kW, though August billed 60.0.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import { correctionCalls } from '../corrections/support.ts';
import { businessElectricity, businessMonth } from '../fixtures/tariffs.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const plan = businessElectricity(['H1', 'H2']);

const month = (m: number, batchCode = 'H1') => businessMonth(m, batchCode);

describe('review 2: a missing demand estimated after a month billed on its highest reading', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, plan);
  });
  after(() => close());
  const { billOf } = correctionCalls(() => h);
  const demandOf = (bill: any) => bill.lines.find((l: any) => l.componentCode === 'DEMAND');

  async function run(m: number, validate: Record<string, unknown> = {}) {
    const termID = await makeTerm(h, month(m));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID, ...validate });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    for (const [name, action] of [['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) assert.equal((await step(h, name, action, { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    return termID;
  }

  test("September's missing demand is estimated at August's demand, 60.0 kW, not at August's last reading", async () => {
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'H1' });
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-31', 1000], [s!.subscriptionId, '2026-09-30', 2000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-15', 60], [s!.subscriptionId, '2026-08-31', 40]], h.appCode, 'DEMAND');
    const aug = await run(8);
    assert.equal(demandOf(await billOf(s!, aug)).quantity, '60.0');
    const sep = await run(9, { estimateMissing: true });
    const line = demandOf(await billOf(s!, sep));
    assert.equal(line.trace.reading.estimated, true);
    // billrun: 40.0 (500.00), "DEMAND estimated at 40.0 on 30/09/2026".
    assert.equal(line.quantity, '60.0', line.explanation);
  });

  test("September's 50.0 kW is not warned of as more than 3 times the period's before: August's demand was 60.0 kW, not its last reading's 15.0", async () => {
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'H2' });
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-31', 1000], [s!.subscriptionId, '2026-09-30', 2000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-07-31', 0], [s!.subscriptionId, '2026-08-15', 60], [s!.subscriptionId, '2026-08-31', 15], [s!.subscriptionId, '2026-09-30', 50]], h.appCode, 'DEMAND');
    const sep = await makeTerm(h, month(9, 'H2'));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID: sep })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID: sep });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const mine = (v.body.data.exceptions ?? []).filter((e: any) => e.subscriptionID === Number(s!.subscriptionId));
    // billrun: UNUSUAL_CONSUMPTION "DEMAND: a demand of 50 is more than 3 times above the period's before, 15".
    assert.deepEqual(mine.map((e: any) => e.message), []);
  });
});
