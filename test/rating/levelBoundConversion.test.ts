// A reviewer's finding (floor / excessOver): on a converted meter (m3 billed in kWh) across a
// version change, each segment's part is converted and rounded to the conversion's decimals
// on the running total (263 + 262 kWh), but boundByLevel shares the threshold by days to
// SPLIT_DECIMALS (262.5 + 262.5). The parts and the thresholds no longer split alike, so a
// customer exactly on the level is priced an excess (and a floor raises a part by half a unit).
//
// Worked by hand. November, 30 days; gas 0 -> 50 m3, x 10.5 = 525 kWh (0 decimals). The
// customer's allowance is 525 kWh; the penalty line prices only what is above 100% of it.
// Without a version change: 525 is not above 525: excess 0, 0.00; total 525 x 0.10 = 52.50.
// With version 2 from 16/11, identical to version 1, the bill must be the same 52.50.
// What the segments bill: parts 25 m3 + 25 m3 -> 262.5 -> 263 kWh, then 525 - 263 = 262 kWh;
// thresholds 525 x 15/30 = 262.5 each. Excess: 263 - 262.5 = 0.5 kWh x 1.00 = 0.50, and 0:
// a penalty of 0.50 on a customer who used exactly the allowance (total 53.00).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff = (): Tariff => ({
  meteredInputs: [{ code: 'gas', label: 'Gas', unit: 'm3', decimals: 0, conversion: { factor: '10.5', unit: 'kWh', decimals: 0 } }],
  unmeteredInputs: [{ code: 'allowance', label: 'Allowance (kWh)' }],
  components: [
    { code: 'gas', name: 'Gas', model: 'perUnit', input: 'gas', rate: '0.10' },
    { code: 'over', name: 'Gas above the allowance', model: 'perUnit', input: 'gas', rate: '1.00', excessOver: { input: 'allowance' } },
  ],
});

const input = {
  term: { start: '2026-11-01', end: '2026-11-30' },
  subscription: { startDate: '2020-01-01', unmetered: { allowance: 525 } },
  readings: { gas: { previous: { date: '2026-10-31', value: '0' }, current: { date: '2026-11-30', value: '50' } } },
  minorUnits: 2,
};

describe('an excess over a level on a converted meter across a version change', () => {
  test('a customer using exactly the allowance is priced no excess in either segment', () => {
    const whole = rateBill({ ...input, tariff: tariff() });
    assert.deepEqual(whole.lines.map((l) => [l.componentCode, l.quantity, l.amount]), [
      ['gas', '525', '52.50'],
      ['over', '0', '0.00'],
    ]);
    const split = rateBill({
      ...input,
      tariff: tariff(),
      versions: [
        { version: 1, from: '2020-01-01', tariff: tariff() },
        { version: 2, from: '2026-11-16', tariff: tariff() },
      ],
    });
    // fails: version 1's excess line is 0.5 kWh, 0.50 (263 kWh against a threshold of 262.5)
    assert.deepEqual(split.lines.filter((l) => l.componentCode === 'over').map((l) => [l.quantity, l.amount]), [
      ['0', '0.00'],
      ['0', '0.00'],
    ]);
    assert.equal(split.total, '52.50');
  });
});
