// A reading's value: the plain values most meters show are checked without a Decimal
// (rules.ts, consumption.ts's millionths); every value must get the answer the Decimal
// rule gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkReadingValue } from '../../src/readings/rules.ts';
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
