// A reviewer's finding (floor / excessOver): across a version change, a meter read on the change
// date splits its consumption between the segments BY READINGS, but boundByLevel still shares
// the threshold BY DAYS (rateSegments.ts passes shared = true for every metered part;
// levelBound.ts shares it with shareOfBill by billed days). The greater of two parts is then
// not the part of the greater: a segment that used little is raised to half the floor while
// the other keeps its large part, and the bill prices more than the whole month's floor rule.
//
// Worked by hand. November, 30 days; energy 0 -> 100 kWh over the month, read 10 on 16/11 (the
// day version 2 starts: 10 kWh in 01-15/11, 90 kWh in 16-30/11). Contract 100, floor 60%:
// threshold 60. Version 2 is identical to version 1 (rate 1.00), so the bill must be the bill
// without the change:
//   energy  max(100, 60) = 100 kWh x 1.00      = 100.00
//   excess  100 above 60 = 40 kWh x 1.00       =  40.00      total 140.00
// What the segments bill: thresholds 30 + 30 (by days) against 10 + 90 (by readings):
//   energy  max(10, 30) + max(90, 30) = 30 + 90 = 120 kWh -> 120.00 (20 kWh never used)
//   excess  0 + (90 - 30) = 60 kWh              ->  60.00 (20 kWh of excess too many)
// A readings split is the consumption as measured; the held parts must add up to what the
// bill's rule gives for the whole (100 and 40 kWh): 140.00, not 180.00.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff = (): Tariff => ({
  meteredInputs: [{ code: 'energy', label: 'Energy', unit: 'kWh', decimals: 0 }],
  unmeteredInputs: [{ code: 'contract', label: 'Contracted energy (kWh)' }],
  components: [
    { code: 'energy', name: 'Energy (take or pay 60%)', model: 'perUnit', input: 'energy', rate: '1.00', floor: { input: 'contract', percentage: '60' } },
    { code: 'excess', name: 'Energy above 60%', model: 'perUnit', input: 'energy', rate: '1.00', excessOver: { input: 'contract', percentage: '60' } },
  ],
});

const input = {
  term: { start: '2026-11-01', end: '2026-11-30' },
  subscription: { startDate: '2020-01-01', unmetered: { contract: 100 } },
  readings: { energy: { previous: { date: '2026-10-31', value: '0' }, current: { date: '2026-11-30', value: '100' } } },
  minorUnits: 2,
};

describe('a floor and an excess on a meter read on the change date', () => {
  test('an identical version read on its first day bills what the month without the change bills', () => {
    const whole = rateBill({ ...input, tariff: tariff() });
    assert.equal(whole.total, '140.00');
    const split = rateBill({
      ...input,
      tariff: tariff(),
      versions: [
        { version: 1, from: '2020-01-01', tariff: tariff() },
        { version: 2, from: '2026-11-16', tariff: tariff() },
      ],
      changeReadings: { energy: { '2026-11-16': '10' } },
    });
    assert.equal(split.lines[0]!.trace.segment?.consumption?.by, 'readings');
    const priced = (code: string) => split.lines.filter((l) => l.componentCode === code).reduce((n, l) => n + Number(l.quantity), 0);
    // 100 kWh priced on the energy line (the month's use is above the floor), 40 kWh of excess.
    assert.equal(priced('energy'), 100, 'energy priced over the segments (fails: 30 + 90 = 120)');
    assert.equal(priced('excess'), 40, 'excess priced over the segments (fails: 0 + 60 = 60)');
    assert.equal(split.total, '140.00');
  });
});
