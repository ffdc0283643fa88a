// The perDay charge model: a daily standing charge, rate x the days billed. Amounts worked
// out by hand in the comments (the UK price cap of October 2024 as a new user's check: a
// standing charge of 58.0857p a day, GBP, half up).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import { ratePerDay } from '../../src/rating/models/perDay.ts';
import type { Component, Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import { explainLine } from '../../src/bills/explain.ts';
import { ctx, d, prep } from './fixtures.ts';

const standing: Component = { code: 'standing', name: 'Standing charge', model: 'perDay', rate: '0.580857' };
const energy: Component = { code: 'energy', name: 'Electricity', model: 'perUnit', input: 'kwh', rate: '0.233333' };
const tariff = (rate = '0.580857'): Tariff => ({
  meteredInputs: [{ code: 'kwh', label: 'Electricity meter', unit: 'kWh', decimals: 0 }],
  components: [{ ...standing, rate }, energy],
});
function bill(term: { start: string; end: string }, over: Partial<RateBillInput> = {}) {
  return rateBill({
    tariff: tariff(),
    term,
    subscription: { startDate: '2020-01-01' },
    readings: { kwh: { previous: { date: '2024-09-30', value: '12000' }, current: { date: term.end, value: '12242' } } },
    minorUnits: 2,
    ...over,
  });
}

describe('perDay', () => {
  test('the model: rate x activeDays, the days its quantity', () => {
    const c = prep({ code: 's', name: 'S', model: 'perDay', rate: '0.580857' });
    const r = ratePerDay(c, d(0), ctx({ activeDays: 30, termDays: 30 }));
    assert.equal(r.amount.toFixed(), '17.42571');
    assert.equal(r.quantity?.toFixed(), '30');
    assert.deepEqual(r.trace, { model: 'perDay', days: 30, rate: '0.580857' });
    assert.equal(c.prorate, false);
  });

  const cases: [string, { start: string; end: string }, Partial<RateBillInput>, string, string][] = [
    // 31 x 0.580857 = 18.006567 -> 18.01
    ['October, 31 days', { start: '2024-10-01', end: '2024-10-31' }, {}, '31', '18.01'],
    // 30 x 0.580857 = 17.42571 -> 17.43 (a flat amount worked out for 31 days gave 18.01 here)
    ['November, 30 days', { start: '2024-11-01', end: '2024-11-30' }, {}, '30', '17.43'],
    // connected 16/11: 15 days x 0.580857 = 8.712855 -> 8.71
    ['connected on the 16th of November', { start: '2024-11-01', end: '2024-11-30' }, { subscription: { startDate: '2024-11-16' } }, '15', '8.71'],
    // suspended 10/11 to 19/11: 20 days x 0.580857 = 11.61714 -> 11.62
    ['suspended ten days', { start: '2024-11-01', end: '2024-11-30' }, { subscription: { startDate: '2020-01-01', suspended: [{ start: '2024-11-10', end: '2024-11-19' }] } }, '20', '11.62'],
  ];
  for (const [what, term, over, days, amount] of cases) {
    test(`${what}: ${days} days, ${amount}`, () => {
      const b = bill(term, over);
      const line = b.lines.find((l) => l.componentCode === 'standing')!;
      assert.deepEqual([line.quantity, line.rate, line.amount], [days, '0.580857', amount]);
      assert.equal(line.trace.proration, undefined, 'the days are its quantity, never a proration too');
      assert.match(explainLine(line), new RegExp(`^Standing charge: ${days} day\\(s\\) x 0\\.580857; `));
    });
  }

  test('across a version change each segment pays its days at its version (17 at the old rate, 14 at the new)', () => {
    // 15/12/2024 to 14/01/2025, new rate from 01/01/2025: 17 x 0.580857 = 9.874569 -> 9.87, 14 x 0.600000 = 8.40
    const versions: TariffVersion[] = [
      { version: 1, from: '2024-12-15', tariff: tariff() },
      { version: 2, from: '2025-01-01', tariff: tariff('0.6') },
    ];
    const b = bill({ start: '2024-12-15', end: '2025-01-14' }, { versions, readings: { kwh: { previous: { date: '2024-12-14', value: '20000' }, current: { date: '2025-01-14', value: '20310' } } } });
    const days = b.lines.filter((l) => l.componentCode === 'standing').map((l) => [l.trace.segment?.version, l.quantity, l.amount]);
    assert.deepEqual(days, [
      [1, '17', '9.87'],
      [2, '14', '8.40'],
    ]);
  });
});
