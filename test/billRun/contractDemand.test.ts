// A demand held against the customer's own levels (a component's floor and excessOver,
// docs/rating.md "A level the quantity is held to") end to end through HTTP: a business
// low-voltage tariff as municipal utilities publish them, energy per kWh, a demand charge per
// kVA on the month's maximum demand but not less than 60% of the contract demand, an excess
// charge on the demand above the notified maximum demand (NMD), and a network capacity charge
// per kVA of NMD per day. Two customers of their own levels. Worked by hand, November (30 days):
//   A (contract 100 kVA, NMD 80 kVA), 40.0 kVA, 10,000 kWh:
//     energy   10,000 x 0.9500           = 9500.00
//     demand   max(40.0, 60% of 100 = 60) = 60 x 45.00 = 2700.00
//     excess   40.0 not above 80         = 0.00
//     capacity 80 x 30 x 0.3000          = 720.00;    total 12920.00
//   B (contract 250 kVA, NMD 150 kVA), 172.5 kVA, 40,000 kWh:
//     energy   40,000 x 0.9500           = 38000.00
//     demand   172.5 (above 150)         = 172.5 x 45.00 = 7762.50
//     excess   172.5 - 150 = 22.5        = 22.5 x 90.00 = 2025.00
//     capacity 150 x 30 x 0.3000         = 1350.00;   total 49137.50
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun } from '../terms/fixtures.ts';
import { billTerm, capture, customer, ok } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const lowVoltage = (): ServiceDefinition =>
  ({
    code: 'BIZLV',
    name: 'Business low voltage',
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 14,
    batches: ['B-LV'],
    meteredInputs: [
      { code: 'ENERGY', label: 'Energy', unit: 'kWh', decimals: 0 },
      { code: 'DEMAND', label: 'Maximum demand', unit: 'kVA', decimals: 1, register: 'maximum' },
    ],
    unmeteredInputs: [
      { code: 'CONTRACT', label: 'Contract demand (kVA)' },
      { code: 'NMD', label: 'Notified maximum demand (kVA)' },
    ],
    values: [{ code: 'FLOOR', label: 'Share of the contract demand billed at least', value: '60' }],
    components: [
      { code: 'ENERGY', name: 'Energy', model: 'perUnit', input: 'ENERGY', rate: '0.9500' },
      { code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate: '45.00', floor: { input: 'CONTRACT', percentage: { value: 'FLOOR' } } },
      { code: 'EXCESS', name: 'Excess demand above NMD', model: 'perUnit', input: 'DEMAND', rate: '90.00', excessOver: { input: 'NMD' } },
      { code: 'CAPACITY', name: 'Network capacity charge', model: 'perUnitPerDay', input: 'NMD', rate: '0.3000' },
    ],
  }) as ServiceDefinition;

describe("a demand held to the customer's contract and notified demand, through HTTP", () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('a floor on a meter is refused when the template is made, on its field', async () => {
    const bad = lowVoltage();
    bad.code = 'BIZLV2';
    bad.components = [{ code: 'X', name: 'X', model: 'perUnit', input: 'DEMAND', rate: '1', floor: { input: 'ENERGY' } } as never];
    const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: bad });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.error.details.map((d: any) => [d.path, d.message]),
      [['service.components[0].floor.input', "'ENERGY' is metered: a floor is a level of the subscription, an unmetered input"]],
    );
  });

  test('each customer is billed on its own contract and NMD, the preview and verify-bill agreeing', async () => {
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: lowVoltage() }), 'make-service');
    const a = await customer(h, { accountNumber: 'LV-A', serviceCode: 'BIZLV', batchCode: 'B-LV', startDate: '01/10/2026', openingReadings: { ENERGY: 0, DEMAND: 0 }, unmeteredInputs: { CONTRACT: 100, NMD: 80 } });
    const b = await customer(h, { accountNumber: 'LV-B', serviceCode: 'BIZLV', batchCode: 'B-LV', startDate: '01/10/2026', openingReadings: { ENERGY: 0, DEMAND: 0 }, unmeteredInputs: { CONTRACT: 250, NMD: 150 } });
    await capture(h, [
      [a, 'ENERGY', '31/10/2026', '5000'],
      [a, 'DEMAND', '31/10/2026', '50.0'],
      [b, 'ENERGY', '31/10/2026', '20000'],
      [b, 'DEMAND', '31/10/2026', '140.0'],
      [a, 'ENERGY', '30/11/2026', '15000'],
      [a, 'DEMAND', '30/11/2026', '40.0'],
      [b, 'ENERGY', '30/11/2026', '60000'],
      [b, 'DEMAND', '30/11/2026', '172.5'],
    ]);
    const nov = await billTerm(h, { serviceCode: 'BIZLV', batchCode: 'B-LV', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const billOf = (sub: number) => nov.bills.find((x: any) => x.subscriptionID === sub);
    const lines = (sub: number) => Object.fromEntries(billOf(sub).lines.map((l: any) => [l.componentCode, [l.quantity, l.amount]]));
    assert.deepEqual(lines(a), { ENERGY: ['10000', '9500.00'], DEMAND: ['60.0', '2700.00'], EXCESS: ['0.0', '0.00'], CAPACITY: ['80', '720.00'] });
    assert.equal(billOf(a).total, '12920.00');
    assert.deepEqual(lines(b), { ENERGY: ['40000', '38000.00'], DEMAND: ['172.5', '7762.50'], EXCESS: ['22.5', '2025.00'], CAPACITY: ['150', '1350.00'] });
    assert.equal(billOf(b).total, '49137.50');

    const demandA = billOf(a).lines.find((l: any) => l.componentCode === 'DEMAND');
    assert.deepEqual(demandA.trace.bound, { kind: 'floor', input: 'CONTRACT', level: '100', percentage: '60', threshold: '60', of: '40', quantity: '60' });
    assert.match(demandA.explanation, /at least 60% of CONTRACT 100 = 60 kVA: 60 kVA priced, not 40; 60 x 45; amount 2700\.00\.$/);
    const excessB = billOf(b).lines.find((l: any) => l.componentCode === 'EXCESS');
    assert.match(excessB.explanation, /the part above 100% of NMD 150 = 150 kVA: 172\.5 - 150 = 22\.5 kVA priced; 22\.5 x 90; amount 2025\.00\.$/);

    // The preview priced them alike.
    const preview = nov.validated.previewBills.find((p: any) => p.subscriptionID === a);
    assert.equal(preview.total, '12920.00');
    // verify-bill re-rates each from what it recorded and finds the same lines.
    for (const sub of [a, b]) {
      const r = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: billOf(sub).billID } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.matches, true, JSON.stringify(r.body.data));
    }

    // The template read back keeps the floor and the excess as written.
    const got = await ok(h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }), 'get-services');
    const components = got.body.data.services.find((x: any) => x.serviceCode === 'BIZLV').components;
    assert.deepEqual(components[1].floor, { input: 'CONTRACT', percentage: { value: 'FLOOR' } });
    assert.deepEqual(components[2].excessOver, { input: 'NMD' });
  });
});
