// Tier proration by the reading period (docs/rating.md, "By the reading period"), end to
// end through HTTP: a template made with make-service whose yearly tier is scaled by the
// days between the two readings each bill uses, a quarterly term run by the worker, the
// bills read back with get-bills. The published example, worked by hand: tier 1 is 300 kL
// a year at 1.00, above it 2.00; 100 kL used.
//   readings 31/07 and 29/10/2026, 90 days: 300 x 90/365 = 73.97 -> 74 (halfUp, 0 decimals):
//     74 x 1.00 + 26 x 2.00 = 126.00
//   readings 31/07 and 31/10/2026, 92 days: 300 x 92/365 = 75.62 -> 76: 76 x 1.00 + 24 x 2.00 = 124.00
// The term (01/08 to 31/10/2026) has 92 days, so the first bill's 126.00 is the reading
// period's and not the term's (which would give 124.00 to both).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

const quarterly: ServiceDefinition = {
  code: 'QUARTER',
  name: 'Water read quarterly',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 3,
  dueDateOffset: 14,
  components: [
    {
      code: 'WATER',
      name: 'Water',
      model: 'graduated',
      input: 'METER',
      tiers: [
        { upTo: 300, rate: '1.00' },
        { upTo: null, rate: '2.00' },
      ],
      tierProration: { period: 'readingPeriod', basisDays: 365, decimals: 0, rounding: 'halfUp' },
    },
  ],
  meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'kL', decimals: 0, rolloverAt: 100000 }],
  batches: ['ZONE-Q'],
} as ServiceDefinition;

describe('tier proration by the reading period, through a bill run', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, quarterly);
  });
  after(() => close());

  test('300 kL a year over a 90-day reading period is 74 kL of tier 1 (126.00); over 92 days 76 kL (124.00)', async () => {
    const subs = await subscriptions(h, {
      n: 2,
      serviceCode: 'QUARTER',
      batchCode: 'ZONE-Q',
      readingsOf: (i) => (i === 0 ? [['2026-07-31', 1000], ['2026-10-29', 1100]] : [['2026-07-31', 5000], ['2026-10-31', 5100]]),
    });
    const termID = await makeTerm(h, { serviceCode: 'QUARTER', batchCode: 'ZONE-Q', billingPeriodID: 202610, startDate: '01/08/2026', endDate: '31/10/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t));

    const r = await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const bills = r.body.data.bills as any[];
    const bySub = new Map(bills.map((b) => [String(b.subscriptionID), b]));
    const ninety = bySub.get(subs[0]!.subscriptionId);
    const ninetyTwo = bySub.get(subs[1]!.subscriptionId);
    const water = (b: any) => b.lines.find((l: any) => l.componentCode === 'WATER');

    assert.equal(water(ninety).quantity, '100');
    assert.equal(water(ninety).amount, '126.00');
    assert.equal(ninety.total, '126.00');
    assert.deepEqual(water(ninety).trace.tierProration, {
      basisDays: 365,
      period: 'readingPeriod',
      readingDays: '90',
      activeDays: 92,
      decimals: 0,
      rounding: 'halfUp',
      bounds: [{ upTo: '300', scaled: '74' }],
    });

    assert.equal(water(ninetyTwo).amount, '124.00');
    assert.equal(ninetyTwo.total, '124.00');
    assert.equal(water(ninetyTwo).trace.tierProration.readingDays, '92');
    assert.deepEqual(water(ninetyTwo).trace.tierProration.bounds, [{ upTo: '300', scaled: '76' }]);
  });

  // A municipal tariff's monthly tiers written for an average month of 365.25 / 12 days.
  test("a fractional basis through make-service ('30.4375' as text): February's 28 days give 6 x 28 / 30.4375 = 5.52 kL of tier 1, 144.80", async () => {
    const monthly = {
      ...quarterly,
      code: 'MONTHLY',
      name: 'Water, an average month',
      billingCycle: 1,
      batches: ['ZONE-M'],
      meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'kL', decimals: 0, rolloverAt: 100000 }],
      components: [
        {
          code: 'WATER',
          name: 'Water',
          model: 'graduated',
          input: 'METER',
          tiers: [{ upTo: 6, rate: '10.00' }, { upTo: null, rate: '20.00' }],
          tierProration: { basisDays: '30.4375', decimals: 2, rounding: 'halfUp' },
        },
      ],
    } as ServiceDefinition;
    // As a JSON number it is refused on its field: a decimal is given as text, as every decimal of a template is.
    const asNumber = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...monthly, components: [{ ...monthly.components![0], tierProration: { basisDays: 30.4375, decimals: 2, rounding: 'halfUp' } }] } });
    assert.equal(asNumber.status, 400);
    assert.ok(asNumber.body.error.details.some((d: any) => d.path.startsWith('service.components[0].tierProration.basisDays')), JSON.stringify(asNumber.body.error.details));
    await makeTemplate(h, monthly);
    const subs = await subscriptions(h, { n: 1, serviceCode: 'MONTHLY', batchCode: 'ZONE-M', readings: [['2026-01-31', 100], ['2026-02-28', 110]] });
    const termID = await makeTerm(h, { serviceCode: 'MONTHLY', batchCode: 'ZONE-M', billingPeriodID: 202602, startDate: '01/02/2026', endDate: '28/02/2026' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    const r = await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer);
    const water = r.body.data.bills.find((b: any) => String(b.subscriptionID) === subs[0]!.subscriptionId).lines.find((l: any) => l.componentCode === 'WATER');
    // 5.52 x 10.00 + 4.48 x 20.00 = 55.20 + 89.60
    assert.equal(water.amount, '144.80');
    assert.equal(water.trace.tierProration.basisDays, '30.4375');
    assert.deepEqual(water.trace.tierProration.bounds, [{ upTo: '6', scaled: '5.52' }]);
    assert.match(water.explanation, /\/ 30\.4375, rounded halfUp to 2 decimal\(s\): 6 to 5\.52/);
  });
});
