// Charge models found missing against Lago's own test cases (issue 12, part 6), amounts
// worked by hand: free units on a package, a minimum commitment per bill across several
// components topped up on its own line, and a minimum prorated by days while the usage
// is not (Lago's true-up fee).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ratePackage } from '../../src/rating/models/package.ts';
import { rateCommitment } from '../../src/rating/models/commitment.ts';
import { rateTotalRounding } from '../../src/rating/models/totalRounding.ts';
import { rateBill } from '../../src/rating/rateBill.ts';
import { explainModel } from '../../src/rating/models/registry.ts';
import { checkTariff, type Tariff } from '../../src/rating/tariff.ts';
import type { RoundingMode } from '../../src/rating/money.ts';
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

// A bill's total rounded to a whole unit or a cash increment on a line of its own: found
// missing reproducing a Delhi electricity bill (3,868.87 printed as 3,869 with a rounding
// line), and Swiss cash rounding to 0.05. Amounts worked by hand.
describe('total rounding', () => {
  const extra = {
    components: [
      { code: 'energy', name: 'Energy', model: 'flat' as const, amount: 1 },
      { code: 'tax', name: 'Tax', model: 'flat' as const, amount: 1, category: 'tax' as const },
    ],
  };
  const rounding = (increment: string, mode?: string) =>
    prep<'totalRounding'>({ code: 'round', name: 'Rounding', model: 'totalRounding', of: ['energy', 'tax'], increment, rounding: (mode ?? 'halfUp') as RoundingMode }, extra);
  // [energy, tax, increment, mode, adjustment, why]
  const cases: [string, string, string, string | undefined, string, string][] = [
    ['3703.70', '165.17', '1', undefined, '0.13', '3868.87 to the rupee, half up: 3869'],
    ['3703.70', '164.70', '1', undefined, '-0.4', '3868.40: 3868'],
    ['3703.50', '165.00', '1', undefined, '0.5', '3868.50, exactly half: up to 3869'],
    ['3703.50', '165.00', '1', 'halfEven', '-0.5', '3868.50 half to even: 3868'],
    ['3703.99', '165.00', '1', 'down', '-0.99', '3868.99 down: 3868'],
    ['10.00', '0.03', '0.05', undefined, '0.02', 'Swiss cash rounding: 10.03 to 10.05'],
    ['10.00', '0.02', '0.05', undefined, '-0.02', '10.02 to 10.00'],
    ['10.00', '0.025', '0.05', undefined, '0.025', 'a half of 0.05 goes up'],
    ['100.00', '0.00', '1', undefined, '0', 'already whole: nothing'],
    ['-12.40', '0.00', '1', undefined, '0.4', 'a credit: -12.40 to -12, half up rounds away from zero only at the half'],
    ['1234.00', '0.00', '10', undefined, '-4', 'to tens: 1230'],
  ];
  for (const [energy, tax, increment, mode, adjustment, why] of cases) {
    test(why, () => {
      const r = rateTotalRounding(rounding(increment, mode), d(0), ctx({ amounts: [d(energy), d(tax)] }));
      assert.equal(r.amount.toFixed(), adjustment);
      assert.equal(r.trace.adjustment, adjustment);
    });
  }
  test('the trace and the explanation: the sum, the lines, the rule, the rounded total', () => {
    const r = rateTotalRounding(rounding('1'), d(0), ctx({ amounts: [d('3703.70'), d('165.17')] }));
    assert.deepEqual(r.trace, {
      model: 'totalRounding',
      increment: '1',
      rule: 'halfUp',
      of: [
        { code: 'energy', amount: '3703.70' },
        { code: 'tax', amount: '165.17' },
      ],
      sum: '3868.87',
      rounded: '3869.00',
      adjustment: '0.13',
    });
    assert.equal(explainModel(r.trace), '3868.87 (energy 3703.70 + tax 165.17) rounded half up to a multiple of 1: 3869.00, adjustment 0.13');
  });
  test('a bill rounded to the rupee: the lines add up to a whole total', () => {
    // Delhi, 3 kW, 620 units (an outside check's hand calculation): slabs 2,930.00, fixed 150.00, PPAC 7.25% 223.30,
    // surcharge 8% 246.40, pension 5% 154.00, electricity tax 5% of 3,303.30 = 165.17; 3,868.87 rounded to 3,869.
    const tariff: Tariff = {
      unmeteredInputs: [{ code: 'kw', label: 'Sanctioned load (kW)' }, { code: 'units', label: 'Units' }],
      components: [
        { code: 'energy', name: 'Energy', model: 'graduated', input: 'units', tiers: [{ upTo: 200, rate: '3' }, { upTo: 400, rate: '4.5' }, { upTo: 800, rate: '6.5' }, { upTo: 1200, rate: '7' }, { upTo: null, rate: '8' }] },
        { code: 'fixed', name: 'Fixed charge', model: 'perUnit', input: 'kw', rate: '50' },
        { code: 'ppac', name: 'PPAC', model: 'percentage', percentage: '7.25', of: ['energy', 'fixed'] },
        { code: 'surcharge', name: 'Surcharge', model: 'percentage', percentage: '8', of: ['energy', 'fixed'] },
        { code: 'pension', name: 'Pension trust', model: 'percentage', percentage: '5', of: ['energy', 'fixed'] },
        { code: 'etax', name: 'Electricity tax', model: 'percentage', category: 'tax', percentage: '5', of: ['energy', 'fixed', 'ppac'] },
        { code: 'round', name: 'Rounding', model: 'totalRounding', increment: '1', of: ['energy', 'fixed', 'ppac', 'surcharge', 'pension', 'etax'] },
      ],
    };
    assert.deepEqual(checkTariff(tariff), []);
    const b = rateBill({ tariff, term: { start: '2024-06-01', end: '2024-06-30' }, subscription: { startDate: '2020-01-01', unmetered: { kw: 3, units: 620 } }, minorUnits: 2 });
    assert.deepEqual(b.lines.map((l) => [l.componentCode, l.amount]), [
      ['energy', '2930.00'],
      ['fixed', '150.00'],
      ['ppac', '223.30'],
      ['surcharge', '246.40'],
      ['pension', '154.00'],
      ['etax', '165.17'],
      ['round', '0.13'],
    ]);
    assert.equal(b.total, '3869.00');
  });
  test('checked: a positive increment, no minimum or maximum, references like a percentage', () => {
    const base = { unmeteredInputs: [{ code: 'rooms', label: 'R' }], components: [{ code: 'a', name: 'A', model: 'flat' as const, amount: 1 }] };
    const paths = (c: object) => checkTariff({ ...base, components: [...base.components, c as never] }).map((i) => i.path);
    assert.deepEqual(paths({ code: 'r', name: 'R', model: 'totalRounding', increment: '0', of: ['a'] }), ['service.components[1].increment']);
    assert.deepEqual(paths({ code: 'r', name: 'R', model: 'totalRounding', increment: '1', of: ['a'], minimum: 1, maximum: 2 }), ['service.components[1].minimum', 'service.components[1].maximum']);
    assert.deepEqual(paths({ code: 'r', name: 'R', model: 'totalRounding', increment: '1', of: ['r', 'nope'] }), ['service.components[1].of[0]', 'service.components[1].of[1]']);
    assert.deepEqual(paths({ code: 'r', name: 'R', model: 'totalRounding', increment: '0.0000001', of: ['a'] }), ['service.components[1].increment']);
  });
});
