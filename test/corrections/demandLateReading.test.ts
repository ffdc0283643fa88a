// Review 2: a demand register's reading recorded late inside a billed month (a check read of
// 30/09 captured after September was approved, September billed on the 28/09 read).
// docs/rating.md, "A demand register": the reading before bounds the period (when the
// register was reset) and "a later actual demand says nothing of an earlier month's";
// loadRosterInputs says "A demand register's bill does not start where another ends". Yet
// chainToEarlierBills (meterChain.ts) still moves a demand meter's previous reading back to
// where September's bill ended (28/09), and withDemandHighs (rateRoster.ts) then looks for
// October's highest demand from 28/09: October is billed September's 90 kW peak. Cancelling
// September (its rebill now reads the 30/09 reading) bills the same 90 kW a second time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { correctionCalls, envelope } from '../corrections/support.ts';
import { businessElectricity, businessMonth } from '../fixtures/tariffs.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const plan = businessElectricity(['L1']);

const month = (m: number) => businessMonth(m, 'L1');

describe('review 2: a demand reading recorded late in a billed month', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, plan);
  });
  after(() => close());
  const { ok, billOf, billsOf } = correctionCalls(() => h);

  async function run(m: number) {
    const termID = await makeTerm(h, month(m));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Posted']);
    return termID;
  }
  const demandOf = (bill: any) => bill.lines.find((l: any) => l.componentCode === 'DEMAND');
  const capture = (s: Sub, date: string, value: string) =>
    ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(s.subscriptionId), inputCode: 'DEMAND', readingDate: date, value, kind: 'actual' }] }));

  test("October's bill is billed on October's own demand (50.0 kW), not on September's 30/09 read recorded late; the 90 kW is billed once", async () => {
    const [s] = await subscriptions(h, { n: 1, serviceCode: 'BIZ', batchCode: 'L1' });
    await addReadings(h, [[s!.subscriptionId, '2026-08-31', 1000], [s!.subscriptionId, '2026-09-30', 2000], [s!.subscriptionId, '2026-10-31', 3000]], h.appCode, 'ENERGY');
    await addReadings(h, [[s!.subscriptionId, '2026-08-31', 0], [s!.subscriptionId, '2026-09-28', 40]], h.appCode, 'DEMAND');
    const sep = await run(9);
    assert.equal(demandOf(await billOf(s!, sep)).quantity, '40.0');
    // Read (and reset) on 30/09 at 90.0 kW, recorded after September was billed; October read 50.0 kW.
    await capture(s!, '30/09/2026', '90.0');
    await capture(s!, '31/10/2026', '50.0');
    const oct = await run(10);
    const octDemand = demandOf(await billOf(s!, oct));
    // billrun: 90.0 kW (1125.00), "the highest since the reading of 28/09/2026, above the last, 50.0 on 31/10/2026".
    assert.equal(octDemand.quantity, '50.0', octDemand.explanation);
    assert.equal(octDemand.amount, '625.00');

    // September is the bill to correct: its rebill reads the 30/09 reading, 90.0 kW. The 90 kW is then billed
    // by September's rebill alone, not by it and by October's bill.
    const sepBill = await billOf(s!, sep);
    await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: sepBill.billID, reason: 'late demand read' }));
    const live = ((await billsOf({ accountID: Number(s!.accountId) })) as any[]).filter((b) => b.status !== 'cancelled').sort((x, y) => x.termID - y.termID);
    assert.deepEqual(
      live.map((b) => [b.termID, demandOf(b).quantity]),
      [[sep, '90.0'], [oct, '50.0']],
    );
  });
});
