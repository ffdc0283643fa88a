import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import { Component, Tariff, type Tariff as TariffT } from '../../src/rating/tariff.ts';

const valid: TariffT = {
  values: [
    { code: 'VAT', label: 'VAT rate', value: '16' },
    { code: 'STANDING', label: 'Standing charge', value: 250 },
  ],
  meteredInputs: [{ code: 'water', label: 'Water', unit: 'm3', decimals: 0, rolloverAt: 100000 }],
  unmeteredInputs: [{ code: 'rooms', label: 'Rooms', default: 1 }],
  connectionInputs: [{ code: 'meterNo', label: 'Meter number', type: 'string', required: true }],
  components: [
    { code: 'standing', name: 'Standing charge', model: 'flat', amount: { value: 'STANDING' } },
    {
      code: 'water',
      name: 'Water',
      model: 'graduated',
      input: 'water',
      tiers: [
        { upTo: 10, rate: '50' },
        { upTo: 30, rate: '75' },
        { upTo: null, rate: '120' },
      ],
      tierProration: { basisDays: 30, decimals: 0, rounding: 'down' },
      minimum: '100',
      maximum: '100000',
    },
    { code: 'rooms', name: 'Rooms', model: 'perUnit', input: 'rooms', rate: '10', prorate: true },
    { code: 'bins', name: 'Bins', model: 'package', input: 'rooms', size: 2, price: '15' },
    { code: 'big', name: 'Bulk', model: 'volume', input: 'water', tiers: [{ upTo: 100, rate: 1 }, { upTo: null, rate: 0.8 }] },
    { code: 'sewer', name: 'Sewer', model: 'percentage', percentage: '10', of: ['water'] },
    { code: 'vat', name: 'VAT', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['standing', 'water', 'sewer'] },
  ],
};

/** A copy of the valid tariff with one change. */
function variant(change: (t: TariffT) => void): TariffT {
  const t = structuredClone(valid);
  change(t);
  return t;
}
const comp = (t: TariffT, i: number): any => t.components?.[i];

describe('checkTariff accepts', () => {
  test('the example tariff', () => assert.deepEqual(checkTariff(valid), []));
  test('an empty tariff (missing arrays are empty)', () => assert.deepEqual(checkTariff({}), []));
  test('the schema accepts it too', () => assert.equal(Value.Check(Tariff, valid), true));
});

describe('checkTariff refuses, with the path', () => {
  // [what, change, path, a word of the message]
  const cases: [string, (t: TariffT) => void, string, RegExp][] = [
    ['duplicate component code', (t) => (comp(t, 2).code = 'water'), 'service.components[2].code', /duplicate code 'water'/],
    ['duplicate value code', (t) => t.values?.push({ code: 'VAT', label: 'again', value: 1 }), 'service.values[2].code', /duplicate/],
    [
      'duplicate connection input code',
      (t) => t.connectionInputs?.push({ code: 'meterNo', label: 'again', type: 'number' }),
      'service.connectionInputs[1].code',
      /duplicate/,
    ],
    [
      'an unmetered input with a metered input\'s code',
      (t) => t.unmeteredInputs?.push({ code: 'water', label: 'Water?' }),
      'service.unmeteredInputs[1].code',
      /duplicate input code 'water'/,
    ],
    ['tiers not ascending', (t) => (comp(t, 1).tiers[1].upTo = 10), 'service.components[1].tiers[1].upTo', /not above the previous/],
    ['tiers descending', (t) => (comp(t, 1).tiers[1].upTo = '5'), 'service.components[1].tiers[1].upTo', /not above/],
    ['an open tier before the last', (t) => (comp(t, 1).tiers[0].upTo = null), 'service.components[1].tiers[0].upTo', /only the last/],
    ['a last tier that is not open', (t) => (comp(t, 4).tiers[1].upTo = 200), 'service.components[4].tiers[1].upTo', /must be open/],
    ['no tiers', (t) => (comp(t, 4).tiers = []), 'service.components[4].tiers', /at least one/],
    ['a zero tier bound', (t) => (comp(t, 1).tiers[0].upTo = 0), 'service.components[1].tiers[0].upTo', /above zero/],
    ['a negative tier rate', (t) => (comp(t, 1).tiers[2].rate = '-1'), 'service.components[1].tiers[2].rate', /not be negative/],
    // Every graduated flat reached is charged: a negative one would credit passing a bound.
    ['a negative graduated tier flat', (t) => (comp(t, 1).tiers[1].flat = '-5'), 'service.components[1].tiers[1].flat', /not be negative/],
    ['a negative volume tier rate', (t) => (comp(t, 4).tiers[1].rate = '-0.1'), 'service.components[4].tiers[1].rate', /not be negative/],
    ['an unknown input', (t) => (comp(t, 1).input = 'gas'), 'service.components[1].input', /no metered or unmetered input with code 'gas'/],
    ['an unknown of', (t) => (comp(t, 5).of = ['watr']), 'service.components[5].of[0]', /no component with code 'watr'/],
    ['of listing itself', (t) => (comp(t, 5).of = ['sewer']), 'service.components[5].of[0]', /itself/],
    ['of listing a code twice', (t) => (comp(t, 5).of = ['water', 'water']), 'service.components[5].of[1]', /twice/],
    ['an unknown value', (t) => (comp(t, 6).percentage = { value: 'VAT2' }), 'service.components[6].percentage.value', /no values entry with code 'VAT2'/],
    ['an unknown value in a tier', (t) => (comp(t, 1).tiers[1].rate = { value: 'X' }), 'service.components[1].tiers[1].rate.value', /no values entry/],
    [
      'a value of the wrong sign for a tier rate',
      (t) => {
        t.values?.push({ code: 'NEG', label: 'negative', value: '-5' });
        comp(t, 1).tiers[0].rate = { value: 'NEG' };
      },
      'service.components[1].tiers[0].rate.value',
      /is -5, must not be negative/,
    ],
    [
      'a percentage cycle',
      (t) => (comp(t, 5).of = ['water', 'vat']),
      'service.components[6].of',
      /cycle: vat -> sewer -> vat|cycle: sewer -> vat -> sewer/,
    ],
    ['minimum above maximum', (t) => (comp(t, 1).maximum = '99.99'), 'service.components[1].minimum', /minimum 100 is above maximum 99.99/],
    ['a number that is not a decimal', (t) => (comp(t, 2).rate = 'abc'), 'service.components[2].rate', /not a decimal/],
    ['an exponent in a string', (t) => (comp(t, 2).rate = '1e3'), 'service.components[2].rate', /not a decimal/],
    ['NaN', (t) => (comp(t, 2).rate = Number.NaN), 'service.components[2].rate', /not a decimal/],
    ['Infinity', (t) => (comp(t, 2).rate = Number.POSITIVE_INFINITY), 'service.components[2].rate', /not a decimal/],
    ['an absurd size', (t) => (comp(t, 2).rate = 1e21), 'service.components[2].rate', /out of range/],
    ['too many decimals', (t) => (comp(t, 2).rate = '0.0000000000001'), 'service.components[2].rate', /more than 12 decimals/],
    ['a bad value', (t) => (t.values![0]!.value = 'sixteen'), 'service.values[0].value', /not a decimal/],
    ['a zero package size', (t) => (comp(t, 3).size = 0), 'service.components[3].size', /above zero/],
    ['a zero roll-over', (t) => (t.meteredInputs![0]!.rolloverAt = 0), 'service.meteredInputs[0].rolloverAt', /above zero/],
    [
      'a roll-over finer than the meter',
      (t) => (t.meteredInputs![0]!.rolloverAt = '99999.5'),
      'service.meteredInputs[0].rolloverAt',
      /more decimals than the meter/,
    ],
    ['a negative default', (t) => (t.unmeteredInputs![0]!.default = -1), 'service.unmeteredInputs[0].default', /not be negative/],
    ['tier proration over a year', (t) => (comp(t, 1).tierProration.basisDays = 400), 'service.components[1].tierProration.basisDays', /1 to 366/],
  ];
  for (const [what, change, path, message] of cases) {
    test(what, () => {
      const issues = checkTariff(variant(change));
      const hit = issues.find((i) => i.path === path);
      assert.ok(hit, `expected an issue at ${path}, got ${JSON.stringify(issues)}`);
      assert.match(hit.message, message);
    });
  }
  test('every issue is reported, not only the first', () => {
    const issues = checkTariff(
      variant((t) => {
        comp(t, 1).input = 'gas';
        comp(t, 2).code = 'water';
        comp(t, 6).percentage = { value: 'NOPE' };
      }),
    );
    assert.deepEqual(
      issues.map((i) => i.path).sort(),
      ['service.components[1].input', 'service.components[2].code', 'service.components[6].percentage.value'],
    );
  });
  test("a volume tier's flat may be negative: a credit for landing in that band", () => {
    assert.deepEqual(checkTariff(variant((t) => (comp(t, 4).tiers[0].flat = '-125'))), []);
  });
  test('the root of the paths can be chosen', () => {
    const issues = checkTariff(variant((t) => (comp(t, 1).input = 'gas')), 'data.service');
    assert.equal(issues[0]?.path, 'data.service.components[1].input');
  });
});

describe('the TypeBox schema', () => {
  const ok: unknown[] = [
    { code: 'f', name: 'F', model: 'flat', amount: '12.50' },
    { code: 'f', name: 'F', model: 'flat', amount: 12.5, prorate: false, category: 'charge', minimum: { value: 'MIN' } },
    { code: 'g', name: 'G', model: 'graduated', input: 'w', tiers: [{ upTo: null, rate: 1, flat: '2' }], tierProration: { basisDays: 30, decimals: 2, rounding: 'halfUp' } },
    { code: 'p', name: 'P', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['f'] },
  ];
  const bad: [string, unknown][] = [
    ['unknown model', { code: 'x', name: 'X', model: 'stairs', amount: 1 }],
    ['a misspelt field', { code: 'f', name: 'F', model: 'flat', ammount: 1 }],
    ['an exponent string', { code: 'f', name: 'F', model: 'flat', amount: '1e3' }],
    ['a comma decimal', { code: 'f', name: 'F', model: 'flat', amount: '1,50' }],
    ['a perUnit without input', { code: 'p', name: 'P', model: 'perUnit', rate: 1 }],
    ['a percentage without of', { code: 'p', name: 'P', model: 'percentage', percentage: 10 }],
    ['a percentage with an input', { code: 'p', name: 'P', model: 'percentage', percentage: 10, of: ['a'], input: 'w' }],
    ['an unknown category', { code: 'f', name: 'F', model: 'flat', amount: 1, category: 'fee' }],
    ['an unknown tier rounding', { code: 'g', name: 'G', model: 'volume', input: 'w', tiers: [{ upTo: null, rate: 1 }], tierProration: { basisDays: 30, decimals: 0, rounding: 'nearest' } }],
    ['a code with a space', { code: 'a b', name: 'F', model: 'flat', amount: 1 }],
  ];
  for (const c of ok) test(`accepts ${JSON.stringify(c)}`, () => assert.equal(Value.Check(Component, c), true));
  for (const [what, c] of bad) test(`refuses ${what}`, () => assert.equal(Value.Check(Component, c), false));
});
