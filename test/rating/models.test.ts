import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateFlat } from '../../src/rating/models/flat.ts';
import { rateGraduated } from '../../src/rating/models/graduated.ts';
import { ratePackage } from '../../src/rating/models/package.ts';
import { ratePercentage } from '../../src/rating/models/percentage.ts';
import { ratePerUnit } from '../../src/rating/models/perUnit.ts';
import { rateVolume, volume } from '../../src/rating/models/volume.ts';
import { ctx, d, prep } from './fixtures.ts';

const HUGE = '1000000000000'; // 10^12 units

describe('flat', () => {
  test('the amount, whatever the quantity (proration is rateLine\'s job)', () => {
    const c = prep({ code: 'standing', name: 'Standing', model: 'flat', amount: '12.345' });
    const r = rateFlat(c, d(0), ctx());
    assert.equal(r.amount.toFixed(), '12.345');
    assert.deepEqual(r.trace, { model: 'flat', amount: '12.345' });
  });
  test('flat prorates by default, other models do not', () => {
    assert.equal(prep({ code: 'f', name: 'F', model: 'flat', amount: 1 }).prorate, true);
    assert.equal(prep({ code: 'f', name: 'F', model: 'flat', amount: 1, prorate: false }).prorate, false);
    assert.equal(prep({ code: 'p', name: 'P', model: 'perUnit', input: 'rooms', rate: 1 }).prorate, false);
  });
});

describe('perUnit', () => {
  const c = prep({ code: 'energy', name: 'Energy', model: 'perUnit', input: 'power', rate: '1.25' });
  // [quantity, expected]: quantity x 1.25
  const cases: [string, string][] = [
    ['0', '0'],
    ['40', '50'], // 40 x 1.25
    ['0.01', '0.0125'],
    [HUGE, '1250000000000'], // 10^12 x 1.25
  ];
  for (const [q, expected] of cases) {
    test(`${q} x 1.25 = ${expected}`, () => {
      const r = ratePerUnit(c, d(q), ctx());
      assert.equal(r.amount.toFixed(), expected);
      assert.equal(r.rate?.toFixed(), '1.25');
    });
  }
  test('a tiny rate on 10^12 units is exact (no 20-digit default precision loss)', () => {
    const tiny = prep({ code: 'e', name: 'E', model: 'perUnit', input: 'power', rate: '0.000012345678' });
    // 10^12 x 0.000012345678 = 12345678
    assert.equal(ratePerUnit(tiny, d(HUGE), ctx()).amount.toFixed(), '12345678');
    // 999999999999.99 x 0.000012345678 = 12345678 - 0.01 x 0.000012345678 = 12345677.99999987654322 (22 digits)
    assert.equal(ratePerUnit(tiny, d('999999999999.99'), ctx()).amount.toFixed(), '12345677.99999987654322');
  });
});

describe('graduated', () => {
  // 0-10 @ 50, 10-30 @ 75, above 30 @ 120
  const c = prep({
    code: 'water',
    name: 'Water',
    model: 'graduated',
    input: 'water',
    tiers: [
      { upTo: 10, rate: '50' },
      { upTo: '30', rate: '75' },
      { upTo: null, rate: '120' },
    ],
  });
  // [quantity, amount, tiers used, why]
  const cases: [string, string, number, string][] = [
    ['0', '0', 1, 'zero consumption sits in the first tier'],
    ['9.99', '499.5', 1, '9.99 x 50'],
    ['10', '500', 1, 'exactly at the bound: 10 x 50, tier 2 untouched'],
    ['11', '575', 2, 'one over: 500 + 1 x 75'],
    ['10.5', '537.5', 2, '500 + 0.5 x 75'],
    ['30', '2000', 2, '500 + 20 x 75'],
    ['31', '2120', 3, '2000 + 1 x 120'],
    [HUGE, '119999999998400', 3, '500 + 1500 + (10^12 - 30) x 120 = 2000 + 119999999996400'],
  ];
  for (const [q, amount, used, why] of cases) {
    test(`${q} units: ${amount} (${why})`, () => {
      const r = rateGraduated(c, d(q), ctx());
      assert.equal(r.amount.toFixed(), amount);
      assert.equal(r.trace.tiers.length, used);
      assert.equal(r.rate, undefined, 'no single rate for a graduated line');
    });
  }
  test('the trace lists each tier with its units, rate and amount', () => {
    assert.deepEqual(rateGraduated(c, d(35), ctx()).trace, {
      model: 'graduated',
      quantity: '35',
      tiers: [
        { tier: 1, from: '0', upTo: '10', quantity: '10', rate: '50', amount: '500' },
        { tier: 2, from: '10', upTo: '30', quantity: '20', rate: '75', amount: '1500' },
        { tier: 3, from: '30', upTo: null, quantity: '5', rate: '120', amount: '600' },
      ],
    });
  });
  test('a tier flat is charged once the tier is reached; the first tier always', () => {
    const f = prep({
      code: 'water',
      name: 'Water',
      model: 'graduated',
      input: 'water',
      tiers: [
        { upTo: 10, rate: 0, flat: '500' },
        { upTo: null, rate: 60, flat: '100' },
      ],
    });
    assert.equal(rateGraduated(f, d(0), ctx()).amount.toFixed(), '500'); // minimum block
    assert.equal(rateGraduated(f, d(10), ctx()).amount.toFixed(), '500'); // still the first block
    assert.equal(rateGraduated(f, d(12), ctx()).amount.toFixed(), '720'); // 500 + 2 x 60 + 100
    assert.equal(rateGraduated(f, d(12), ctx()).trace.tiers[1]?.flat, '100');
  });
  test('a single open tier is a per-unit price', () => {
    const one = prep({ code: 'w', name: 'W', model: 'graduated', input: 'water', tiers: [{ upTo: null, rate: '2.5' }] });
    assert.equal(rateGraduated(one, d(4), ctx()).amount.toFixed(), '10');
  });
});

describe('graduated, each tier rounded (roundEachTier)', () => {
  // A municipal step tariff: 0-6 free, 6-10.5 @ 20.7345, 10.5-35 @ 30.1234, above @ 45.555
  const steps = (roundEachTier?: boolean) =>
    prep({
      code: 'water',
      name: 'Water',
      model: 'graduated',
      input: 'water',
      ...(roundEachTier === undefined ? {} : { roundEachTier }),
      tiers: [
        { upTo: 6, rate: '0' },
        { upTo: '10.5', rate: '20.7345' },
        { upTo: 35, rate: '30.1234' },
        { upTo: null, rate: '45.555' },
      ],
    });
  // [quantity, rounding, amount with each tier rounded, amount of the line rounded once (unrounded here), working]
  const cases: [string, 'halfUp' | 'down' | 'halfEven', string, string, string][] = [
    ['17.3', 'halfUp', '298.15', '298.14437', '0 + 4.5 x 20.7345 = 93.30525 -> 93.31; 6.8 x 30.1234 = 204.83912 -> 204.84; 93.31 + 204.84'],
    ['17.3', 'down', '298.13', '298.14437', '93.30 + 204.83'],
    ['17.3', 'halfEven', '298.15', '298.14437', '93.31 (the 5 is followed by 25) + 204.84'],
    ['40', 'halfUp', '1059.11', '1059.10355', '93.30525 -> 93.31; 24.5 x 30.1234 = 738.0233 -> 738.02; 5 x 45.555 = 227.775 -> 227.78; 93.31 + 738.02 + 227.78'],
    ['6', 'halfUp', '0.00', '0', 'the free step alone'],
  ];
  for (const [q, rounding, each, once, working] of cases) {
    test(`${q} units, ${rounding}: ${each} (${working}), against ${once} rounded once`, () => {
      const r = rateGraduated(steps(true), d(q), ctx({ rounding }));
      assert.equal(r.amount.toFixed(2), each);
      assert.equal(r.trace.roundEachTier, true);
      const plain = rateGraduated(steps(), d(q), ctx({ rounding }));
      assert.equal(plain.amount.toFixed(), once);
      assert.equal(plain.trace.roundEachTier, undefined, 'the trace of a line rounded once is as before');
      assert.ok(plain.trace.tiers.every((t) => t.unrounded === undefined));
    });
  }
  test('each tier shows the amount the bill prints, and what it was before rounding where that differs', () => {
    assert.deepEqual(rateGraduated(steps(true), d('17.3'), ctx()).trace, {
      model: 'graduated',
      quantity: '17.3',
      roundEachTier: true,
      tiers: [
        { tier: 1, from: '0', upTo: '6', quantity: '6', rate: '0', amount: '0.00' },
        { tier: 2, from: '6', upTo: '10.5', quantity: '4.5', rate: '20.7345', amount: '93.31', unrounded: '93.30525' },
        { tier: 3, from: '10.5', upTo: '35', quantity: '6.8', rate: '30.1234', amount: '204.84', unrounded: '204.83912' },
      ],
    });
  });
  test('a currency of no minor unit rounds each tier to whole units', () => {
    // 4.5 x 20.7345 = 93.30525 -> 93; 6.8 x 30.1234 = 204.83912 -> 205
    assert.equal(rateGraduated(steps(true), d('17.3'), ctx({ minorUnits: 0 })).amount.toFixed(), '298');
  });
  test('a tier flat is rounded with its tier', () => {
    const f = prep({
      code: 'water',
      name: 'Water',
      model: 'graduated',
      input: 'water',
      roundEachTier: true,
      tiers: [
        { upTo: 10, rate: '0.333', flat: '1.005' },
        { upTo: null, rate: '0.111' },
      ],
    });
    // tier 1: 10 x 0.333 + 1.005 = 4.335 -> 4.34; tier 2: 5 x 0.111 = 0.555 -> 0.56
    assert.equal(rateGraduated(f, d(15), ctx()).amount.toFixed(2), '4.90');
  });
});

describe('volume', () => {
  // all units at the tier the total reaches: up to 10 @ 50, up to 30 @ 40 + 100 flat, above @ 30
  const c = prep({
    code: 'water',
    name: 'Water',
    model: 'volume',
    input: 'water',
    tiers: [
      { upTo: 10, rate: '50' },
      { upTo: 30, rate: '40', flat: '100' },
      { upTo: null, rate: '30' },
    ],
  });
  // [quantity, amount, tier, rate]
  const cases: [string, string, number, string, string][] = [
    ['0', '0', 1, '50', 'zero in the first tier'],
    ['10', '500', 1, '50', 'exactly at the bound: 10 x 50'],
    ['11', '540', 2, '40', 'one over: all 11 x 40 + 100'],
    ['30', '1300', 2, '40', '30 x 40 + 100'],
    ['31', '930', 3, '30', '31 x 30 (cheaper than 30 units: that is volume pricing)'],
    [HUGE, '30000000000000', 3, '30', '10^12 x 30'],
  ];
  for (const [q, amount, tier, rate, why] of cases) {
    test(`${q} units: ${amount} (${why})`, () => {
      const r = rateVolume(c, d(q), ctx());
      assert.equal(r.amount.toFixed(), amount);
      assert.equal(r.trace.tier.tier, tier);
      assert.equal(r.rate?.toFixed(), rate);
    });
  }
  test('trace names the tier reached', () => {
    assert.deepEqual(rateVolume(c, d(11), ctx()).trace, {
      model: 'volume',
      quantity: '11',
      tier: { tier: 2, from: '10', upTo: '30', quantity: '11', rate: '40', flat: '100', amount: '540' },
    });
  });
});

describe('volume: a fixed amount off within a band', () => {
  // A retail electricity plan: a 125.00 bill credit when the month's use is 1,000 to 2,000 kWh, a 9.95
  // minimum-usage fee below 1,000 (a bound belongs to its tier, so the credit's band starts above 999).
  const c = prep({
    code: 'credit',
    name: 'Usage credit',
    model: 'volume',
    input: 'power',
    tiers: [
      { upTo: 999, rate: '0', flat: '9.95' },
      { upTo: 2000, rate: '0', flat: '-125' },
      { upTo: null, rate: '0' },
    ],
  });
  const cases: [string, string, string][] = [
    ['0', '9.95', 'no use: the minimum-usage fee'],
    ['999', '9.95', 'one short of the band'],
    ['1000', '-125', 'the band starts: 125 off'],
    ['2000', '-125', 'the band includes its bound'],
    ['2001', '0', 'above the band: nothing'],
  ];
  for (const [q, amount, why] of cases) {
    test(`${q} kWh: ${amount} (${why})`, () => assert.equal(rateVolume(c, d(q), ctx()).amount.toFixed(), amount));
  }
  test('the trace keeps the flat, and the words say it is taken off', () => {
    const r = rateVolume(c, d(1500), ctx());
    assert.deepEqual(r.trace.tier, { tier: 2, from: '999', upTo: '2000', quantity: '1500', rate: '0', flat: '-125', amount: '-125' });
    assert.equal(volume.explain(r.trace), 'all 1500 at tier 2: 1500 x 0 less 125 = -125');
  });
});

describe('package', () => {
  const c = prep({ code: 'bins', name: 'Bin lifts', model: 'package', input: 'bins', size: 10, price: '25' });
  // [quantity, blocks, amount]: 25 per started block of 10
  const cases: [string, string, string][] = [
    ['0', '0', '0'],
    ['1', '1', '25'],
    ['10', '1', '25'], // exactly one block
    ['11', '2', '50'], // one over starts a second block
    ['20', '2', '50'],
    [HUGE, '100000000000', '2500000000000'], // 10^11 blocks x 25
  ];
  for (const [q, blocks, amount] of cases) {
    test(`${q} units: ${blocks} blocks, ${amount}`, () => {
      const r = ratePackage(c, d(q), ctx());
      assert.equal(r.trace.blocks, blocks);
      assert.equal(r.amount.toFixed(), amount);
    });
  }
  test('fractional block size: 1.2 units in blocks of 0.5 is 3 blocks', () => {
    const half = prep({ code: 'p', name: 'P', model: 'package', input: 'water', size: '0.5', price: '25' });
    assert.equal(ratePackage(half, d('1.2'), ctx()).amount.toFixed(), '75');
  });
});

describe('percentage', () => {
  test('of the sum of the rounded amounts listed in of', () => {
    const extra = {
      components: [
        { code: 'a', name: 'A', model: 'flat' as const, amount: 1 },
        { code: 'b', name: 'B', model: 'flat' as const, amount: 1 },
      ],
    };
    const c = prep({ code: 'vat', name: 'VAT', model: 'percentage', category: 'tax', percentage: 16, of: ['a', 'b'] }, extra);
    // (100.10 + 20.05) x 16 / 100 = 120.15 x 0.16 = 19.224
    const r = ratePercentage(c, d(0), ctx({ amounts: [d('100.10'), d('20.05')] }));
    assert.equal(r.amount.toFixed(), '19.224');
    assert.equal(r.quantity?.toFixed(), '120.15');
    assert.deepEqual(r.trace, {
      model: 'percentage',
      percentage: '16',
      of: [
        { code: 'a', amount: '100.10' },
        { code: 'b', amount: '20.05' },
      ],
      base: '120.15',
    });
  });
});
