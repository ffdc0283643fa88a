// A reviewer's finding (perUnitPerDay): a demand register with a conversion (read in W, billed
// in kW) priced per kW per day, in a term spanning a version change. Each segment prices the
// whole demand converted (52400 W x 0.001 = 52.4 kW) for its days; the amounts are right, but
// the level branch of rateSegments.ts converts the demand (billedQuantity) and keeps the
// conversion nowhere: not on the reading's trace (as rateBill does without segments) nor on
// segment.consumption (as a segment's line on a cumulative meter has it, docs/rating.md "A
// meter's conversion": "the segment's trace says it"). So the line reads "52400 billed; 52.4 x
// 15 day(s) x 0.4512": the bill's explanation never says how 52400 W became 52.4 kW, and the
// stored trace has no record of the factor the bill was priced by (a factor may change with
// the version).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import { explainLine } from '../../src/bills/explain.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff = (rate: string): Tariff => ({
  meteredInputs: [{ code: 'demand', label: 'Demand', unit: 'W', decimals: 0, register: 'maximum', conversion: { factor: '0.001', unit: 'kW', decimals: 1 } }],
  components: [{ code: 'demand', name: 'Demand charge', model: 'perUnitPerDay', input: 'demand', rate }],
});

const input: RateBillInput = {
  tariff: tariff('0.4512'),
  term: { start: '2026-10-01', end: '2026-10-31' },
  subscription: { startDate: '2020-01-01' },
  readings: { demand: { previous: { date: '2026-09-30', value: '41200' }, current: { date: '2026-10-31', value: '52400' } } },
  minorUnits: 2,
};

describe('perUnitPerDay on a converted demand register across a version change', () => {
  test('without segments the explanation says the conversion (the reference)', () => {
    const [l] = rateBill(input).lines;
    assert.match(explainLine(l!), /52400 billed, x 0\.001 = 52\.4 kW; 52\.4 x 31 day\(s\) x 0\.4512/);
  });

  test('each segment line says the conversion of the demand it prices', () => {
    // 52400 W x 0.001 = 52.4 kW; 01/10-15/10: 52.4 x 15 x 0.4512 = 354.6432 -> 354.64;
    // 16/10-31/10: 52.4 x 16 x 0.5 = 419.20.
    const b = rateBill({
      ...input,
      versions: [
        { version: 1, from: '2026-10-01', tariff: tariff('0.4512') },
        { version: 2, from: '2026-10-16', tariff: tariff('0.5') },
      ],
    });
    assert.deepEqual(
      b.lines.map((l) => [l.quantity, l.unit, l.amount]),
      [
        ['52.4', 'kW', '354.64'],
        ['52.4', 'kW', '419.20'],
      ],
    );
    for (const l of b.lines) {
      const conversion = l.trace.reading?.conversion ?? l.trace.segment?.consumption?.conversion;
      assert.equal(conversion?.factor, '0.001', `the trace of the ${l.trace.segment?.version} segment's line keeps the factor it was priced by`);
      assert.match(explainLine(l), /x 0\.001 = 52\.4 kW/);
    }
  });
});
