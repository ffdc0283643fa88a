// A review of the day's rating changes (a meter's conversion, roundEachTier): each test states
// what a bill should be; each but the words' test failed when written, and was fixed. Amounts
// worked by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import type { MeteredInput, Tariff } from '../../src/rating/tariff.ts';
import { explainLine } from '../../src/bills/explain.ts';

const NOVEMBER = { start: '2026-11-01', end: '2026-11-30' }; // 30 days

describe("a meter's conversion in a term spanning a version change", () => {
  const gas = (conversion: MeteredInput['conversion'], rate: string): Tariff => ({
    meteredInputs: [{ code: 'GAS', label: 'Gas meter', unit: 'ccf', decimals: 0, ...(conversion === undefined ? {} : { conversion }) }],
    components: [{ code: 'DELIVERY', name: 'Delivery', model: 'perUnit', input: 'GAS', rate }],
  });
  const billed = (conversion: MeteredInput['conversion'], changeOn: string) => {
    // Only the rate changes on changeOn (1.00 then 1.10); the conversion is the same in both versions.
    const versions: TariffVersion[] = [
      { version: 1, from: NOVEMBER.start, tariff: gas(conversion, '1.00') },
      { version: 2, from: changeOn, tariff: gas(conversion, '1.10') },
    ];
    const b = rateBill({
      tariff: versions[0]!.tariff,
      versions,
      term: NOVEMBER,
      subscription: { startDate: '2020-01-01' },
      // 5050 on 31/10, 5123 on 30/11: 73 ccf read
      readings: { GAS: { previous: { date: '2026-10-31', value: '5050' }, current: { date: '2026-11-30', value: '5123' } } },
      minorUnits: 2,
    });
    return b.lines.filter((l) => l.componentCode === 'DELIVERY').reduce((sum, l) => sum + Number(l.quantity), 0);
  };

  test('a factor of 1 changes nothing: 73 ccf read are 73 units billed over the two segments, not 74 (36.5 rounded up twice)', () => {
    // Without a conversion the segments price 36.5 + 36.5 = 73 ccf.
    assert.equal(billed(undefined, '2026-11-16'), 73);
    assert.equal(billed({ factor: '1', unit: 'therm', decimals: 0 }, '2026-11-16'), 73);
  });

  test('rounding up to whole therms: 73 ccf x 1.037 = 75.701, 76 therms billed, however the days split (not 77)', () => {
    // 10 and 20 days: 24.333.. x 1.037 = 25.23 -> 26 and 48.666.. x 1.037 = 50.46 -> 51: 77 therms for a
    // consumption that converts to 76 over the bill; the customer pays a therm more for the tariff change.
    assert.equal(billed({ factor: '1.037', unit: 'therm', decimals: 0, rounding: 'up' }, '2026-11-11'), 76);
  });
});

describe('roundEachTier in a term spanning a version change', () => {
  const water = (roundEachTier: boolean, rate: string): Tariff => ({
    meteredInputs: [{ code: 'W', label: 'Water meter', unit: 'kL', decimals: 0 }],
    components: [
      {
        code: 'WATER',
        name: 'Water',
        model: 'graduated',
        input: 'W',
        ...(roundEachTier ? { roundEachTier: true } : {}),
        tiers: [{ upTo: 10, rate: '0', flat: '100.01' }, { upTo: null, rate }],
      },
    ],
  });
  const bill = (roundEachTier: boolean) => {
    // The second tier's rate changes on 16/11; the first tier's flat (100.01, charged once per bill) does not.
    const versions: TariffVersion[] = [
      { version: 1, from: NOVEMBER.start, tariff: water(roundEachTier, '2.00') },
      { version: 2, from: '2026-11-16', tariff: water(roundEachTier, '2.10') },
    ];
    return rateBill({
      tariff: versions[0]!.tariff,
      versions,
      term: NOVEMBER,
      subscription: { startDate: '2020-01-01' },
      readings: { W: { previous: { date: '2026-10-31', value: '100' }, current: { date: '2026-11-30', value: '105' } } },
      minorUnits: 2,
    });
  };
  const total = (roundEachTier: boolean) => bill(roundEachTier).total;

  test("a tier's flat shared by the segments' days is still charged once: 100.01, not 50.01 + 50.01", () => {
    // 5 kL, all in the first tier: the bill is the flat, 100.01, with or without roundEachTier
    // (each tier's amount rounded to the cent changes nothing in a tier of whole cents).
    assert.equal(total(false), '100.01');
    assert.equal(total(true), '100.01');
  });

  test("the second segment's tier says what was carried: 50.005 with the earlier 50.005, less 50.01 billed in them: 50.00", () => {
    const lines = bill(true).lines;
    assert.deepEqual(lines.map((l) => l.amount), ['50.01', '50.00']);
    const tier = (lines[1]!.trace as { tiers: { amount: string; unrounded?: string; carried?: unknown }[] }).tiers[0]!;
    assert.deepEqual([tier.amount, tier.unrounded, tier.carried], ['50.00', '50.005', { unrounded: '50.005', rounded: '50.01' }]);
    assert.match(explainLine(lines[1]!), /= 50\.005; with the 50\.005 of the earlier parts 100\.01, less 50\.01 billed in them: 50\.00/);
  });
});
