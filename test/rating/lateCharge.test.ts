// The late-charge rule of a pricing template: its check and its amount, worked by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkLateCharge, prepareLateCharge, rateLateCharge, type LateChargeRule } from '../../src/rating/lateCharge.ts';
import type { RoundingMode } from '../../src/rating/money.ts';
import { d } from './fixtures.ts';

const rate = (rule: LateChargeRule, overdue: string, rounding: RoundingMode = 'halfUp', minorUnits = 2) =>
  rateLateCharge(prepareLateCharge(rule), d(overdue), { minorUnits, rounding });

describe('late charge amount', () => {
  // [rule, overdue, expected amount (null: no charge), limit applied, why]
  const cases: [LateChargeRule, string, string | null, string | undefined, string][] = [
    [{ graceDays: 14, flat: '250' }, '1000.00', '250.00', undefined, 'flat, whatever is overdue'],
    [{ graceDays: 14, flat: '250' }, '0.01', '250.00', undefined, 'flat even on a cent'],
    [{ graceDays: 0, percentage: '1.5' }, '1234.56', '18.52', undefined, '1234.56 x 1.5% = 18.5184 -> 18.52'],
    [{ graceDays: 0, percentage: '2' }, '100.25', '2.01', undefined, '100.25 x 2% = 2.005 -> 2.01 half up'],
    [{ graceDays: 0, percentage: '5', minimum: '50' }, '200.00', '50.00', 'minimum', '200 x 5% = 10, raised to the minimum 50'],
    [{ graceDays: 0, percentage: '5', maximum: '500' }, '20000.00', '500.00', 'maximum', '20000 x 5% = 1000, capped at 500'],
    [{ graceDays: 0, percentage: '5', minimum: '50', maximum: '500' }, '4000.00', '200.00', undefined, '4000 x 5% = 200, inside the limits'],
    [{ graceDays: 0, flat: '100', maximum: '80' }, '10.00', '80.00', 'maximum', 'a flat charge is capped too'],
    [{ graceDays: 0, percentage: '1' }, '0.40', null, undefined, '0.40 x 1% = 0.004 rounds to 0.00: no charge'],
    [{ graceDays: 0, percentage: '10' }, '0', null, undefined, 'nothing overdue: no charge'],
    [{ graceDays: 0, flat: '10' }, '-5.00', null, undefined, 'credit, not debt: no charge'],
  ];
  for (const [rule, overdue, expected, limit, why] of cases) {
    test(why, () => {
      const r = rate(rule, overdue);
      if (expected === null) return assert.equal(r, null);
      assert.ok(r !== null);
      assert.equal(r.amount.toFixed(2), expected);
      assert.equal(r.trace.computation.amount, expected);
      assert.equal(r.trace.computation.limit, limit);
      assert.equal(r.trace.overdue, d(overdue).toFixed(2));
    });
  }

  test('rounded once by the app rule: 2.005 is 2.00 half even, 2.01 half up, 2.00 down, 2.01 up', () => {
    const rule = { graceDays: 0, percentage: '2' };
    assert.equal(rate(rule, '100.25', 'halfEven')?.amount.toFixed(2), '2.00');
    assert.equal(rate(rule, '100.25', 'halfUp')?.amount.toFixed(2), '2.01');
    assert.equal(rate(rule, '100.25', 'down')?.amount.toFixed(2), '2.00');
    assert.equal(rate(rule, '100.35', 'up')?.amount.toFixed(2), '2.01'); // 2.007
    assert.equal(rate({ graceDays: 0, percentage: '1.5' }, '1234.56', 'halfUp', 0)?.amount.toFixed(), '19'); // 18.5184 in a currency without cents
  });

  test('the trace names the rule and each step', () => {
    const r = rate({ graceDays: 7, percentage: '5', minimum: '50', maximum: '500' }, '200.00');
    assert.deepEqual(r?.trace, {
      overdue: '200.00',
      rule: { graceDays: 7, percentage: '5', minimum: '50', maximum: '500' },
      computation: { base: '10', limit: 'minimum', unrounded: '50', rounding: 'halfUp', amount: '50.00' },
    });
  });
});

describe('late charge rule check', () => {
  const cases: [unknown, string[]][] = [
    [{ graceDays: 14, flat: '250' }, []],
    [{ graceDays: 0, percentage: 1.5, minimum: 0, maximum: '1000' }, []],
    [{ graceDays: 14 }, ['lc']],
    [{ graceDays: 14, flat: '1', percentage: '2' }, ['lc.percentage']],
    [{ graceDays: 14, flat: '0' }, ['lc.flat']],
    [{ graceDays: 14, percentage: '-1' }, ['lc.percentage']],
    [{ graceDays: 14, percentage: '101' }, ['lc.percentage']],
    [{ graceDays: 14, percentage: '1', minimum: '-1' }, ['lc.minimum']],
    [{ graceDays: 14, percentage: '1', minimum: '10', maximum: '5' }, ['lc.minimum']],
    [{ graceDays: 14, percentage: '1', maximum: '0' }, ['lc.maximum']],
    [{ graceDays: -1, flat: '1' }, ['lc.graceDays']],
    [{ graceDays: 1.5, flat: '1' }, ['lc.graceDays']],
    [{ graceDays: 1, flat: '1e5' }, ['lc.flat']],
    [{ graceDays: 1, flat: '1000000000000000' }, ['lc.flat']],
  ];
  for (const [rule, paths] of cases) {
    test(`${JSON.stringify(rule)} -> ${paths.join(', ') || 'valid'}`, () => {
      assert.deepEqual(checkLateCharge(rule as LateChargeRule, 'lc').map((i) => i.path), paths);
    });
  }
});
