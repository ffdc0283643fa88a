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
import { billTerm, capture, customer, envelope, ok, simulate } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { RATCHET_HISTORY } from '../fixtures/tariffs.ts';

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

  // A ratchet (docs/rating.md, "A level the quantity is held to"): billing demand not less than
  // 75% of the highest demand read in the 11 months before the period. Worked by hand:
  //   R-1, read monthly since January, its highest before November 90.0 kVA on 30/06/2026;
  //   November 40.0: 75% of 90 = 67.5: 67.5 x 45.00 = 3037.50.
  //   R-2, connected on 01/11/2026 (its opening 0 is dated in the term): no history, 40.0 x 45.00 = 1800.00.
  //   A draft at 50.00 a kVA, simulated: R-1 67.5 x 50 = 3375.00, R-2 40 x 50 = 2000.00.
  test("a ratchet holds each customer's demand to its own last eleven months, verify-bill and a simulation agreeing", async () => {
    const ratcheted = (rate: string): ServiceDefinition =>
      ({
        ...lowVoltage(),
        code: 'BIZR',
        name: 'Business demand with a ratchet',
        batches: ['B-R'],
        meteredInputs: [{ code: 'DEMAND', label: 'Maximum demand', unit: 'kVA', decimals: 1, register: 'maximum' }],
        unmeteredInputs: [],
        values: [],
        components: [{ code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate, ratchet: { percentage: '75', months: 11 } }],
      }) as ServiceDefinition;
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: ratcheted('45.00') }), 'make-service');
    const r1 = await customer(h, { accountNumber: 'R-1', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    const r2 = await customer(h, { accountNumber: 'R-2', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/11/2026', openingReadings: { DEMAND: 0 } });
    const history = RATCHET_HISTORY;
    const months = history.map(([d]) => d);
    const values = history.map(([, v]) => v);
    await capture(h, months.map((d, i) => [r1, 'DEMAND', d, values[i]!] as [number, string, string, string]));
    await capture(h, [
      [r1, 'DEMAND', '30/11/2026', '40.0'],
      [r2, 'DEMAND', '30/11/2026', '40.0'],
    ]);
    const nov = await billTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const billOf = (sub: number) => nov.bills.find((x: any) => x.subscriptionID === sub);
    const line = (sub: number) => billOf(sub).lines[0];
    assert.deepEqual([line(r1).quantity, line(r1).amount], ['67.5', '3037.50']);
    assert.deepEqual(line(r1).trace.ratchet, { months: 11, percentage: '75', highest: { date: '2026-06-30', value: '90' }, threshold: '67.5', of: '40', quantity: '67.5' });
    assert.match(line(r1).explanation, /at least 75% of the highest demand of the 11 month\(s\) before, 90 on 30\/06\/2026, = 67\.5 kVA: 67\.5 kVA priced, not 40; 67\.5 x 45; amount 3037\.50\.$/);
    assert.deepEqual([line(r2).quantity, line(r2).amount, line(r2).trace.ratchet.highest], ['40.0', '1800.00', null]);
    assert.equal(nov.validated.previewBills.find((p: any) => p.subscriptionID === r1).total, '3037.50');
    for (const sub of [r1, r2]) {
      const v = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: billOf(sub).billID } });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.body.data.matches, true, JSON.stringify(v.body.data));
    }
    // A reading of the history corrected after the bill: verify-bill re-rates from the reading it recorded, and still matches.
    const june = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-06-30'`, [r1]);
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(june.rows[0].reading_id), value: '70.0', note: 'misread' })), 'correct-reading');
    const again = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: billOf(r1).billID } });
    assert.equal(again.body.data.matches, true, JSON.stringify(again.body.data));

    // A draft of the same template at 50.00 a kVA: the simulation reads the same history.
    const { record, results } = await simulate(h, { termID: nov.termID, label: 'demand 50', draft: { meteredInputs: ratcheted('50.00').meteredInputs, components: ratcheted('50.00').components } });
    assert.equal(record.status, 'Done', JSON.stringify(record));
    const drafted = (sub: number) => results.find((x: any) => x.subscriptionID === sub).draft.total;
    assert.equal(drafted(r1), '3375.00');
    assert.equal(drafted(r2), '2000.00');
  });

  // The ratchet's months are the customer's bills once it has as many (docs/rating.md): a check
  // read does not take a month's place. 100% of the highest of the last 2 months, 10.00 a kW:
  //   October billed 90.0 (read 31/10); November read 50.0 on 15/11 (a check read) and 60.0 on
  //   30/11, held to October's 90; December 40.0: its 2 months are October's and November's bills
  //   (01/10 to 30/11), so 90: 900.00. Counted as its last 2 readings (15/11 and 30/11) it would
  //   have been held to 60 only.
  test("a ratchet's months are the customer's last bills: a check read does not take a month's place", async () => {
    const service = {
      ...lowVoltage(),
      code: 'BIZR2',
      name: 'Two-month ratchet',
      batches: ['B-R2'],
      meteredInputs: [{ code: 'DEMAND', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
      unmeteredInputs: [],
      values: [],
      components: [{ code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate: '10.00', ratchet: { percentage: '100', months: 2 } }],
    } as ServiceDefinition;
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service }), 'make-service');
    const sub = await customer(h, { accountNumber: 'R2-1', serviceCode: 'BIZR2', batchCode: 'B-R2', startDate: '01/10/2026', openingReadings: { DEMAND: 0 } });
    const month = async (id: number, start: string, end: string) => (await billTerm(h, { serviceCode: 'BIZR2', batchCode: 'B-R2', billingPeriodID: id, startDate: start, endDate: end })).bills[0];
    await capture(h, [[sub, 'DEMAND', '31/10/2026', '90.0']]);
    assert.equal((await month(202610, '01/10/2026', '31/10/2026')).total, '900.00');
    await capture(h, [
      [sub, 'DEMAND', '15/11/2026', '50.0'],
      [sub, 'DEMAND', '30/11/2026', '60.0'],
    ]);
    assert.equal((await month(202611, '01/11/2026', '30/11/2026')).total, '900.00');
    await capture(h, [[sub, 'DEMAND', '31/12/2026', '40.0']]);
    const dec = await month(202612, '01/12/2026', '31/12/2026');
    assert.deepEqual([dec.lines[0].quantity, dec.total, dec.lines[0].trace.ratchet.highest], ['90.0', '900.00', { date: '2026-10-31', value: '90' }]);
  });
});
