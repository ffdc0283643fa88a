// Outside check: a demand register read twice in one billing month.
//
// Tariff: Duke Energy Carolinas (North Carolina), Schedule SGS (Small General Service), in its
// published form: a Basic Customer Charge a month, a Demand Charge of nothing for the first 30 kW of
// the month's billing demand and a rate per kW above it, an Energy Charge in three kWh blocks, an
// energy-efficiency rider per kWh and the 7% North Carolina sales tax. The figures used here:
//   v1: BCC 22.39; demand above 30 kW 6.1723 /kW; energy 0.112364 (first 3,000 kWh), 0.086519 (next
//       6,000), 0.072458 (above 9,000); EE rider 0.004931 /kWh; tax 7%.
//   v2 (from 16/10/2026): BCC 24.00; demand 6.6120; energy 0.118021 / 0.090877 / 0.076107.
// The schedule's billing demand is "the maximum integrated 15-minute demand during the billing month".
// A demand register is read and reset at each reading (docs/rating.md, "A demand register": "the reading
// before it bounds the period (when the register was reset)"). When the register is read in the middle
// of the month as well (a check read, a meter read on the day new rates start) and reset, the month's
// highest demand is the higher of the two readings. billrun bills the last reading of the month only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, makeTemplate } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { billTerm, capture, componentTotal, customer, ok } from './publishedBills.ts';

type Rates = { bcc: string; demand: string; e1: string; e2: string; e3: string };
const sgs = (code: string, batch: string, v: Rates) =>
  ({
    code,
    name: 'Duke Energy Carolinas NC Schedule SGS',
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 15,
    batches: [batch],
    values: [{ code: 'NCTAX', label: 'NC sales tax', value: '7' }],
    meteredInputs: [
      { code: 'KWH', label: 'Energy', unit: 'kWh', decimals: 0 },
      { code: 'KW', label: 'Billing demand', unit: 'kW', decimals: 1, register: 'maximum' },
    ],
    components: [
      { code: 'BCC', name: 'Basic Customer Charge', model: 'flat', amount: v.bcc },
      { code: 'DEMAND', name: 'Demand Charge', model: 'graduated', input: 'KW', tiers: [{ upTo: 30, rate: '0' }, { upTo: null, rate: v.demand }] },
      { code: 'ENERGY', name: 'Energy Charge', model: 'graduated', input: 'KWH', tiers: [{ upTo: 3000, rate: v.e1 }, { upTo: 9000, rate: v.e2 }, { upTo: null, rate: v.e3 }] },
      { code: 'EE', name: 'Energy Efficiency Rider', model: 'perUnit', input: 'KWH', rate: '0.004931' },
      { code: 'TAX', name: 'NC Sales Tax 7%', model: 'percentage', category: 'tax', percentage: { value: 'NCTAX' }, of: ['BCC', 'DEMAND', 'ENERGY', 'EE'] },
    ],
  }) as ServiceDefinition;
const v1: Rates = { bcc: '22.39', demand: '6.1723', e1: '0.112364', e2: '0.086519', e3: '0.072458' };
const v2: Rates = { bcc: '24.00', demand: '6.6120', e1: '0.118021', e2: '0.090877', e3: '0.076107' };

describe('outside check, Duke Energy Carolinas SGS: a demand register read twice in the month', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('a check read on 15/09 (60.0 kW, register reset) and the month-end read (40.0 kW): the month is billed on 60.0 kW', async () => {
    await makeTemplate(h, sgs('SGS-A', 'NC-A', v1));
    const sub = await customer(h, { accountNumber: 'SGS-2001', serviceCode: 'SGS-A', batchCode: 'NC-A', startDate: '01/09/2026', openingReadings: { KWH: 0, KW: 0 } });
    await capture(h, [
      [sub, 'KW', '15/09/2026', '60.0'],
      [sub, 'KW', '30/09/2026', '40.0'],
      [sub, 'KWH', '30/09/2026', '10000'],
    ]);
    const { bills } = await billTerm(h, { serviceCode: 'SGS-A', batchCode: 'NC-A', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    const bill = bills[0];
    const demand = bill.lines.find((l: any) => l.componentCode === 'DEMAND');
    // By hand, September's billing demand is the higher of the two reads, 60.0 kW:
    //   BCC 22.39
    //   Demand (60.0 - 30) x 6.1723 = 185.169 -> 185.17
    //   Energy 3000 x 0.112364 + 6000 x 0.086519 + 1000 x 0.072458 = 928.664 -> 928.66
    //   EE 10000 x 0.004931 = 49.31
    //   charges 1185.53; tax 7% = 82.9871 -> 82.99; total 1268.52
    // billrun: 40.0 kW, 61.72, total 1136.43, explained "the highest since the reading of 01/09/2026"
    // although the register was read (and reset) on 15/09 at 60.0 (get-readings itself lists 15/09 as a
    // period's demand: consumption 60, kind maximum).
    assert.equal(demand.quantity, '60.0', demand.explanation);
    assert.equal(demand.amount, '185.17');
    assert.equal(bill.charges, '1185.53');
    assert.equal(bill.tax, '82.99');
    assert.equal(bill.total, '1268.52');
  });

  test('a read on the day new rates start (16/10, 55.0 kW) and at month end (35.0 kW): the month is billed on 55.0 kW, shared by days', async () => {
    await makeTemplate(h, sgs('SGS-B', 'NC-B', v1));
    const sub = await customer(h, { accountNumber: 'SGS-2002', serviceCode: 'SGS-B', batchCode: 'NC-B', startDate: '01/09/2026', openingReadings: { KWH: 0, KW: 0 } });
    await capture(h, [
      [sub, 'KW', '30/09/2026', '41.0'],
      [sub, 'KWH', '30/09/2026', '10000'],
    ]);
    await billTerm(h, { serviceCode: 'SGS-B', batchCode: 'NC-B', billingPeriodID: 202609, startDate: '01/09/2026', endDate: '30/09/2026' });
    await ok(h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', effectiveFrom: '16/10/2026', service: sgs('SGS-B', 'NC-B', v2) }), 'update-service');
    await capture(h, [
      [sub, 'KW', '16/10/2026', '55.0'],
      [sub, 'KW', '31/10/2026', '35.0'],
      [sub, 'KWH', '31/10/2026', '22400'],
    ]);
    const { bills } = await billTerm(h, { serviceCode: 'SGS-B', batchCode: 'NC-B', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    // By hand: October's billing demand is 55.0 kW (the register read 55.0 for 01/10-16/10 and 35.0 after);
    // the charge prorated by days across the rate change:
    //   (55.0 - 30) x (6.1723 x 15/31 + 6.6120 x 16/31) = 25 x 6.399241... = 159.981048... -> 159.98
    // billrun prices 35.0 kW: (35.0 - 30) x 6.399241... = 32.00 (14.93 + 17.07).
    assert.equal(componentTotal(bills[0], 'DEMAND'), '159.98', bills[0].lines.filter((l: any) => l.componentCode === 'DEMAND').map((l: any) => l.explanation).join('\n'));
  });
});
