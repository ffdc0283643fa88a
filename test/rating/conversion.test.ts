// A meter whose consumption is converted before it is priced (docs/rating.md, "A meter's
// conversion"): gas read in hundreds of cubic feet (ccf) and billed in therms, as a US gas
// utility's bill prints it: "73 ccf x 1.037 therm factor = 76 therms". Amounts worked by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import type { MeteredInput, Tariff } from '../../src/rating/tariff.ts';
import { explainLine } from '../../src/bills/explain.ts';

const NOVEMBER = { start: '2026-11-01', end: '2026-11-30' }; // 30 days

const gas = (conversion: MeteredInput['conversion'], values: Tariff['values'] = []): Tariff => ({
  values,
  meteredInputs: [{ code: 'GAS', label: 'Gas meter', unit: 'ccf', decimals: 0, ...(conversion === undefined ? {} : { conversion }) }],
  components: [
    { code: 'CUSTOMER', name: 'Customer charge', model: 'flat', amount: '15.00' },
    { code: 'DELIVERY', name: 'Delivery', model: 'perUnit', input: 'GAS', rate: '1.2345' },
    { code: 'SUPPLY', name: 'Gas supply', model: 'graduated', input: 'GAS', tiers: [{ upTo: 50, rate: '0.50' }, { upTo: null, rate: '0.60' }] },
  ],
});

function bill(tariff: Tariff, over: Partial<RateBillInput> = {}) {
  return rateBill({
    tariff,
    term: NOVEMBER,
    subscription: { startDate: '2020-01-01' },
    // 5050 on 31/10, 5123 on 30/11: 73 ccf
    readings: { GAS: { previous: { date: '2026-10-31', value: '5050' }, current: { date: '2026-11-30', value: '5123' } } },
    minorUnits: 2,
    ...over,
  });
}
const line = (b: ReturnType<typeof rateBill>, code: string) => b.lines.find((l) => l.componentCode === code)!;

describe("a meter's conversion: consumption x factor, rounded, then priced", () => {
  // [conversion, therms billed, delivery, supply, working]
  const cases: [MeteredInput['conversion'], string, string, string, string][] = [
    [{ factor: '1.037', unit: 'therm', decimals: 0 }, '76', '93.82', '40.60', '73 x 1.037 = 75.701 -> 76 (halfUp); 76 x 1.2345 = 93.822; 50 x 0.50 + 26 x 0.60 = 40.60'],
    [{ factor: '1.037', unit: 'therm', decimals: 0, rounding: 'down' }, '75', '92.59', '40.00', '75.701 -> 75; 75 x 1.2345 = 92.5875 -> 92.59; 25 + 15.00'],
    [{ factor: '1.037', unit: 'therm', decimals: 1 }, '75.7', '93.45', '40.42', '75.701 -> 75.7; 75.7 x 1.2345 = 93.45165; 25 + 25.7 x 0.60 = 40.42'],
    [{ factor: '1.037', unit: 'therm', decimals: 0, rounding: 'up' }, '76', '93.82', '40.60', '75.701 -> 76'],
    [{ factor: { value: 'THERM' }, unit: 'therm', decimals: 0 }, '76', '93.82', '40.60', 'the factor from the values, 1.037'],
    [{ factor: 1, unit: 'ccf', decimals: 0 }, '73', '90.12', '38.80', 'a factor of 1 changes nothing: 73 x 1.2345 = 90.1185; 25 + 23 x 0.60 = 38.80'],
  ];
  for (const [conversion, therms, delivery, supply, working] of cases) {
    test(`${JSON.stringify(conversion)}: ${therms} billed (${working})`, () => {
      const b = bill(gas(conversion, [{ code: 'THERM', label: 'Therm factor', value: '1.037' }]));
      assert.equal(line(b, 'DELIVERY').quantity, therms);
      assert.equal(line(b, 'DELIVERY').amount, delivery);
      assert.equal(line(b, 'SUPPLY').quantity, therms);
      assert.equal(line(b, 'SUPPLY').amount, supply);
      assert.equal(line(b, 'DELIVERY').unit, conversion!.unit);
      const r = line(b, 'DELIVERY').trace.reading!;
      assert.equal(r.consumption, '73', 'the reading keeps the consumption read');
      assert.equal(r.conversion?.quantity, therms);
    });
  }
  test('without a conversion the bill is as before, and the factor folded into the rate is not the same bill', () => {
    const plain = bill(gas(undefined));
    assert.equal(line(plain, 'DELIVERY').quantity, '73');
    assert.equal(line(plain, 'DELIVERY').unit, 'ccf');
    assert.equal(line(plain, 'DELIVERY').trace.reading!.conversion, undefined);
    // 73 ccf at 1.037 x 1.2345 = 1.2801765 a ccf: 93.4528845 -> 93.45, 37 cents from the 93.82 of 76 therms
    const folded = bill({ ...gas(undefined), components: [{ code: 'DELIVERY', name: 'Delivery', model: 'perUnit', input: 'GAS', rate: '1.2801765' }] });
    assert.equal(line(folded, 'DELIVERY').amount, '93.45');
  });
  test('the explanation says the conversion', () => {
    const b = bill(gas({ factor: '1.037', unit: 'therm', decimals: 0 }));
    const words = explainLine(line(b, 'DELIVERY'));
    assert.match(words, /GAS read 5050 on 31\/10\/2026 and 5123 on 30\/11\/2026: 73 used, x 1\.037 = 75\.701, 76 therm \(rounded halfUp to 0 decimal\(s\)\)/);
    const exact = bill(gas({ factor: '2', unit: 'half-ccf', decimals: 0 }));
    assert.match(explainLine(line(exact, 'DELIVERY')), /73 used, x 2 = 146 half-ccf;/);
  });
  test('a factor that changes with the version: each segment converts its part by its own', () => {
    // Version 2 from 16/11 with a factor of 1.042. 73 ccf shared by days: 15/30 each = 36.5 ccf;
    // 36.5 x 1.037 = 37.8505 -> 38; 36.5 x 1.042 = 38.033 -> 38. Delivery 38 x 1.2345 = 46.911 in each,
    // rounded on the running total: 46.91 then 93.822 - 46.91 = 46.912 -> 46.91.
    const versions: TariffVersion[] = [
      { version: 1, from: NOVEMBER.start, tariff: gas({ factor: '1.037', unit: 'therm', decimals: 0 }) },
      { version: 2, from: '2026-11-16', tariff: gas({ factor: '1.042', unit: 'therm', decimals: 0 }) },
    ];
    const b = bill(versions[0]!.tariff, { versions });
    const delivery = b.lines.filter((l) => l.componentCode === 'DELIVERY');
    assert.deepEqual(delivery.map((l) => [l.trace.segment?.version, l.quantity, l.unit, l.amount]), [
      [1, '38', 'therm', '46.91'],
      [2, '38', 'therm', '46.91'],
    ]);
    assert.deepEqual(delivery.map((l) => [l.trace.segment?.consumption?.quantity, l.trace.segment?.consumption?.conversion?.factor]), [
      ['36.5', '1.037'],
      ['36.5', '1.042'],
    ]);
    assert.match(explainLine(delivery[0]!), /36\.5 of the consumption shared by days, x 1\.037 = 37\.8505, 38 therm/);
  });
  test('a factor at or below zero, or naming no value, is refused where the template is saved', () => {
    const issues = (conversion: MeteredInput['conversion']) => checkTariff(gas(conversion)).map((i) => `${i.path}: ${i.message}`);
    assert.ok(issues({ factor: '0', unit: 'therm', decimals: 0 }).some((m) => m.startsWith('service.meteredInputs[0].conversion.factor')), String(issues({ factor: '0', unit: 'therm', decimals: 0 })));
    assert.ok(issues({ factor: '-1.037', unit: 'therm', decimals: 0 }).some((m) => m.startsWith('service.meteredInputs[0].conversion.factor')));
    assert.ok(issues({ factor: { value: 'NONE' }, unit: 'therm', decimals: 0 }).some((m) => m.startsWith('service.meteredInputs[0].conversion.factor.value')));
    assert.deepEqual(issues({ factor: '1.037', unit: 'therm', decimals: 0 }), []);
  });
});

describe("a meter's conversion over the segments of a bill: rounded on the running total", () => {
  test('73 ccf x 1.037 rounded up, split 10 and 20 days: 26 then 50 therms (76 over the bill), and the words say how', () => {
    const versions: TariffVersion[] = [
      { version: 1, from: NOVEMBER.start, tariff: gas({ factor: '1.037', unit: 'therm', decimals: 0, rounding: 'up' }) },
      { version: 2, from: '2026-11-11', tariff: gas({ factor: '1.037', unit: 'therm', decimals: 0, rounding: 'up' }) },
    ];
    const b = bill(versions[0]!.tariff, { versions });
    const delivery = b.lines.filter((l) => l.componentCode === 'DELIVERY');
    assert.deepEqual(delivery.map((l) => l.quantity), ['26', '50']);
    const second = delivery[1]!.trace.segment!.consumption!.conversion!;
    assert.deepEqual([second.quantity, second.earlier?.billed], ['50', '26']);
    assert.equal(delivery[0]!.trace.segment!.consumption!.conversion!.earlier, undefined, 'the first part has nothing before it');
    assert.match(explainLine(delivery[1]!), /of the earlier parts 75\.70\d*, 76 therm \(rounded up to 0 decimal\(s\)\), less 26 billed in them: 50 therm/);
  });
});
