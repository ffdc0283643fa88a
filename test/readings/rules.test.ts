// A reading's value: the plain values most meters show are checked without a Decimal
// (rules.ts, consumption.ts's millionths); every value must get the answer the Decimal
// rule gives.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkReadingValue, fitReadings, type ChainPoint } from '../../src/readings/rules.ts';
import { Dec } from '../../src/rating/money.ts';
import type { MeteredInput } from '../../src/rating/tariff.ts';
import type { ErrorDetail } from '../../src/errors.ts';

/** The rule in Decimals: a decimal number, not negative, within the meter's decimals, below its roll-over, at most 20 digits. */
function byDecimals(meter: MeteredInput, raw: string): string | null {
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) return null;
  const v = new Dec(raw);
  if (v.isNegative() || v.decimalPlaces() > meter.decimals) return null;
  if (meter.rolloverAt !== undefined && v.gte(String(meter.rolloverAt))) return null;
  if (v.precision(true) > 20) return null;
  if (v.precision(true) - v.decimalPlaces() > 14) return null;
  return v.toFixed();
}

test('checkReadingValue answers what the Decimal rule does, for plain values and every other text', () => {
  const meter = fc.record({
    code: fc.constant('M'),
    label: fc.constant('Meter'),
    unit: fc.constant('m3'),
    decimals: fc.integer({ min: 0, max: 4 }),
    rolloverAt: fc.option(fc.oneof(fc.constantFrom(10000, 100000, 99999.9, 1e9), fc.integer({ min: 1, max: 1e9 })), { nil: undefined }),
  }) as fc.Arbitrary<MeteredInput>;
  const text = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 1e9 }), fc.option(fc.stringMatching(/^[0-9]{1,7}$/), { nil: undefined })).map(([w, d]) => (d === undefined ? String(w) : `${w}.${d}`)),
    fc.stringMatching(/^-?0?[0-9]{0,12}(\.[0-9]{0,8})?$/),
    fc.constantFrom('', ' 1', '1e3', '.5', '1.', '00', '0.000000', '99999.9', '100000', '-0', '99999999999999.5', '123456789012345', '100000000000000'),
  );
  fc.assert(
    fc.property(meter, text, (m, raw) => {
      const issues: ErrorDetail[] = [];
      const got = checkReadingValue(m, raw, 'value', issues);
      assert.equal(got, byDecimals(m, raw), raw);
      assert.equal(issues.length, got === null ? 1 : 0, raw);
    }),
    { numRuns: 20000 },
  );
});

describe('fitReadings: a new reading among the meter\'s recorded ones', () => {
  const meter = { code: 'M', label: 'Meter', unit: 'm3', decimals: 0, rolloverAt: 100000 } as MeteredInput;
  const A = (date: string, value: string, id = date) => ({ readingId: id, date, value });
  const E = (date: string, value: string, id = date) => ({ readingId: id, date, value, estimated: true });
  const fit = (existing: ChainPoint[], additions: ChainPoint[]) => {
    const issues: ErrorDetail[] = [];
    const results = fitReadings(meter, existing, additions.map((a, i) => ({ ...a, path: `r${i}` })), issues);
    return { results: results.map((r) => (r.quantity === null ? r.kind : `${r.kind} ${r.quantity}`)), issues: issues.map((i) => `${i.path}: ${i.message.split(';')[0]}`) };
  };
  // An actual 62, then an estimate of 94: the estimate was too high (an attacker's case).
  const overEstimated = [A('2026-07-31', '62'), E('2026-08-31', '94')];
  const cases: [string, ChainPoint[], ChainPoint[], { results: string[]; issues: string[] }][] = [
    ['an actual below the estimate before it, above the actual before that: taken, used since that actual', overEstimated, [A('2026-11-20', '80')], { results: ['normal 18'], issues: [] }],
    ['an actual below the actual before the estimate: refused against that actual', overEstimated, [A('2026-11-20', '50')], { results: ['first'], issues: ['r0: 50 is lower than the reading before it (62 on 31/07/2026)'] }],
    ['a new estimate below the estimate before it: refused', overEstimated, [E('2026-11-20', '80')], { results: ['first'], issues: ['r0: 80 is lower than the reading before it (94 on 31/08/2026)'] }],
    // The cascade does not spread an estimate dated after the last actual: the meter would go down (a reviewer's finding).
    ['an actual above a later estimate: refused', [A('2026-07-31', '62'), E('2026-10-31', '60')], [A('2026-09-15', '70')], { results: ['first'], issues: ['r0: 70 is higher than the reading after it (60 on 31/10/2026)'] }],
    ['an actual above a later actual: refused', [A('2026-07-31', '62'), A('2026-10-31', '90')], [A('2026-09-15', '95')], { results: ['first'], issues: ['r0: 95 is higher than the reading after it (90 on 31/10/2026)'] }],
    // Sent together or one by one, the same answer (a reviewer's finding: a new estimate bound a new actual).
    ['a new estimate and a new actual below it: both taken, the actual since the actual before', [A('2026-01-01', '50')], [E('2026-02-01', '100'), A('2026-03-01', '90')], { results: ['normal 50', 'normal 40'], issues: [] }],
    // A refused reading binds nothing: fitted again without it (a reviewer's finding: 120 was taken above April's 100).
    [
      'a new reading refused leaves the one before it fitted against the recorded reading after',
      [A('2026-01-01', '50'), A('2026-04-01', '100')],
      [A('2026-02-01', '120'), A('2026-03-01', '10')],
      { results: ['first', 'first'], issues: ['r1: 10 is lower than the reading before it (120 on 01/02/2026)', 'r0: 120 is higher than the reading after it (100 on 01/04/2026)'] },
    ],
    ['a day an estimate reads already: refused, whatever the kind', overEstimated, [A('2026-08-31', '70')], { results: ['first'], issues: ['r0: a reading of meter M on 31/08/2026 exists already (readingID 2026-08-31)'] }],
    ['two new readings: the second fitted past the first when the first is refused', [A('2026-07-31', '62')], [A('2026-07-31', '70'), A('2026-08-31', '65')], { results: ['first', 'normal 3'], issues: ['r0: a reading of meter M on 31/07/2026 exists already (readingID 2026-07-31)'] }],
    ['two new readings, the second lower: the second refused', [A('2026-07-31', '62')], [A('2026-08-31', '70'), A('2026-09-30', '65')], { results: ['normal 8', 'first'], issues: ['r1: 65 is lower than the reading before it (70 on 31/08/2026)'] }],
    ['a roll-over past the dial: taken as one', [A('2026-07-31', '99990')], [A('2026-08-31', '5')], { results: ['rollover 15'], issues: [] }],
  ];
  for (const [name, existing, additions, expected] of cases) {
    test(name, () => assert.deepEqual(fit(existing, additions), expected));
  }
});
