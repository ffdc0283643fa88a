// Outside check: a tariff simulation of a business electricity tariff with a kVA demand register.
//
// Tariff: City Power Johannesburg, Business LV demand tariff (conventional meter), in its published
// form: a service and administration charge a month, a network capacity charge per kVA of the notified
// maximum demand (NMD), a network demand charge per kVA of the month's maximum demand, an active energy
// charge per kWh, VAT 15%. Figures used (2026/27, low-demand season): service 1316.24, capacity 47.55 /kVA
// of NMD, demand 211.53 /kVA, energy 2.0117 /kWh.
// The bill (16/09/2026 to 15/10/2026, NMD 200 kVA, 43,550 kWh, 205.7 kVA) reproduces by hand:
//   1316.24 + 200 x 47.55 = 9510.00 + 205.7 x 211.53 = 43511.721 -> 43511.72 + 43550 x 2.0117 = 87609.535 -> 87609.54
//   charges 141947.50, VAT 21292.125 -> 21292.13, total 163239.63 (billrun agrees).
// A simulation of a 10% rise of the demand charge sorts the customers by consumption band. The
// customer used 43,550 kWh; its 205.7 kVA is a demand, not a consumption (the bill's document was fixed
// for exactly this, docs/rating.md: "the history of earlier bills sums the consumption of the cumulative
// meters only (12400 kWh, not 12400 + 52.4)"). The simulation still adds it: 43755.7, in the wrong band.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, makeTemplate } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { billTerm, capture, customer, simulate } from '../billRun/publishedBills.ts';

const components = (demand: string) => [
  { code: 'SERVICE', name: 'Service and administration charge', model: 'flat', amount: '1316.24' },
  { code: 'CAPACITY', name: 'Network capacity charge (NMD)', model: 'perUnit', input: 'NMD', rate: '47.55', prorate: true },
  { code: 'DEMAND', name: 'Network demand charge', model: 'perUnit', input: 'KVA', rate: demand },
  { code: 'ENERGY', name: 'Active energy charge', model: 'perUnit', input: 'KWH', rate: '2.0117' },
  { code: 'VAT', name: 'VAT 15%', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['SERVICE', 'CAPACITY', 'DEMAND', 'ENERGY'] },
];
const pricing = {
  values: [{ code: 'VAT', label: 'VAT', value: '15' }],
  meteredInputs: [
    { code: 'KWH', label: 'Active energy', unit: 'kWh', decimals: 0 },
    { code: 'KVA', label: 'Maximum demand', unit: 'kVA', decimals: 1, register: 'maximum' },
  ],
  unmeteredInputs: [{ code: 'NMD', label: 'Notified maximum demand (kVA)' }],
};
const tariff = {
  code: 'CP-BUS-LV',
  name: 'City Power Business LV Demand (conventional)',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 21,
  batches: ['JHB-15'],
  ...pricing,
  components: components('211.53'),
} as ServiceDefinition;

describe('outside check, City Power business LV demand tariff: a simulation of a demand charge rise', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('the customer is banded by its 43,550 kWh, not 43,550 + 205.7 kVA', async () => {
    await makeTemplate(h, tariff);
    const sub = await customer(h, { accountNumber: 'ZA-7001', serviceCode: 'CP-BUS-LV', batchCode: 'JHB-15', startDate: '01/01/2026', openingReadings: { KWH: 1203400, KVA: 0 }, unmeteredInputs: { NMD: 200 } });
    await capture(h, [
      [sub, 'KWH', '15/09/2026', '1589900'],
      [sub, 'KVA', '15/09/2026', '142.5'],
      [sub, 'KWH', '15/10/2026', '1633450'],
      [sub, 'KVA', '15/10/2026', '205.7'],
    ]);
    const { termID, bills } = await billTerm(h, { serviceCode: 'CP-BUS-LV', batchCode: 'JHB-15', billingPeriodID: 202610, startDate: '16/09/2026', endDate: '15/10/2026' });
    assert.equal(bills[0].total, '163239.63');

    const { record, results } = await simulate(h, { termID, label: 'demand charge +10%', draft: { ...pricing, components: components('232.68') }, bands: ['43600'] });
    assert.equal(record.status, 'Done', JSON.stringify(record));
    // 205.7 x (232.68 - 211.53) = 4350.555 -> 4350.56 more a month before VAT (billrun agrees).
    assert.equal(record.summary.difference.charges, '4350.56');
    // billrun: consumption "43755.7" (43550 kWh + 205.7 kVA), so the customer lands in the band above 43,600 kWh.
    assert.equal(results[0].consumption, '43550');
    assert.deepEqual(
      record.summary.bands.map((b: any) => [b.from, b.to, b.subscriptions]),
      [
        [null, '43600', 1],
        ['43600', null, 0],
      ],
    );
  });
});
