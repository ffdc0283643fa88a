import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Dec, formatMinorUnits, formatMoney, minorUnitsOf, moneyText, roundMoney, toDecimal, type RoundingMode } from '../../src/rating/money.ts';
import { RatingError } from '../../src/rating/errors.ts';

describe('toDecimal', () => {
  test('a JSON number is read through its shortest text: 0.1 stays exactly 0.1', () => {
    assert.equal(toDecimal(0.1).toFixed(), '0.1');
    // 0.1 + 0.2 in binary floating point is 0.30000000000000004; in decimals it is 0.3.
    assert.equal(toDecimal(0.1).plus(toDecimal(0.2)).toFixed(), '0.3');
    assert.equal(toDecimal(1e21).toFixed(), '1000000000000000000000');
    assert.equal(toDecimal(1e-7).toFixed(), '0.0000001');
  });
  test('strings are plain decimal text, kept exactly', () => {
    assert.equal(toDecimal('12.50').toFixed(2), '12.50');
    assert.equal(toDecimal('-3').toFixed(), '-3');
    assert.equal(toDecimal('0.000000000001').toFixed(), '0.000000000001');
  });
  const refused: [string, string | number][] = [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['empty string', ''],
    ['exponent in a string', '1e5'],
    ['hex', '0x10'],
    ['spaces', ' 1'],
    ['comma decimal', '1,5'],
    ['bare point', '.5'],
    ['word', 'Infinity'],
  ];
  for (const [name, x] of refused) {
    test(`refuses ${name}`, () => {
      assert.throws(() => toDecimal(x), (e: unknown) => e instanceof RatingError && e.code === 'INVALID_NUMBER');
    });
  }
});

describe('roundMoney: the one rounding rule', () => {
  // [amount, minor units, mode, expected]
  const cases: [string, number, RoundingMode, string][] = [
    // half-way cases: x.xx5
    ['1.005', 2, 'halfUp', '1.01'],
    ['1.005', 2, 'halfEven', '1.00'], // 0 is even
    ['1.015', 2, 'halfEven', '1.02'], // 2 is even
    ['1.025', 2, 'halfEven', '1.02'],
    ['1.035', 2, 'halfEven', '1.04'],
    ['1.005', 2, 'halfDown', '1.00'],
    ['2.675', 2, 'halfUp', '2.68'], // the binary float 2.675 would round to 2.67
    ['-1.005', 2, 'halfUp', '-1.01'], // half away from zero
    ['-1.005', 2, 'halfEven', '-1.00'],
    // not half-way: every half rule agrees
    ['1.0049', 2, 'halfUp', '1.00'],
    ['1.0051', 2, 'halfEven', '1.01'],
    // directed rules
    ['1.001', 2, 'up', '1.01'],
    ['1.009', 2, 'down', '1.00'],
    ['-1.001', 2, 'ceil', '-1.00'],
    ['-1.001', 2, 'floor', '-1.01'],
    ['-1.001', 2, 'up', '-1.01'],
    // no minor unit (yen)
    ['2.5', 0, 'halfEven', '2'],
    ['3.5', 0, 'halfEven', '4'],
    ['2.5', 0, 'halfUp', '3'],
    // three decimals (dinar)
    ['0.0005', 3, 'halfUp', '0.001'],
    // huge
    ['119999999998400.005', 2, 'halfUp', '119999999998400.01'],
  ];
  for (const [amount, minor, mode, expected] of cases) {
    test(`${amount} to ${minor} decimals ${mode} is ${expected}`, () => {
      assert.equal(formatMoney(roundMoney(new Dec(amount), minor, mode), minor), expected);
    });
  }
  test('formatMoney pads to the minor unit and never prints -0.00', () => {
    assert.equal(formatMoney(new Dec('12.5'), 2), '12.50');
    assert.equal(formatMoney(roundMoney(new Dec('-0.001'), 2, 'halfUp'), 2), '0.00');
    assert.equal(formatMoney(new Dec('-0'), 2), '0.00');
  });
});

describe('moneyText', () => {
  test('writes a stored amount at the minor unit without rounding it', () => {
    assert.equal(moneyText('1437.2400', 2), '1437.24');
    assert.equal(moneyText('0.0000', 2), '0.00');
    assert.equal(moneyText('-12.5000', 2), '-12.50');
    assert.equal(moneyText('150.0000', 0), '150');
    assert.equal(moneyText('-0.0000', 2), '0.00');
  });
});

describe("a bill's sums in minor units: exact, and written as formatMoney writes them", () => {
  test('minorUnitsOf: plain text at or coarser than the minor unit, trailing zeros allowed; anything else null', () => {
    const cases: [string, number, bigint | null][] = [
      ['12.50', 2, 1250n],
      ['12.5', 2, 1250n],
      ['12', 2, 1200n],
      ['-0.01', 2, -1n],
      ['-3', 0, -3n],
      ['1437.2400', 2, 143724n],
      ['0.000', 0, 0n],
      ['7.125', 3, 7125n],
      ['99999999999999999999.99', 2, 9999999999999999999999n],
      ['1.005', 2, null],
      ['1e3', 2, null],
      ['', 2, null],
      ['.5', 2, null],
    ];
    for (const [text, minor, want] of cases) assert.equal(minorUnitsOf(text, minor), want, `${text} at ${minor}`);
  });

  test('formatMinorUnits is formatMoney of the same amount, zero never negative', () => {
    for (const [units, minor] of [[1250n, 2], [-1n, 2], [0n, 2], [-0n, 3], [5n, 3], [-123456789n, 4], [42n, 0], [-42n, 0], [10n ** 30n + 7n, 2]] as [bigint, number][]) {
      const amount = new Dec(units.toString()).div(new Dec(10).pow(minor));
      assert.equal(formatMinorUnits(units, minor), formatMoney(amount, minor), `${units} at ${minor}`);
    }
  });
});
