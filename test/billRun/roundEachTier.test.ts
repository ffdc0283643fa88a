// A graduated component that rounds each tier's amount (roundEachTier, docs/rating.md), end to
// end through HTTP: the template made and read back with make-service and get-services, a term
// run by the worker, the bill read with get-bills. A municipal step tariff, worked by hand:
// 0-6 kL free, 6-10.5 at 20.7345, above at 30.1234; 17.3 kL used (readings 1000 and 1017.3):
//   tier 2: 4.5 x 20.7345 = 93.30525 -> 93.31; tier 3: 6.8 x 30.1234 = 204.83912 -> 204.84
//   each tier rounded: 93.31 + 204.84 = 298.15 (what the printed steps add up to)
//   rounded once, the same tariff without the flag: 298.14437 -> 298.14
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

const steps = (code: string, roundEachTier: boolean | undefined): ServiceDefinition =>
  ({
    code,
    name: `Water in steps ${code}`,
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 14,
    components: [
      {
        code: 'WATER',
        name: 'Water',
        model: 'graduated',
        input: 'METER',
        ...(roundEachTier === undefined ? {} : { roundEachTier }),
        tiers: [
          { upTo: 6, rate: '0' },
          { upTo: '10.5', rate: '20.7345' },
          { upTo: null, rate: '30.1234' },
        ],
      },
    ],
    meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'kL', decimals: 1 }],
    batches: [`B-${code}`],
  }) as ServiceDefinition;

describe('a graduated line rounding each tier, through a bill run', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  const billOf = async (code: string) => {
    const subs = await subscriptions(h, { n: 1, serviceCode: code, batchCode: `B-${code}`, readings: [['2026-10-31', 1000], ['2026-11-30', 1017.3]] });
    const termID = await makeTerm(h, { serviceCode: code, batchCode: `B-${code}`, billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t));
    const r = await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.bills.find((b: any) => String(b.subscriptionID) === subs[0]!.subscriptionId);
  };

  test('each tier is rounded to the cent and the line is their sum: 93.31 + 204.84 = 298.15, where the line rounded once is 298.14', async () => {
    await makeTemplate(h, steps('EACH', true));
    await makeTemplate(h, steps('ONCE', undefined));
    const read = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'EACH' }, h.tokens.viewer);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.data.services[0].components[0].roundEachTier, true, 'the template keeps the flag');

    const each = await billOf('EACH');
    const water = each.lines.find((l: any) => l.componentCode === 'WATER');
    assert.equal(water.quantity, '17.3');
    assert.equal(water.amount, '298.15');
    assert.equal(each.total, '298.15');
    assert.equal(water.trace.roundEachTier, true);
    assert.deepEqual(
      water.trace.tiers.map((t: any) => [t.quantity, t.amount, t.unrounded]),
      [
        ['6', '0.00', undefined],
        ['4.5', '93.31', '93.30525'],
        ['6.8', '204.84', '204.83912'],
      ],
    );
    assert.match(water.explanation, /each tier rounded to the minor unit/);
    assert.match(water.explanation, /4\.5 x 20\.7345 = 93\.30525, rounded to 93\.31/);

    const once = await billOf('ONCE');
    assert.equal(once.lines.find((l: any) => l.componentCode === 'WATER').amount, '298.14');
  });

  test('roundEachTier is a boolean, and only a graduated component has it', async () => {
    const asText = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...steps('BAD1', undefined), components: [{ ...steps('BAD1', true).components![0], roundEachTier: 'yes' }] } });
    assert.equal(asText.status, 400, JSON.stringify(asText.body));
    assert.ok(asText.body.error.details.some((d: any) => d.path.startsWith('service.components[0]')), JSON.stringify(asText.body.error.details));
    const onVolume = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...steps('BAD2', undefined), components: [{ ...steps('BAD2', true).components![0], model: 'volume' }] } });
    assert.equal(onVolume.status, 400, JSON.stringify(onVolume.body));
    const listed = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }, h.tokens.viewer);
    assert.ok(!listed.body.data.services.some((s: any) => s.serviceCode === 'BAD1' || s.serviceCode === 'BAD2'), 'nothing was made');
  });
});
