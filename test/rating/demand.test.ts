// A demand register (meteredInputs[].register 'maximum'): a commercial electricity bill's
// kW line, priced on the highest demand the meter recorded since it was read last, not on
// a reading less the one before (a published small-business tariff: energy 0.1120 a kWh,
// demand 12.50 a kW a month). Amounts worked out by hand in the comments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import { estimateReading, unusualDemand } from '../../src/rating/readingHistory.ts';
import { fitReadings } from '../../src/readings/rules.ts';
import { RatingError } from '../../src/rating/errors.ts';
import type { MeteredInput, Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import { explainLine } from '../../src/bills/explain.ts';
import { billConsumption } from '../../src/simulation/compare.ts';
import { Dec } from '../../src/rating/money.ts';
import type { ErrorDetail } from '../../src/errors.ts';

const NOVEMBER = { start: '2026-11-01', end: '2026-11-30' }; // 30 days

const tariff = (demandRate = '12.50', demand: Partial<MeteredInput> = {}): Tariff => ({
  meteredInputs: [
    { code: 'energy', label: 'Energy', unit: 'kWh', decimals: 0 },
    { code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum', ...demand },
  ],
  components: [
    { code: 'energy', name: 'Energy', model: 'perUnit', input: 'energy', rate: '0.1120' },
    { code: 'demand', name: 'Demand charge', model: 'perUnit', input: 'demand', rate: demandRate },
  ],
});

type Read = { date: string; value: string; estimated?: true };
const bill = (demand: { previous: Read; current: Read; highest?: Read }, t: Tariff = tariff(), versions?: TariffVersion[], period = NOVEMBER) =>
  rateBill({
    tariff: t,
    ...(versions === undefined ? {} : { versions }),
    term: period,
    subscription: { startDate: '2020-01-01' },
    readings: {
      energy: { previous: { date: '2026-10-31', value: '50000' }, current: { date: '2026-11-30', value: '62400' } },
      demand,
    },
    minorUnits: 2,
  });

const line = (b: ReturnType<typeof rateBill>, code: string) => b.lines.find((l) => l.componentCode === code)!;

describe('a demand register: the period quantity is the reading itself', () => {
  const cases: [string, string, string, string][] = [
    // [last period's demand, this period's, the demand line, why]
    ['41.2', '52.4', '655.00', '52.4 kW x 12.50: the reading, not 52.4 - 41.2'],
    ['52.4', '38.0', '475.00', 'lower than last month: a quieter month, not a meter going backwards (38.0 x 12.50)'],
    ['0', '47.3', '591.25', 'after the reset at installation (0): 47.3 x 12.50 = 591.25'],
    ['47.3', '0', '0.00', 'no demand recorded: nothing'],
  ];
  for (const [before, now, amount, why] of cases) {
    test(`${before} then ${now} kW: ${amount} (${why})`, () => {
      const b = bill({ previous: { date: '2026-10-31', value: before }, current: { date: '2026-11-30', value: now } });
      const d = line(b, 'demand');
      assert.equal(d.quantity, new Dec(now).toFixed(1));
      assert.equal(d.amount, amount);
      assert.equal(d.trace.reading?.kind, 'maximum');
      assert.equal(d.trace.reading?.consumption, new Dec(now).toFixed(1));
      // The energy meter beside it is a running total as before: 62400 - 50000 = 12400 kWh x 0.1120 = 1388.80.
      assert.equal(line(b, 'energy').amount, '1388.80');
    });
  }

  test('the words say it is the highest demand since the last reading, billed as read', () => {
    const d = line(bill({ previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: '52.4' } }), 'demand');
    assert.match(explainLine(d), /demand read 52\.4 on 30\/11\/2026, the highest since the reading of 31\/10\/2026 \(a maximum demand register\): 52\.4 billed/);
    const estimated = line(bill({ previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: '41.2', estimated: true } }), 'demand');
    assert.equal(estimated.trace.reading?.estimated, true);
    assert.match(explainLine(estimated), /demand estimated at 41\.2 on 30\/11\/2026.*\(estimated\)/);
    // Only this period's reading says whether the demand was estimated: last month's estimate is not this bill's.
    const after = line(bill({ previous: { date: '2026-10-31', value: '41.2', estimated: true }, current: { date: '2026-11-30', value: '44.0' } }), 'demand');
    assert.equal(after.trace.reading?.estimated, false);
  });

  test('a reading dated before the previous one is refused, as on any meter; a missing one says what a demand register needs', () => {
    assert.throws(
      () => bill({ previous: { date: '2026-11-30', value: '41.2' }, current: { date: '2026-10-31', value: '52.4' } }),
      (e: unknown) => e instanceof RatingError && e.code === 'INVALID_READING',
    );
    assert.throws(
      () => rateBill({ tariff: tariff(), term: NOVEMBER, subscription: { startDate: '2020-01-01' }, readings: { energy: { previous: { date: '2026-10-31', value: '1' }, current: { date: '2026-11-30', value: '2' } }, demand: { previous: { date: '2026-11-30', value: '52.4' } } }, minorUnits: 2 }),
      (e: unknown) => e instanceof RatingError && e.code === 'MISSING_READING' && /opening reading, 0 when installed/.test(e.message),
    );
  });

  test('read twice in the period, the highest reading is billed; the last still ends the period', () => {
    // A check read on 15/11 (60.0, the register reset) and the month-end read (40.0): 60.0 x 12.50 = 750.00.
    const twice = bill({ previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: '40' }, highest: { date: '2026-11-15', value: '60' } } as never);
    const d = line(twice, 'demand');
    assert.deepEqual([d.quantity, d.amount], ['60.0', '750.00']);
    assert.deepEqual(d.trace.reading?.highest, { date: '2026-11-15', value: '60.0' });
    assert.equal(d.trace.reading?.current.value, '40.0');
    assert.match(explainLine(d), /DEMAND read 60\.0 on 15\/11\/2026, the highest since the reading of 31\/10\/2026, above the last, 40\.0 on 30\/11\/2026/i);
    // A "highest" below the current one is not: the current is billed.
    assert.equal(line(bill({ previous: { date: '2026-10-31', value: '1' }, current: { date: '2026-11-30', value: '50' }, highest: { date: '2026-11-15', value: '45' } } as never), 'demand').amount, '625.00');
    // One dated outside the period is refused.
    assert.throws(
      () => bill({ previous: { date: '2026-10-31', value: '1' }, current: { date: '2026-11-30', value: '50' }, highest: { date: '2026-10-15', value: '90' } } as never),
      (e: unknown) => e instanceof RatingError && e.code === 'INVALID_READING',
    );
  });

  test('tiers on the demand: the first 50 kW at 12.50, the rest at 10.00', () => {
    const t: Tariff = {
      ...tariff(),
      components: [{ code: 'demand', name: 'Demand charge', model: 'graduated', input: 'demand', tiers: [{ upTo: 50, rate: '12.50' }, { upTo: null, rate: '10.00' }] }],
    };
    // 50 x 12.50 + 30.6 x 10.00 = 625.00 + 306.00 = 931.00
    assert.equal(line(bill({ previous: { date: '2026-10-31', value: '90' }, current: { date: '2026-11-30', value: '80.6' } }, t), 'demand').amount, '931.00');
  });

  test('across a price change on 16/11 the demand is shared by days, each part at its version, the tier bound with it', () => {
    // 60 kW over 15 days at 12.50 and 15 days at 14.00: 30 x 12.50 + 30 x 14.00 = 375.00 + 420.00 = 795.00.
    const versions: TariffVersion[] = [
      { version: 1, from: '2026-01-01', tariff: tariff('12.50') },
      { version: 2, from: '2026-11-16', tariff: tariff('14.00') },
    ];
    const b = bill({ previous: { date: '2026-10-31', value: '70' }, current: { date: '2026-11-30', value: '60' } }, tariff('12.50'), versions);
    const parts = b.lines.filter((l) => l.componentCode === 'demand');
    assert.deepEqual(parts.map((l) => [l.quantity, l.amount]), [['30.0', '375.00'], ['30.0', '420.00']]);
    assert.match(explainLine(parts[0]!), /30(\.0+)? of the demand shared by days/);
    // A demand read on the change date is not a point the demand is split at: still by days.
    const withChangeReading = rateBill({
      tariff: tariff('12.50'),
      versions,
      term: NOVEMBER,
      subscription: { startDate: '2020-01-01' },
      readings: {
        energy: { previous: { date: '2026-10-31', value: '50000' }, current: { date: '2026-11-30', value: '62400' } },
        demand: { previous: { date: '2026-10-31', value: '70' }, current: { date: '2026-11-30', value: '60' } },
      },
      changeReadings: { demand: { '2026-11-16': '58' } },
      minorUnits: 2,
    });
    assert.deepEqual(withChangeReading.lines.filter((l) => l.componentCode === 'demand').map((l) => l.amount), ['375.00', '420.00']);
  });
});

describe("a demand register beside a bill's consumption", () => {
  test("a simulation's consumption band reads the kWh alone, not kWh + kW", () => {
    // 62400 - 50000 = 12400 kWh; the 52.4 kW demand is not added to it.
    const b = bill({ previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: '52.4' } });
    assert.equal(billConsumption(b).toFixed(), '12400');
  });
});

describe('a demand register in the tariff', () => {
  test('it never rolls over, and a reading-period tier proration needs a running total', () => {
    const rolls = checkTariff(tariff('12.50', { rolloverAt: 1000 }));
    assert.deepEqual(rolls.map((i) => i.path), ['service.meteredInputs[1].rolloverAt']);
    const byReadingPeriod: Tariff = {
      ...tariff(),
      components: [{ code: 'demand', name: 'Demand', model: 'graduated', input: 'demand', tiers: [{ upTo: 50, rate: '1' }, { upTo: null, rate: '2' }], tierProration: { basisDays: 30, decimals: 0, rounding: 'down', period: 'readingPeriod' } }],
    };
    assert.deepEqual(checkTariff(byReadingPeriod).map((i) => i.path), ['service.components[0].tierProration.period']);
    assert.deepEqual(checkTariff(tariff()), []);
  });
});

describe('a demand register\'s readings: written, estimated and judged by their own rule', () => {
  const meter: MeteredInput = { code: 'demand', label: 'Demand', unit: 'kW', decimals: 1, register: 'maximum' };
  test('a reading below the one before is taken; a day read twice is not', () => {
    const issues: ErrorDetail[] = [];
    const r = fitReadings(meter, [{ readingId: '1', date: '2026-10-31', value: '52.4' }], [{ date: '2026-11-30', value: '38', path: 'a' }, { date: '2026-10-31', value: '40', path: 'b' }], issues);
    assert.deepEqual(r[0], { kind: 'maximum', quantity: '38' });
    assert.deepEqual(issues.map((i) => i.path), ['b']);
    // The same readings on a cumulative meter: 38 after 52.4 is refused.
    const cumulative: ErrorDetail[] = [];
    fitReadings({ ...meter, register: 'cumulative' }, [{ readingId: '1', date: '2026-10-31', value: '52.4' }], [{ date: '2026-11-30', value: '38', path: 'a' }], cumulative);
    assert.equal(cumulative.length, 1);
  });

  test('an estimate is last period\'s demand, when that was a period\'s (not the opening reading)', () => {
    const withHistory = { oldest: { date: '2026-01-31', value: '30' }, periods: 9 };
    assert.equal(estimateReading(withHistory, { date: '2026-10-31', value: '41.2' }, '2026-11-30', { decimals: 1, rolloverAt: null, register: 'maximum' })?.toFixed(), '41.2');
    assert.equal(estimateReading({ oldest: null, periods: 0 }, { date: '2026-10-31', value: '0' }, '2026-11-30', { decimals: 1, rolloverAt: null, register: 'maximum' }), null);
  });

  test('unusual: more than three times above or below the period before, once that is a period\'s demand', () => {
    const h = { oldest: { date: '2026-01-31', value: '30' }, periods: 3 };
    const prev = { date: '2026-10-31', value: '40' };
    assert.equal(unusualDemand(h, prev, { date: '2026-11-30', value: '121' })?.direction, 'above');
    assert.equal(unusualDemand(h, prev, { date: '2026-11-30', value: '120' }), null);
    assert.equal(unusualDemand(h, prev, { date: '2026-11-30', value: '13' })?.direction, 'below');
    // A new customer's second month: 103 typed for 10.3 after 9.8 (the reading before it the opening 0).
    assert.equal(unusualDemand({ oldest: { date: '2026-09-01', value: '0' }, periods: 1 }, { date: '2026-09-30', value: '9.8' }, { date: '2026-10-31', value: '103' })?.direction, 'above');
    assert.equal(unusualDemand({ oldest: null, periods: 0 }, { date: '2026-09-01', value: '0' }, { date: '2026-09-30', value: '500' }), null, 'after the opening reading: no demand to compare with');
    assert.equal(unusualDemand(h, { ...prev, value: '0' }, { date: '2026-11-30', value: '500' }), null, 'never against a demand of zero');
  });
});
