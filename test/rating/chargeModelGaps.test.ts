// Charge models found missing against Lago's own test cases (issue 12, part 6), amounts
// worked by hand: free units on a package, a minimum commitment per bill across several
// components topped up on its own line, and a minimum prorated by days while the usage
// is not (Lago's true-up fee).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ratePackage } from '../../src/rating/models/package.ts';
import { rateCommitment } from '../../src/rating/models/commitment.ts';
import { rateBill } from '../../src/rating/rateBill.ts';
import { explainModel } from '../../src/rating/models/registry.ts';
import { checkTariff, type Tariff } from '../../src/rating/tariff.ts';
import { ctx, d, prep } from './fixtures.ts';

describe('package with free units', () => {
  // Lago's package case: 100 per started package of 10 units, the first 10 units free.
  const c = prep({ code: 'calls', name: 'Calls', model: 'package', input: 'rooms', size: 10, price: '100', freeUnits: 10 });
  // [units, blocks, amount]: blocks = ceil(max(units - 10, 0) / 10)
  const cases: [string, string, string][] = [
    ['0', '0', '0'],
    ['10', '0', '0'], // all free
    ['11', '1', '100'], // 1 paid unit starts a package
    ['20', '1', '100'],
    ['21', '2', '200'],
    ['121', '12', '1200'], // 111 paid units: 11.1 -> 12 packages
    ['10.5', '1', '100'], // half a paid unit still starts a package
  ];
  for (const [q, blocks, amount] of cases) {
    test(`${q} units, 10 free: ${blocks} package(s), ${amount}`, () => {
      const r = ratePackage(c, d(q), ctx());
      assert.equal(r.trace.blocks, blocks);
      assert.equal(r.amount.toFixed(), amount);
      assert.equal(r.trace.freeUnits, '10');
    });
  }
  test('no free units: the trace and the explanation are as before', () => {
    const plain = prep({ code: 'p', name: 'P', model: 'package', input: 'rooms', size: 10, price: '25' });
    const r = ratePackage(plain, d(11), ctx());
    assert.deepEqual(r.trace, { model: 'package', quantity: '11', size: '10', blocks: '2', price: '25' });
    assert.equal(explainModel(r.trace), '2 block(s) of 10 x 25');
    assert.equal(explainModel(ratePackage(c, d(21), ctx()).trace), '21 less 10 free: 2 block(s) of 10 x 100');
  });
  test('free units are checked: a negative number is refused on its field', () => {
    const issues = checkTariff({ unmeteredInputs: [{ code: 'rooms', label: 'R' }], components: [{ code: 'p', name: 'P', model: 'package', input: 'rooms', size: 10, price: 1, freeUnits: -1 }] });
    assert.deepEqual(issues.map((i) => i.path), ['service.components[0].freeUnits']);
  });
});

describe('minimum commitment across components', () => {
  const extra = {
    components: [
      { code: 'water', name: 'Water', model: 'flat' as const, amount: 1 },
      { code: 'sewer', name: 'Sewer', model: 'flat' as const, amount: 1 },
    ],
  };
  const c = prep({ code: 'min', name: 'Minimum commitment', model: 'commitment', amount: '1000', of: ['water', 'sewer'] }, extra);
  // [water, sewer, activeDays of 30, shortfall]
  const cases: [string, string, number, string, string][] = [
    ['400.00', '350.00', 30, '250', '1000 - (400 + 350) = 250 topped up'],
    ['600.00', '500.00', 30, '0', 'usage 1100 is above the commitment: nothing'],
    ['1000.00', '0.00', 30, '0', 'exactly the commitment: nothing'],
    ['0.00', '0.00', 30, '1000', 'no usage: the whole commitment'],
    ['0.01', '0.00', 30, '999.99', 'a cent of usage'],
  ];
  for (const [water, sewer, days, shortfall, why] of cases) {
    test(why, () => {
      const r = rateCommitment(c, d(0), ctx({ activeDays: days, termDays: 30, amounts: [d(water), d(sewer)] }));
      assert.equal(r.amount.toFixed(), shortfall);
      assert.equal(r.trace.shortfall, shortfall);
    });
  }
  test('not prorated unless asked: 15 of 30 days still commits 1000', () => {
    const r = rateCommitment(c, d(0), ctx({ activeDays: 15, termDays: 30, amounts: [d('300.00'), d('0.00')] }));
    assert.equal(r.amount.toFixed(), '700');
    assert.equal(r.trace.proratedCommitment, undefined);
  });
  test('the trace names the commitment, each line it counts and the shortfall', () => {
    const r = rateCommitment(c, d(0), ctx({ activeDays: 30, termDays: 30, amounts: [d('400.00'), d('350.00')] }));
    assert.deepEqual(r.trace, {
      model: 'commitment',
      commitment: '1000',
      of: [
        { code: 'water', amount: '400.00' },
        { code: 'sewer', amount: '350.00' },
      ],
      usage: '750.00',
      shortfall: '250',
    });
    assert.equal(explainModel(r.trace), 'minimum 1000 less 750.00 (water 400.00 + sewer 350.00)');
  });
  test('checked like a percentage: references, itself, twice, cycles', () => {
    const base = { unmeteredInputs: [{ code: 'rooms', label: 'R' }] };
    const paths = (t: Tariff) => checkTariff({ ...base, ...t }).map((i) => i.path);
    assert.deepEqual(paths({ components: [{ code: 'm', name: 'M', model: 'commitment', amount: 10, of: ['nope'] }] }), ['service.components[0].of[0]']);
    assert.deepEqual(paths({ components: [{ code: 'm', name: 'M', model: 'commitment', amount: 10, of: ['m'] }] }), ['service.components[0].of[0]']);
    assert.deepEqual(
      paths({ components: [{ code: 'a', name: 'A', model: 'flat', amount: 1 }, { code: 'm', name: 'M', model: 'commitment', amount: -1, of: ['a', 'a'] }] }),
      ['service.components[1].amount', 'service.components[1].of[1]'],
    );
    assert.deepEqual(
      paths({
        components: [
          { code: 'm', name: 'M', model: 'commitment', amount: 10, of: ['v'] },
          { code: 'v', name: 'V', model: 'percentage', percentage: 16, of: ['m'] },
        ],
      }).length > 0,
      true,
      'a commitment and a percentage of each other form a cycle',
    );
  });
});

describe('a minimum prorated by days while the usage is not (true-up)', () => {
  // January 2027 (31 days), connected from the 22nd: 10 active days.
  const tariff: Tariff = {
    unmeteredInputs: [{ code: 'rooms', label: 'Rooms' }],
    values: [{ code: 'VAT', label: 'VAT', value: '16' }],
    components: [
      { code: 'usage', name: 'Usage', model: 'perUnit', input: 'rooms', rate: '3' },
      { code: 'trueUp', name: 'Minimum spend', model: 'commitment', amount: '100', of: ['usage'], prorate: true },
      { code: 'vat', name: 'VAT', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['usage', 'trueUp'] },
    ],
  };
  const bill = (rooms: number, startDate = '2027-01-22') =>
    rateBill({ tariff, term: { start: '2027-01-01', end: '2027-01-31' }, subscription: { startDate, unmetered: { rooms } }, minorUnits: 2 });

  test('10 of 31 days: usage 30.00 in full, the minimum 100 x 10/31 = 32.258064..., topped up by 2.26', () => {
    const b = bill(10);
    assert.deepEqual(b.lines.map((l) => [l.componentCode, l.amount]), [
      ['usage', '30.00'], // 10 x 3, not prorated
      ['trueUp', '2.26'], // 32.2580645... - 30.00 = 2.2580645... -> 2.26
      ['vat', '5.16'], // 16% of 32.26 = 5.1616
    ]);
    assert.equal(b.total, '37.42');
    const t = b.lines[1]!.trace as any;
    assert.equal(t.proratedCommitment.factor, '10/31');
    assert.equal(t.proration, undefined, 'rateLine does not prorate the shortfall again');
    assert.equal(b.lines[1]!.quantity, '30.00', 'the line shows the usage it tops up');
    assert.equal(b.lines[1]!.rate, t.proratedCommitment.after);
  });
  test('usage above the prorated minimum: no top-up (a line of 0.00)', () => {
    const b = bill(11); // 33.00 > 32.258...
    assert.deepEqual(b.lines.map((l) => l.amount), ['33.00', '0.00', '5.28']);
  });
  test('the whole month: the full minimum', () => {
    const b = bill(10, '2026-01-01');
    assert.deepEqual(b.lines.map((l) => l.amount), ['30.00', '70.00', '16.00']);
  });
});
