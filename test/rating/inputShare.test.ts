// A component priced on a share of its meter's consumption (inputShare): sewage billed on 70%
// of the water used, at most 35 kL a bill, as municipal bills print it ("Sewerage: 70% of
// 40 kL = 28 kL"; an outside check of published utility bills found no way to say it).
// Amounts worked out by hand in the comments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import { explainLine } from '../../src/bills/explain.ts';

const JANUARY = { start: '2025-01-01', end: '2025-01-31' }; // 31 days

// Water 20.00 a kL; sewage 10.00 a kL on 70% of the water, at most 35 kL.
const tariff = (sewerRate = '10', maximum: string | null = '35'): Tariff => ({
  meteredInputs: [{ code: 'water', label: 'Water', unit: 'kL', decimals: 1 }],
  unmeteredInputs: [{ code: 'rooms', label: 'Rooms', default: 1 }],
  components: [
    { code: 'water', name: 'Water', model: 'perUnit', input: 'water', rate: '20' },
    { code: 'sewer', name: 'Sewerage', model: 'perUnit', input: 'water', rate: sewerRate, inputShare: { percentage: '70', ...(maximum === null ? {} : { maximum }) } },
  ],
});

const bill = (used: string, t: Tariff = tariff(), versions?: TariffVersion[]) =>
  rateBill({
    tariff: t,
    ...(versions === undefined ? {} : { versions }),
    term: JANUARY,
    subscription: { startDate: '2020-01-01' },
    readings: { water: { previous: { date: '2024-12-31', value: '1000' }, current: { date: '2025-01-31', value: String(1000 + Number(used)) } } },
    minorUnits: 2,
  });

describe('inputShare: a share of the consumption', () => {
  const cases: [string, string, string, string][] = [
    // [water used, sewer quantity, sewer amount, why]
    // The quantity is shown to the meter's decimals (one), or to its own when it has more.
    ['40', '28.0', '280.00', '70% of 40 = 28 kL, under the 35 kL maximum'],
    ['50', '35.0', '350.00', '70% of 50 = 35: exactly the maximum'],
    ['60', '35.0', '350.00', '70% of 60 = 42, at most 35'],
    ['0', '0.0', '0.00', 'no water, no sewage'],
    ['12.3', '8.61', '86.10', '70% of 12.3 = 8.61: shown to its own decimals, not the meter\'s one'],
  ];
  for (const [used, quantity, amount, why] of cases) {
    test(`${used} kL of water: sewage ${quantity} kL, ${amount} (${why})`, () => {
      const b = bill(used);
      const sewer = b.lines.find((l) => l.componentCode === 'sewer')!;
      assert.equal(sewer.quantity, quantity);
      assert.equal(sewer.amount, amount);
      assert.equal(b.lines.find((l) => l.componentCode === 'water')!.quantity, Number(used).toFixed(1), 'the water line prices the whole');
    });
  }

  test('the trace keeps the consumption, the share and the maximum; the words say them', () => {
    const capped = bill('60').lines.find((l) => l.componentCode === 'sewer')!;
    assert.deepEqual(capped.trace.share, { of: '60', percentage: '70', share: '42', maximum: '35', quantity: '35' });
    assert.match(explainLine(capped), /priced on 70% of 60 kL = 42 kL, at most 35 kL: 35 kL/);
    const under = bill('40').lines.find((l) => l.componentCode === 'sewer')!;
    assert.match(explainLine(under), /priced on 70% of 40 kL = 28 kL;/);
    const unlimited = bill('60', tariff('10', null)).lines.find((l) => l.componentCode === 'sewer')!;
    assert.deepEqual([unlimited.quantity, unlimited.trace.share?.maximum], ['42.0', undefined]);
  });

  test('across a version change on 16/01 the maximum is shared by days, so the bill never prices more than 35 kL', () => {
    // 60 kL shared by days: 29.032258 (15 days) and 30.967742 (16 days); 70% of each: 20.3225806 and
    // 21.6774194; the maximum 35 x 15/31 = 16.935484, then 35 - 16.935484 = 18.064516: both capped,
    // 35 kL in all. 16.935484 x 10 = 169.35484 -> 169.35; 18.064516 x 12 = 216.774192, rounded on
    // the charge's running total (386.129032 -> 386.13, less 169.35): 216.78.
    const b = bill('60', tariff('10'), [
      { version: 1, from: JANUARY.start, tariff: tariff('10') },
      { version: 2, from: '2025-01-16', tariff: tariff('12') },
    ]);
    const sewer = b.lines.filter((l) => l.componentCode === 'sewer');
    assert.deepEqual(sewer.map((l) => [l.quantity, l.amount]), [
      ['16.935484', '169.35'],
      ['18.064516', '216.78'],
    ]);
  });

  test('refused on an unmetered input, and a share or maximum not above zero, each on its field', () => {
    const issues = checkTariff({
      ...tariff(),
      components: [
        { code: 'rooms', name: 'Rooms', model: 'perUnit', input: 'rooms', rate: '1', inputShare: { percentage: '70' } },
        { code: 'sewer', name: 'Sewerage', model: 'graduated', input: 'water', tiers: [{ upTo: null, rate: '1' }], inputShare: { percentage: '0', maximum: '-1' } },
      ],
    });
    assert.deepEqual(
      issues.map((i) => i.path),
      ['service.components[0].inputShare', 'service.components[1].inputShare.percentage', 'service.components[1].inputShare.maximum'],
    );
  });
});
