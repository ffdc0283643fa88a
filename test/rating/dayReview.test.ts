// Review of the day's change 3c6d097..HEAD (2026-11-28), the calculation: a segment's tier bound
// after a version that wrote it otherwise (tiers.ts earlierAllowance, segmentBound).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import type { GraduatedTrace } from '../../src/rating/models/graduated.ts';

const meter = { meteredInputs: [{ code: 'water', label: 'Water', unit: 'kWh', decimals: 0 }] } satisfies Tariff;
const daily = (kwh: string, rounding: 'halfUp' | 'up' | 'down', decimals = 0): Tariff => ({
  ...meter,
  components: [
    {
      code: 'water',
      name: 'Energy',
      model: 'graduated',
      input: 'water',
      tiers: [{ upTo: kwh, rate: '0.40' }, { upTo: null, rate: '0.50' }],
      tierProration: { period: 'readingPeriod', basisDays: 1, decimals, rounding },
    },
  ],
});
const seasons = (winter: Tariff, summer: Tariff) =>
  rateBill({
    tariff: winter,
    versions: [
      { version: 1, from: '2026-01-01', tariff: winter },
      { version: 2, from: '2026-06-01', tariff: summer },
    ],
    term: { start: '2026-05-18', end: '2026-06-17' },
    subscription: { startDate: '2020-01-01' },
    readings: { water: { previous: { date: '2026-05-17', value: '20000' }, current: { date: '2026-06-17', value: '20600' } } },
    minorUnits: 2,
  });

describe('a carried bound when the earlier version rounded its bound by another rule', () => {
  // Winter 12.1 kWh a day rounded up to whole kWh, summer 16.4 rounded half up; 14 winter days
  // and 17 summer days, 600 kWh. The winter segment is given ceil(169.4) = 170. The summer
  // segment's bound is the running total's rounding less what the winter part was given:
  // round(448.2) - 170 = 278, so the bill's baseline is 448 (the allowance of the versions in
  // force, 448.2, rounded). segmentBound rounds the earlier allowance by the summer rule
  // instead (169), gives 448 - 169 = 279 and a baseline of 449, and its trace says "less the
  // 169 it was given" of a segment given 170.
  test('the winter part given 170 (rounded up): summer 278, the baseline 448, and the trace says 170', () => {
    const b = seasons(daily('12.1', 'up'), daily('16.4', 'halfUp'));
    const bounds = b.lines.map((l) => (l.trace as GraduatedTrace).tierProration!.bounds[0]!);
    assert.equal(bounds[0]!.scaled, '170', 'winter: 12.1 x 14 = 169.4, rounded up');
    assert.equal(bounds[1]!.carried?.rounded, bounds[0]!.scaled, 'what the earlier part was given is what its segment was given');
    assert.equal(Number(bounds[0]!.scaled) + Number(bounds[1]!.scaled), 448, `baseline ${bounds.map((x) => x.scaled).join(' + ')}; 12.1 x 14 + 16.4 x 17 = 448.2`);
  });

  // The same with the decimals: winter to whole kWh (169), summer to 0.1 kWh. The summer bound
  // is 448.2 - 169.4 = 278.8 (the earlier allowance rounded to the summer's decimals), so the
  // baseline is 447.8: 0.4 kWh of the versions' 448.2 lost, and the trace says the winter part
  // was given 169.4 where its segment was given 169.
  test('the winter part given 169 (0 decimals), summer to 0.1 kWh: the baseline 448.2, not 447.8', () => {
    const b = seasons(daily('12.1', 'halfUp', 0), daily('16.4', 'halfUp', 1));
    const bounds = b.lines.map((l) => (l.trace as GraduatedTrace).tierProration!.bounds[0]!);
    assert.equal(bounds[0]!.scaled, '169');
    assert.equal(bounds[1]!.carried?.rounded, '169', 'the winter segment was given 169');
    assert.equal(bounds[1]!.scaled, '279.2', '448.2 less the 169 given');
  });
});
