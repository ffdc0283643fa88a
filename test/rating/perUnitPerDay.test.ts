// The perUnitPerDay charge model: a level priced by the day, quantity x the days billed x
// rate: a demand charge per kW per day on the month's maximum demand (Australian network
// demand tariffs), a capacity charge per kVA per day on a contracted capacity (South African
// municipal business tariffs). Amounts worked out by hand in the comments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import { ratePerUnitPerDay } from '../../src/rating/models/perUnitPerDay.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import { explainLine } from '../../src/bills/explain.ts';
import { ctx, d, prep } from './fixtures.ts';

const OCTOBER = { start: '2026-10-01', end: '2026-10-31' }; // 31 days

const tariff = (demandRate = '0.4512', capacityRate = '0.2100'): Tariff => ({
  meteredInputs: [
    { code: 'energy', label: 'Energy', unit: 'kWh', decimals: 0 },
    { code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' },
  ],
  unmeteredInputs: [{ code: 'capacity', label: 'Contracted capacity (kVA)', default: 100 }],
  components: [
    { code: 'energy', name: 'Energy', model: 'perUnit', input: 'energy', rate: '0.1120' },
    { code: 'demand', name: 'Demand charge', model: 'perUnitPerDay', input: 'demand', rate: demandRate },
    { code: 'capacity', name: 'Capacity charge', model: 'perUnitPerDay', input: 'capacity', rate: capacityRate },
  ],
});

const readings = (demand: string, from = '2026-09-30', to = '2026-10-31'): RateBillInput['readings'] => ({
  energy: { previous: { date: from, value: '50000' }, current: { date: to, value: '62400' } },
  demand: { previous: { date: from, value: '41.2' }, current: { date: to, value: demand } },
});

function bill(over: Partial<RateBillInput> = {}) {
  return rateBill({ tariff: tariff(), term: OCTOBER, subscription: { startDate: '2020-01-01' }, readings: readings('52.4'), minorUnits: 2, ...over });
}
const line = (b: ReturnType<typeof rateBill>, code: string) => b.lines.filter((l) => l.componentCode === code);

describe('perUnitPerDay', () => {
  test('the model: quantity x activeDays x rate, the level its quantity', () => {
    const c = prep({ code: 'c', name: 'C', model: 'perUnitPerDay', input: 'rooms', rate: '0.4512' });
    // 52.4 x 31 = 1624.4; x 0.4512 = 732.92928
    const r = ratePerUnitPerDay(c, d('52.4'), ctx({ activeDays: 31, termDays: 31 }));
    assert.equal(r.amount.toFixed(), '732.92928');
    assert.equal(r.quantity, undefined, 'the line shows the level, not unit-days');
    assert.deepEqual(r.trace, { model: 'perUnitPerDay', quantity: '52.4', days: 31, rate: '0.4512' });
    assert.equal(c.prorate, false);
  });

  const cases: [string, Partial<RateBillInput>, [string, string][]][] = [
    // demand 52.4 x 31 x 0.4512 = 732.92928 -> 732.93; capacity 100 (default) x 31 x 0.21 = 651.00
    ['October, the demand read 52.4 kW after 41.2 (the reading itself, not the difference)', {}, [['52.4', '732.93'], ['100', '651.00']]],
    // capacity 250 kVA: 250 x 31 x 0.21 = 1627.50
    ['a contracted capacity of 250 kVA', { subscription: { startDate: '2020-01-01', unmetered: { capacity: 250 } } }, [['52.4', '732.93'], ['250', '1627.50']]],
    // connected 16/10: 16 days; 52.4 x 16 x 0.4512 = 378.28608 -> 378.29; 100 x 16 x 0.21 = 336.00
    [
      'connected on the 16th (16 days)',
      { subscription: { startDate: '2026-10-16' }, readings: readings('52.4', '2026-10-16', '2026-10-31') },
      [['52.4', '378.29'], ['100', '336.00']],
    ],
    // suspended 10/10 to 19/10: 21 days; 52.4 x 21 = 1100.4, x 0.4512 = 496.50048 -> 496.50; 100 x 21 x 0.21 = 441.00
    [
      'suspended ten days (21 billed)',
      { subscription: { startDate: '2020-01-01', suspended: [{ start: '2026-10-10', end: '2026-10-19' }] } },
      [['52.4', '496.50'], ['100', '441.00']],
    ],
  ];
  for (const [what, over, expected] of cases) {
    test(what, () => {
      const b = bill(over);
      const got = ['demand', 'capacity'].map((code) => {
        const [l] = line(b, code);
        assert.equal(l!.trace.proration, undefined, 'the days are in the price, never a proration too');
        return [l!.quantity, l!.amount];
      });
      assert.deepEqual(got, expected);
    });
  }

  test('the line: the level in its unit, the daily rate, the days in the trace and the words', () => {
    const [demand] = line(bill(), 'demand');
    assert.deepEqual([demand!.quantity, demand!.unit, demand!.rate, demand!.amount], ['52.4', 'kW', '0.4512', '732.93']);
    assert.match(explainLine(demand!), /: 52\.4 billed; 52\.4 x 31 day\(s\) x 0\.4512; 732\.92928 rounded half up to 732\.93\.$/);
    const [capacity] = line(bill(), 'capacity');
    assert.equal(capacity!.unit, undefined);
    assert.match(explainLine(capacity!), /^Capacity charge: capacity 100 \(the default\); 100 x 31 day\(s\) x 0\.21; amount 651\.00\.$/);
  });

  test('across a version change each segment prices the whole demand for its own days at its rate', () => {
    // From 16/10 the demand rate is 0.5000 and the capacity rate 0.2500; demand 60.0 kW:
    // 1 to 15: 60 x 15 x 0.4512 = 406.08; 16 to 31: 60 x 16 x 0.5 = 480.00 (not 60 shared by days)
    // capacity 100: 100 x 15 x 0.21 = 315.00; 100 x 16 x 0.25 = 400.00
    const versions: TariffVersion[] = [
      { version: 1, from: '2026-10-01', tariff: tariff() },
      { version: 2, from: '2026-10-16', tariff: tariff('0.5000', '0.2500') },
    ];
    const b = bill({ versions, readings: readings('60.0') });
    const parts = (code: string) => line(b, code).map((l) => [l.trace.segment?.version, l.quantity, l.amount]);
    assert.deepEqual(parts('demand'), [
      [1, '60.0', '406.08'],
      [2, '60.0', '480.00'],
    ]);
    assert.deepEqual(parts('capacity'), [
      [1, '100', '315.00'],
      [2, '100', '400.00'],
    ]);
    // The energy beside it is still shared by days: 12400 kWh, 15/31 and 16/31.
    assert.deepEqual(
      line(b, 'energy').map((l) => l.quantity),
      ['6000', '6400'],
    );
  });

  test('each part is its own days at its own rate, rounded alone (an outside check across the 1 July price change)', () => {
    // 130 kVA; 16/06 to 30/06 at 0.24563: 130 x 15 x 0.24563 = 478.9785 -> 478.98;
    // 01/07 to 15/07 at 0.2521: 130 x 15 x 0.2521 = 491.595 -> 491.60 (carried on the running
    // total it was 970.5735 -> 970.57 less 478.98 = 491.59, not what "130 x 0.2521 x 15 days" prints).
    const t = (rate: string): Tariff => ({ unmeteredInputs: [{ code: 'capacity', label: 'kVA' }], components: [{ code: 'capacity', name: 'Capacity', model: 'perUnitPerDay', input: 'capacity', rate }] });
    const b = rateBill({
      tariff: t('0.24563'),
      versions: [
        { version: 1, from: '2026-06-16', tariff: t('0.24563') },
        { version: 2, from: '2026-07-01', tariff: t('0.2521') },
      ],
      term: { start: '2026-06-16', end: '2026-07-15' },
      subscription: { startDate: '2020-01-01', unmetered: { capacity: 130 } },
      minorUnits: 2,
    });
    assert.deepEqual(b.lines.map((l) => [l.amount, l.trace.carried]), [
      ['478.98', undefined],
      ['491.60', undefined],
    ]);
  });

  test('a level that changes inside the term: each value for its own days', () => {
    // capacity 100 kVA to 15/10, 250 from 16/10: 100 x 15 x 0.21 = 315.00; 250 x 16 x 0.21 = 840.00
    const b = bill({
      versions: [{ version: 1, from: '2026-10-01', tariff: tariff() }],
      subscription: { startDate: '2020-01-01', unmetered: { capacity: 100 }, levels: [{ from: '2026-10-16', unmetered: { capacity: 250 } }] },
    });
    assert.deepEqual(
      line(b, 'capacity').map((l) => [l.quantity, l.amount]),
      [
        ['100', '315.00'],
        ['250', '840.00'],
      ],
    );
  });

  test('saved only on a level: a cumulative meter is refused, a missing or unknown input too', () => {
    const on = (input: string | undefined) =>
      checkTariff({ ...tariff(), components: [{ code: 'x', name: 'X', model: 'perUnitPerDay', ...(input === undefined ? {} : { input }), rate: '0.45' } as never] });
    assert.deepEqual(on('demand'), []);
    assert.deepEqual(on('capacity'), []);
    const kwh = on('energy');
    assert.equal(kwh.length, 1);
    assert.equal(kwh[0]!.path, 'service.components[0].input');
    assert.match(kwh[0]!.message, /'energy' is a cumulative meter/);
    assert.equal(on(undefined)[0]?.path, 'service.components[0].input');
    assert.match(on('nothing')[0]!.message, /no metered or unmetered input with code 'nothing'/);
  });
});
