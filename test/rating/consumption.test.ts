import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { consumptionBetween, consumptionOfTexts, millionthsOf, textOfMillionths, type ConsumptionKind } from '../../src/rating/consumption.ts';
import { daysInclusive, dayNumber } from '../../src/rating/days.ts';
import { RatingError } from '../../src/rating/errors.ts';
import { Dec } from '../../src/rating/money.ts';

describe('consumptionBetween', () => {
  // [previous, current, rolloverAt, kind, quantity]
  const cases: [string, string, string | null, ConsumptionKind, string, string][] = [
    ['100', '150', null, 'normal', '50', 'current above previous'],
    ['100', '100', null, 'normal', '0', 'no use'],
    ['100', '150', '100000', 'normal', '50', 'a roll-over meter read normally'],
    ['99990', '25', '100000', 'rollover', '35', '99990 -> 99999 -> 0 -> 25: 10 + 25'],
    ['60001', '10000', '100000', 'rollover', '49999', 'just under half a turn: accepted'],
    ['60000', '10000', '100000', 'negative', '-50000', 'exactly half a turn: refused'],
    ['150', '100', '100000', 'negative', '-50', 'slightly backwards is a misread, not 99950 units'],
    ['150', '100', null, 'negative', '-50', 'no roll-over value: backwards is negative'],
    ['9999.5', '0.3', '10000', 'rollover', '0.8', 'decimals: 0.5 + 0.3'],
    ['0', '1000000000000', null, 'normal', '1000000000000', 'huge'],
  ];
  for (const [previous, current, rollover, kind, quantity, why] of cases) {
    test(`${previous} -> ${current}${rollover === null ? '' : ` (rolls at ${rollover})`}: ${kind} ${quantity}, ${why}`, () => {
      const c = consumptionBetween(new Dec(previous), new Dec(current), rollover === null ? null : new Dec(rollover));
      assert.equal(c.kind, kind);
      assert.equal(c.quantity.toFixed(), quantity);
    });
  }
});

describe('day numbers (no time zone, no Date)', () => {
  test('1970-01-01 is day 0, and days count across months and years', () => {
    assert.equal(dayNumber('1970-01-01'), 0);
    assert.equal(dayNumber('2000-03-01') - dayNumber('2000-02-28'), 2); // 2000 is a leap year
    assert.equal(dayNumber('1900-03-01') - dayNumber('1900-02-28'), 1); // 1900 is not
    assert.equal(dayNumber('2025-01-01') - dayNumber('2024-01-01'), 366);
  });
  test('term lengths, both ends included', () => {
    assert.equal(daysInclusive(dayNumber('2024-02-01'), dayNumber('2024-02-29')), 29);
    assert.equal(daysInclusive(dayNumber('2025-02-01'), dayNumber('2025-02-28')), 28);
    assert.equal(daysInclusive(dayNumber('2025-01-01'), dayNumber('2025-01-31')), 31);
    // a daylight-saving change inside the period does not make a day of 23 hours
    assert.equal(daysInclusive(dayNumber('2025-03-01'), dayNumber('2025-03-31')), 31);
    assert.equal(daysInclusive(dayNumber('2025-03-15'), dayNumber('2025-03-15')), 1);
  });
  for (const bad of ['2025-02-29', '2025-13-01', '2025-00-10', '2025-1-01', '01/02/2025', '2025-04-31', '']) {
    test(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => dayNumber(bad), (e: unknown) => e instanceof RatingError && e.code === 'INVALID_DATE');
    });
  }
});

describe('consumptionOfTexts: plain values in millionths, the rest in Decimals, the same rule', () => {
  const value = fc.oneof(
    // plain: up to 9 whole digits, up to 6 decimals (the millionths path)
    fc.tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined })).map(([w, d]) => (d === undefined ? String(w) : `${w}.${d}`)),
    // not plain: more digits or decimals, which take the Decimal path
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.stringMatching(/^[0-9]{7,9}$/)).map(([w, d]) => `${w}.${d}`),
    fc.bigInt({ min: 10n ** 9n, max: 10n ** 15n }).map(String),
  );
  const rollover = fc.option(fc.oneof(fc.constantFrom('10000', '100000', '1000000000', '99999.9'), fc.integer({ min: 1, max: 10 ** 9 }).map(String)), { nil: null });
  test('equals consumptionBetween for any two values and roll-over', () => {
    fc.assert(
      fc.property(value, value, rollover, (p, c, r) => {
        const slow = consumptionBetween(new Dec(p), new Dec(c), r === null ? null : new Dec(r));
        assert.deepEqual(consumptionOfTexts(p, c, r === null ? null : new Dec(r)), { kind: slow.kind, quantity: slow.quantity.toFixed() });
      }),
      { numRuns: 5000 },
    );
  });
  test('millionths and their text', () => {
    for (const [text, n, back] of [
      ['0', 0, '0'],
      ['12.5', 12_500_000, '12.5'],
      ['12.50', 12_500_000, '12.5'],
      ['999999999.999999', 999_999_999_999_999, '999999999.999999'],
      ['0.000001', 1, '0.000001'],
    ] as const) {
      assert.equal(millionthsOf(text), n, text);
      assert.equal(textOfMillionths(n), back, text);
    }
    for (const text of ['1000000000', '0.0000001', '01', '-1', '1e3', ' 1', '1.', '.5']) assert.equal(millionthsOf(text), null, text);
  });
});
