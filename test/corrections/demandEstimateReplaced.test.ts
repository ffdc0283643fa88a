// Outside check: an estimated demand replaced by the actual read of the same day, after the bill.
//
// Tariff: City Power Johannesburg, Business LV demand tariff (conventional meter); figures used
// (2026/27, low-demand season): service and administration 1316.24 a month, network capacity 47.55 per
// kVA of NMD, network demand 211.53 per kVA of the month's maximum demand, active energy 2.0117 per kWh,
// VAT 15%. Meters read on the 15th; a customer with an NMD of 200 kVA.
//
// September's meter reading (15/09) got the kWh but not the kVA register: validate-term's estimateMissing
// put the demand at last month's, 142.5 kVA (docs/rating.md), and the bill was posted estimated:
//   1316.24 + 9510.00 + 142.5 x 211.53 = 30143.03 + 44680 x 2.0117 = 89882.76 -> charges 130852.03,
//   VAT 19627.80, total 150479.83 (billrun agrees).
// The register's value on 15/09 then arrives from the meter reader's handheld, 168.0 kVA, and the officer
// corrects the estimate with it (correct-reading, kind actual). September's bill by hand is then
//   1316.24 + 9510.00 + 168.0 x 211.53 = 35537.04 + 89882.76 -> charges 136246.04, VAT 20436.91, total 156682.95.
// October's bill (16/09 to 15/10, 205.7 kVA read on 15/10) does not depend on September's demand at all: a
// demand register's quantity is its current reading, the one before only says when it was reset.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, makeTemplate, step, waitForStatus } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { billTerm, capture, customer, envelope, ok } from '../billRun/publishedBills.ts';

const tariff = {
  code: 'CP-BUS-LV',
  name: 'City Power Business LV Demand (conventional)',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 21,
  batches: ['JHB-15'],
  values: [{ code: 'VAT', label: 'VAT', value: '15' }],
  meteredInputs: [
    { code: 'KWH', label: 'Active energy', unit: 'kWh', decimals: 0 },
    { code: 'KVA', label: 'Maximum demand', unit: 'kVA', decimals: 1, register: 'maximum' },
  ],
  unmeteredInputs: [{ code: 'NMD', label: 'Notified maximum demand (kVA)' }],
  components: [
    { code: 'SERVICE', name: 'Service and administration charge', model: 'flat', amount: '1316.24' },
    { code: 'CAPACITY', name: 'Network capacity charge (NMD)', model: 'perUnit', input: 'NMD', rate: '47.55', prorate: true },
    { code: 'DEMAND', name: 'Network demand charge', model: 'perUnit', input: 'KVA', rate: '211.53' },
    { code: 'ENERGY', name: 'Active energy charge', model: 'perUnit', input: 'KWH', rate: '2.0117' },
    { code: 'VAT', name: 'VAT 15%', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['SERVICE', 'CAPACITY', 'DEMAND', 'ENERGY'] },
  ],
} as ServiceDefinition;

describe('outside check, City Power business LV demand tariff: an estimated demand replaced by the actual read', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let sub: number;
  let september: any;
  before(async () => {
    ({ h, close } = await startRun({}, []));
    await makeTemplate(h, tariff);
    sub = await customer(h, { accountNumber: 'ZA-7001', serviceCode: 'CP-BUS-LV', batchCode: 'JHB-15', startDate: '01/01/2026', openingReadings: { KWH: 1203400, KVA: 0 }, unmeteredInputs: { NMD: 200 } });
    await capture(h, [
      [sub, 'KWH', '15/07/2026', '1502010'],
      [sub, 'KVA', '15/07/2026', '171.8'],
      [sub, 'KWH', '15/08/2026', '1545220'],
      [sub, 'KVA', '15/08/2026', '142.5'],
      [sub, 'KWH', '15/09/2026', '1589900'],
    ]);
    const post = async (termID: number) => {
      await ok(step(h, 'post-term', 'Post Term', { termID }), 'post-term');
      await waitForStatus(h, termID, ['Posted']);
    };
    const sep = await billTerm(h, { serviceCode: 'CP-BUS-LV', batchCode: 'JHB-15', billingPeriodID: 202609, startDate: '16/08/2026', endDate: '15/09/2026' }, { estimateMissing: true });
    september = sep.bills[0];
    // Billed on the estimate, 142.5 kVA (billrun agrees with the hand figures).
    assert.equal(september.estimated, true);
    assert.equal(september.lines.find((l: any) => l.componentCode === 'DEMAND').amount, '30143.03');
    assert.equal(september.total, '150479.83');
    await post(sep.termID);
    await capture(h, [
      [sub, 'KWH', '15/10/2026', '1633450'],
      [sub, 'KVA', '15/10/2026', '205.7'],
    ]);
    const oct = await billTerm(h, { serviceCode: 'CP-BUS-LV', batchCode: 'JHB-15', billingPeriodID: 202610, startDate: '16/09/2026', endDate: '15/10/2026' });
    await post(oct.termID);
    // The actual register read of 15/09 replaces the estimate.
    const readings = (await ok(h.post('/billing/readings/get-readings', envelope('Retrieve', 'Retrieve Readings', { subscriptionID: sub, inputCode: 'KVA' })), 'get-readings')).body.data.readings;
    const estimate = readings.find((r: any) => r.readingDate === '15/09/2026' && r.effective);
    assert.equal(estimate.kind, 'estimated');
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: estimate.readingID, value: '168.0', kind: 'actual' })), 'correct-reading');
  });
  after(() => close());

  test('get-estimated-bills lists September\'s bill, whose estimated demand an actual reading of its own date replaced', async () => {
    const r = await ok(h.post('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: sub })), 'get-estimated-bills');
    // billrun: bills [] (a demand register is left out of the cascade: "a later actual demand says nothing of an
    // earlier month's"; this actual is not a later one, it is the same day's read the estimate stood for).
    // September's bill stays at 142.5 kVA (150479.83) unless an officer finds it and cancels it by hand.
    assert.deepEqual(
      r.body.data.bills.map((b: any) => b.billNumber),
      [september.billNumber],
      JSON.stringify(r.body.data),
    );
  });

  test('cancel-bill of September\'s bill rebills September alone at 168.0 kVA: October\'s bill, priced on its own 205.7 kVA, is not credited and rebilled', async () => {
    const r = await ok(h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: september.billID, reason: 'actual demand read', dryRun: true })), 'cancel-bill');
    // billrun: cancelled 2, rebilled 2: October's bill (163239.63) gets a credit note and a rebill of the same
    // 163239.63 (and while October's term is Processed and not posted, the cancel is refused: "starts from a
    // reading the rebill of bill N moves"), as if October's demand were a reading less September's.
    assert.deepEqual(
      { cancelled: r.body.data.cancelled, rebilled: r.body.data.rebilled, credited: r.body.data.credited, rebilledAmount: r.body.data.rebilledAmount },
      { cancelled: 1, rebilled: 1, credited: '150479.83', rebilledAmount: '156682.95' },
      JSON.stringify(r.body.data),
    );
  });
});
