// Issue 9, "Readings have one owner": a term's capture-readings wrote readings with its own
// checks, and skipped the chain: a reading lower than the one before (not a roll-over) was
// accepted there and refused by capture-readings. Now every way in is readings/write.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, step, subscriptions, type Sub } from '../terms/fixtures.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

describe("a term's capture-readings checks what every way in checks", () => {
  let h: Harness;
  let sub: Sub;
  let termID: number;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
    sub = (await subscriptions(h, { n: 1, batchCode: 'Z4', readings: [['2026-11-30', 100]] }))[0]!;
    termID = await makeTerm(h, { batchCode: 'Z4', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
  });
  after(async () => h.close());

  const termCapture = (readingDate: string, value: number) =>
    step(h, 'capture-readings', 'Capture Term Readings', { termID, readings: [{ subscriptionID: Number(sub.subscriptionId), inputCode: 'METER', readingDate, value }] });

  test('a lower reading that is not a roll-over is refused, as capture-readings refuses it', async () => {
    const r = await termCapture('15/12/2026', 90);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.details[0].path, 'data.readings[0].value');
    assert.match(r.body.error.details[0].message, /90 is lower than the reading before it \(100 on 30\/11\/2026\)/);
  });

  test("a day read already is corrected on a term's capture (fitted in the chain), refused by capture-readings", async () => {
    assert.equal((await termCapture('15/12/2026', 120)).status, 200);
    assert.equal((await termCapture('15/12/2026', 125)).status, 200);
    const lower = await termCapture('15/12/2026', 95);
    assert.equal(lower.status, 400, JSON.stringify(lower.body));
    assert.equal(lower.body.error.details[0].path, 'data.readings[0].value');
    const again = await h.post(
      '/billing/readings/capture-readings',
      env('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(sub.subscriptionId), inputCode: 'METER', readingDate: '15/12/2026', value: 130 }] }),
      h.tokens.biller,
    );
    assert.equal(again.status, 400);
    assert.match(again.body.error.details[0].message, /exists already \(readingID \d+\); correct that one instead/);
    const got = await h.post('/billing/readings/get-readings', env('Retrieve', 'Retrieve Readings', { subscriptionID: Number(sub.subscriptionId) }), h.tokens.viewer);
    assert.deepEqual(
      got.body.data.readings.map((r: { readingDate: string; value: string; effective: boolean }) => [r.readingDate, r.value, r.effective]),
      [
        ['30/11/2026', '100', true],
        ['15/12/2026', '120', false],
        ['15/12/2026', '125', true],
      ],
    );
  });
});
