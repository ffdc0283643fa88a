// A reviewer's finding (floor / excessOver): in a segment of a bill spanning a version change the
// bound's threshold is the segment's share of the bill's (levelBound.ts, by billed days), but
// explainBound writes it as if it were the percentage of the level itself:
//   "at least 60% of contract 100 = 30 kW: 30 kW priced, not 20"
// 60% of 100 is 60, not 30: the customer's explanation states false arithmetic and never says
// the threshold was shared by days (tier bounds in a segment say "x 15/30 of the bill's days").
//
// Worked by hand. November, 30 days; demand 40.0 kW; contract 100, floor 60%: 60 kW for the
// bill. Version 2 from 16/11: each half 15 of the 30 days, its share of the floor
// 60 x 15/30 = 30 kW, of the demand 20.0 kW. The explanation must not say "60% of contract
// 100 = 30"; it should give 60 and the share of it (its part of the demand) that makes 30.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import { explainLine } from '../../src/bills/explain.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff = (rate: string): Tariff => ({
  meteredInputs: [{ code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
  unmeteredInputs: [{ code: 'contract', label: 'Contract demand (kW)' }],
  components: [{ code: 'demand', name: 'Demand charge', model: 'perUnit', input: 'demand', rate, floor: { input: 'contract', percentage: '60' } }],
});

describe("a segment's floor in the bill's explanation", () => {
  test('says the floor of the bill and the share of it by days, not "60% of 100 = 30"', () => {
    const b = rateBill({
      tariff: tariff('12.50'),
      versions: [
        { version: 1, from: '2020-01-01', tariff: tariff('12.50') },
        { version: 2, from: '2026-11-16', tariff: tariff('14.00') },
      ],
      term: { start: '2026-11-01', end: '2026-11-30' },
      subscription: { startDate: '2020-01-01', unmetered: { contract: 100 } },
      readings: { demand: { previous: { date: '2026-10-31', value: '0' }, current: { date: '2026-11-30', value: '40.0' } } },
      minorUnits: 2,
    });
    const first = b.lines[0]!;
    assert.equal(first.trace.bound?.threshold, '30');
    const text = explainLine(first);
    // fails: "... at least 60% of contract 100 = 30 kW: 30 kW priced, not 20; 30 x 12.5; ..."
    assert.doesNotMatch(text, /60% of contract 100 = 30 kW/, text);
    assert.match(text, /60% of contract 100 = 60 kW/, text);
    // The part's share of the bill's floor: its part of the demand, 20 of 40 kW (shared by days here).
    assert.match(text, /= 60 kW for the bill, 30 kW of it in this part \(its part of the consumption, 20 of 40\): 30 kW priced, not 20/, text);
  });
});
