// Outside check: a South African business tariff with a notified maximum demand (NMD), through HTTP.
//
// Tariff: the Eskom urban large-power structure (Nightsave Urban Large / Megaflex family, the form
// municipalities copy for their bulk LV/MV customers), with energy simplified to one rate (no TOU).
// The RULES are the published ones:
//   - service charge and administration charge, R/day;
//   - active energy, c/kWh;
//   - network access charge (NAC), R/kVA/month on the UTILISED CAPACITY: "the higher of the NMD or the
//     maximum demand, measured in kVA, registered during a rolling 12-month period" (current month included);
//   - network demand charge (NDC), R/kVA/month on the month's chargeable maximum demand;
//   - NMD exceedance: an excess charge per kVA of the demand above the NMD (rate illustrative: 2 x NAC);
//   - VAT 15%.
//   - an NMD increased from a date inside the month: the NAC is the utilised capacity of each part of
//     the month for its days (the month's charge shared by days).
// RATES (illustrative): service R112.45/day, admin R18.30/day, energy 145.32 c/kWh, NAC R21.35/kVA,
//   NDC R13.87/kVA, excess R42.70/kVA.
//
// Customer SA-1: NMD 500 kVA, connected 01/01/2026; kVA read monthly 410.0, 420.0, 455.0, 470.0, 480.0,
// 495.0 (Jan to Jun), July 540.0, August 430.0, September 445.0, October 480.0; NMD 600 from 16/10/2026.
// Hand calculation:
//  July (31 d), 185,400 kWh, 540.0 kVA:
//    service 31 x 112.45 = 3485.95; admin 31 x 18.30 = 567.30; energy 185,400 x 1.4532 = 269,423.28
//    NAC max(NMD 500, 540 this month, 495 before) = 540 x 21.35 = 11,529.00; NDC 540 x 13.87 = 7,489.80
//    excess (540 - 500) = 40 x 42.70 = 1,708.00; charges 294,203.33; VAT 44,130.4995 -> 44,130.50; total 338,333.83
//  August (31 d), 164,600 kWh, 430.0 kVA: NAC stays at July's 540 (utilised capacity) = 11,529.00;
//    NDC 430 x 13.87 = 5,964.10; excess 0; energy 239,196.72; charges 260,743.07; VAT 39,111.46; total 299,854.53
//  September (30 d), 160,000 kWh, 445.0 kVA: service 3,373.50; admin 549.00; energy 232,512.00;
//    NAC 540 -> 11,529.00; NDC 6,172.15; charges 254,135.65; VAT 38,120.35; total 292,256.00
//  October (31 d), 180,000 kWh, 480.0 kVA, NMD 500 to 15/10 and 600 from 16/10:
//    NAC: 1-15/10 max(500, 480, 540) = 540 for 15 days; 16-31/10 max(600, 480, 540) = 600 for 16 days:
//         (540 x 15 + 600 x 16) / 31 = 570.967741... kVA x 21.35 = 12,190.161... -> 12,190.16
//    NDC 480 x 13.87 = 6,657.60; energy 261,576.00; service 3,485.95; admin 567.30
//    charges 284,477.01; VAT 42,671.5515 -> 42,671.55; total 327,148.56
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun } from '../terms/fixtures.ts';
import { billTerm, capture, componentTotal, customer, envelope, ok } from '../billRun/publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const urbanLarge = (): ServiceDefinition =>
  ({
    code: 'ZA-NMD',
    name: 'Urban large power (NMD)',
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 14,
    batches: ['ZA-MV'],
    meteredInputs: [
      { code: 'KWH', label: 'Active energy', unit: 'kWh', decimals: 0 },
      { code: 'KVA', label: 'Maximum demand', unit: 'kVA', decimals: 1, register: 'maximum' },
    ],
    unmeteredInputs: [{ code: 'NMD', label: 'Notified maximum demand (kVA)' }],
    values: [{ code: 'VAT', label: 'VAT', value: '15' }],
    components: [
      { code: 'SERVICE', name: 'Service charge', model: 'perDay', rate: '112.45' },
      { code: 'ADMIN', name: 'Administration charge', model: 'perDay', rate: '18.30' },
      { code: 'ENERGY', name: 'Active energy', model: 'perUnit', input: 'KWH', rate: '1.4532' },
      { code: 'NAC', name: 'Network access charge (utilised capacity)', model: 'perUnit', input: 'KVA', rate: '21.35', floor: { input: 'NMD', percentage: '100' }, ratchet: { percentage: '100', months: 11 } },
      { code: 'NDC', name: 'Network demand charge', model: 'perUnit', input: 'KVA', rate: '13.87' },
      { code: 'EXCESS', name: 'NMD exceedance', model: 'perUnit', input: 'KVA', rate: '42.70', excessOver: { input: 'NMD' } },
      { code: 'VAT', name: 'VAT', category: 'tax', model: 'percentage', percentage: { value: 'VAT' }, of: ['SERVICE', 'ADMIN', 'ENERGY', 'NAC', 'NDC', 'EXCESS'] },
    ],
  }) as ServiceDefinition;

describe('Eskom-style NMD tariff: utilised capacity (NMD or 12-month kVA), exceedance, NMD raised mid-month', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let sub: number;
  const verify = async (bill: any) => {
    const v = await h.post('/billing/bills/verify-bill', envelope('Retrieve', 'Verify Bill', { billID: bill.billID }));
    assert.equal(v.body.data?.matches, true, JSON.stringify(v.body));
  };
  const amounts = (bill: any) => Object.fromEntries(['SERVICE', 'ADMIN', 'ENERGY', 'NAC', 'NDC', 'EXCESS', 'VAT'].map((c) => [c, componentTotal(bill, c)]));

  before(async () => {
    ({ h, close } = await startRun({}, []));
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: urbanLarge() }), 'make-service');
    sub = await customer(h, { accountNumber: 'SA-1', serviceCode: 'ZA-NMD', batchCode: 'ZA-MV', startDate: '01/01/2026', openingReadings: { KWH: 0, KVA: 0 }, unmeteredInputs: { NMD: 500 } });
    const ends = ['31/01/2026', '28/02/2026', '31/03/2026', '30/04/2026', '31/05/2026', '30/06/2026'];
    const kva = ['410.0', '420.0', '455.0', '470.0', '480.0', '495.0'];
    await capture(h, ends.map((d, i) => [sub, 'KVA', d, kva[i]!] as [number, string, string, string]));
    await capture(h, [[sub, 'KWH', '30/06/2026', '900000']]);
  });
  after(() => close());

  test('July: 540 kVA over an NMD of 500, NAC on 540 and 40 kVA of exceedance', async () => {
    await capture(h, [[sub, 'KWH', '31/07/2026', '1085400'], [sub, 'KVA', '31/07/2026', '540.0']]);
    const { bills } = await billTerm(h, { serviceCode: 'ZA-NMD', batchCode: 'ZA-MV', billingPeriodID: 202607, startDate: '01/07/2026', endDate: '31/07/2026' });
    assert.deepEqual(amounts(bills[0]), { SERVICE: '3485.95', ADMIN: '567.30', ENERGY: '269423.28', NAC: '11529.00', NDC: '7489.80', EXCESS: '1708.00', VAT: '44130.50' });
    assert.equal(bills[0].total, '338333.83');
    await verify(bills[0]);
  });

  test('August and September: the NAC stays on July\'s 540 kVA (utilised capacity), no exceedance', async () => {
    await capture(h, [[sub, 'KWH', '31/08/2026', '1250000'], [sub, 'KVA', '31/08/2026', '430.0']]);
    const aug = (await billTerm(h, { serviceCode: 'ZA-NMD', batchCode: 'ZA-MV', billingPeriodID: 202608, startDate: '01/08/2026', endDate: '31/08/2026' })).bills[0];
    assert.deepEqual(amounts(aug), { SERVICE: '3485.95', ADMIN: '567.30', ENERGY: '239196.72', NAC: '11529.00', NDC: '5964.10', EXCESS: '0.00', VAT: '39111.46' });
    assert.equal(aug.total, '299854.53');
    const nac = aug.lines.find((l: any) => l.componentCode === 'NAC');
    assert.equal(nac.quantity, '540.0');
    assert.equal(nac.trace.ratchet.highest.date, '2026-07-31');
    await verify(aug);
    await capture(h, [[sub, 'KWH', '30/09/2026', '1410000'], [sub, 'KVA', '30/09/2026', '445.0']]);
    const sep = (await billTerm(h, { serviceCode: 'ZA-NMD', batchCode: 'ZA-MV', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' })).bills[0];
    assert.deepEqual(amounts(sep), { SERVICE: '3373.50', ADMIN: '549.00', ENERGY: '232512.00', NAC: '11529.00', NDC: '6172.15', EXCESS: '0.00', VAT: '38120.35' });
    assert.equal(sep.total, '292256.00');
    await verify(sep);
  });

  test('October: NMD 600 from 16/10, the NAC on 540 for 15 days and 600 for 16', async () => {
    const u = await h.post('/billing/subscriptions/update-subscription', envelope('Update', 'Update Subscription', { subscriptionID: sub, date: '16/10/2026', unmeteredInputs: { NMD: 600 } }));
    assert.equal(u.status, 200, JSON.stringify(u.body));
    await capture(h, [[sub, 'KWH', '31/10/2026', '1590000'], [sub, 'KVA', '31/10/2026', '480.0']]);
    const t = await billTerm(h, { serviceCode: 'ZA-NMD', batchCode: 'ZA-MV', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    const oct = t.bills[0];
    assert.deepEqual(amounts(oct), { SERVICE: '3485.95', ADMIN: '567.30', ENERGY: '261576.00', NAC: '12190.16', NDC: '6657.60', EXCESS: '0.00', VAT: '42671.55' });
    assert.equal(oct.total, '327148.56');
    assert.equal(t.validated.previewBills[0].total, '327148.56');
    await verify(oct);
  });
});
