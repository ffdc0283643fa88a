// A rate per unit per day (perUnitPerDay, docs/rating.md) end to end through HTTP: a
// business network tariff as distributors publish them, a daily supply charge, energy per
// kWh, a demand charge per kW per day on the month's maximum demand, a capacity charge per
// kVA per day on the contracted capacity, and GST of 10%. Worked by hand:
//   October (31 days), 12,400 kWh, 52.4 kW, 120 kVA contracted:
//     supply   31 x 1.2345            =   38.2695 ->   38.27
//     energy   12,400 x 0.1120        =             1388.80
//     demand   52.4 x 31 x 0.4512     =  732.92928 ->  732.93
//     capacity 120 x 31 x 0.2100      =              781.20
//     GST      10% of 2941.20         =              294.12; total 3235.32
//   November (30 days), the demand rate 0.5000 from 16/11, 60.0 kW:
//     demand   60 x 15 x 0.4512 = 406.08, then 60 x 15 x 0.5000 = 450.00 (the whole 60 kW each half)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, step } from '../terms/fixtures.ts';
import { fetchFile, hasPoppler, pdfText } from '../documents/support.ts';
import { billTerm, capture, customer, envelope, ok } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const network = (demandRate = '0.4512'): ServiceDefinition =>
  ({
    code: 'NETD',
    name: 'Business network demand',
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 14,
    batches: ['B-NET'],
    meteredInputs: [
      { code: 'ENERGY', label: 'Energy', unit: 'kWh', decimals: 0 },
      { code: 'DEMAND', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' },
    ],
    unmeteredInputs: [{ code: 'CAPACITY', label: 'Contracted capacity (kVA)', default: 50 }],
    components: [
      { code: 'SUPPLY', name: 'Supply charge', model: 'perDay', rate: '1.2345' },
      { code: 'ENERGY', name: 'Energy', model: 'perUnit', input: 'ENERGY', rate: '0.1120' },
      { code: 'DEMAND', name: 'Demand charge', model: 'perUnitPerDay', input: 'DEMAND', rate: demandRate },
      { code: 'CAPACITY', name: 'Capacity charge', model: 'perUnitPerDay', input: 'CAPACITY', rate: '0.2100' },
      { code: 'GST', name: 'GST', category: 'tax', model: 'percentage', percentage: '10', of: ['SUPPLY', 'ENERGY', 'DEMAND', 'CAPACITY'] },
    ],
  }) as ServiceDefinition;

describe('a demand and a capacity priced per unit per day, through HTTP', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('a cumulative meter priced by the day is refused when the template is made, on its field', async () => {
    const bad = network();
    bad.code = 'NETX';
    bad.components = [{ code: 'X', name: 'X', model: 'perUnitPerDay', input: 'ENERGY', rate: '0.01' } as never];
    const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: bad });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body.error.details.map((d: any) => d.path), ['service.components[0].input']);
    assert.match(r.body.error.details[0].message, /'ENERGY' is a cumulative meter/);
  });

  test('October: the demand and the capacity times the days; November across a rate change, the whole demand each half', async () => {
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: network() }), 'make-service');
    const sub = await customer(h, { accountNumber: 'NET-1', serviceCode: 'NETD', batchCode: 'B-NET', startDate: '01/10/2026', openingReadings: { ENERGY: 0, DEMAND: 0 }, unmeteredInputs: { CAPACITY: 120 } });
    await capture(h, [
      [sub, 'ENERGY', '31/10/2026', '12400'],
      [sub, 'DEMAND', '31/10/2026', '52.4'],
    ]);
    const oct = await billTerm(h, { serviceCode: 'NETD', batchCode: 'B-NET', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    // The preview says the days, as the bill does.
    const preview = oct.validated.previewBills[0].lines.find((l: any) => l.componentCode === 'DEMAND');
    assert.deepEqual([preview.amount, preview.days], ['732.93', 31]);
    const [bill] = oct.bills;
    const byCode = Object.fromEntries(bill.lines.map((l: any) => [l.componentCode, l]));
    assert.deepEqual(
      Object.fromEntries(Object.entries(byCode).map(([k, l]: [string, any]) => [k, l.amount])),
      { SUPPLY: '38.27', ENERGY: '1388.80', DEMAND: '732.93', CAPACITY: '781.20', GST: '294.12' },
    );
    assert.equal(bill.total, '3235.32');
    assert.deepEqual([byCode.DEMAND.quantity, byCode.DEMAND.unit, byCode.DEMAND.rate, byCode.DEMAND.days], ['52.4', 'kW', '0.4512', 31]);
    assert.deepEqual([byCode.CAPACITY.quantity, byCode.CAPACITY.rate, byCode.CAPACITY.days], ['120', '0.21', 31]);
    assert.equal(byCode.ENERGY.days, undefined, 'only a rate per unit per day has days');
    assert.match(byCode.DEMAND.explanation, /52\.4 x 31 day\(s\) x 0\.4512; 732\.92928 rounded half up to 732\.93/);
    assert.deepEqual(byCode.DEMAND.trace.model, 'perUnitPerDay');
    assert.equal(byCode.DEMAND.trace.days, 31);

    // The document prints the days beside the rate, so the quantity times the rate is the amount.
    if (hasPoppler) {
      await ok(step(h, 'post-term', 'Post Term', { termID: oct.termID }), 'post-term');
      const deadline = Date.now() + 60_000;
      const get = () => fetchFile(h, '/billing/documents/get-bill-document', envelope('Retrieve', 'Retrieve Bill Document', { billID: bill.billID }));
      let pdf = await get();
      while (pdf.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        pdf = await get();
      }
      assert.equal(pdf.status, 200);
      const text = pdfText(pdf.bytes).replace(/\s+/g, ' ');
      assert.match(text, /Demand charge 52\.4 kW 0\.4512 x 31 days 732\.93/);
      assert.match(text, /Capacity charge 120 0\.21 x 31 days 781\.20/);
    }

    // November: the demand rate becomes 0.5000 from 16/11; the demand read 60.0 kW.
    const raised = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', effectiveFrom: '16/11/2026', service: network('0.5000') });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    await capture(h, [
      [sub, 'ENERGY', '30/11/2026', '24400'],
      [sub, 'DEMAND', '30/11/2026', '60.0'],
    ]);
    const nov = await billTerm(h, { serviceCode: 'NETD', batchCode: 'B-NET', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const demand = nov.bills[0].lines.filter((l: any) => l.componentCode === 'DEMAND').map((l: any) => [l.version, l.segment, l.quantity, l.days, l.amount]);
    assert.deepEqual(demand, [
      [1, '01/11/2026 to 15/11/2026', '60.0', 15, '406.08'],
      [2, '16/11/2026 to 30/11/2026', '60.0', 15, '450.00'],
    ]);
    // 120 kVA x 15 x 0.21 = 378.00 in each half.
    assert.deepEqual(
      nov.bills[0].lines.filter((l: any) => l.componentCode === 'CAPACITY').map((l: any) => l.amount),
      ['378.00', '378.00'],
    );
  });
});
