import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Dec } from '../../src/rating/money.ts';
import { estimateReading, MIN_HISTORY_PERIODS, unusualConsumption, type MeterHistory } from '../../src/rating/readingHistory.ts';
import { missingReading } from '../../src/rating/meterReadings.ts';
import { sumBills, totalsText } from '../../src/rating/billTotals.ts';
import { apiDate } from '../../src/rating/days.ts';
import { rateBill } from '../../src/rating/rateBill.ts';

const h = (date: string, value: string, periods: number): MeterHistory => ({ oldest: { date, value }, periods });
const at = (date: string, value: string) => ({ date, value });

describe('unusual consumption', () => {
  // previous reading 30 on 2025-03-31; history from 2025-01-01 (0): 30 over 89 days.
  const cases: [string, MeterHistory, { date: string; value: string }, string | null][] = [
    ['ten times the history, three intervals', h('2025-01-01', '0', 3), at('2025-04-30', '330'), 'above'],
    ['a tenth of the history', h('2025-01-01', '0', 3), at('2025-04-30', '31'), 'below'],
    ['twice the history: usual', h('2025-01-01', '0', 3), at('2025-04-30', '50'), null],
    // Defect 13: a new connection with one month of history was flagged on it.
    ['ten times, but one interval of history (a new connection)', h('2025-01-01', '0', 1), at('2025-04-30', '330'), null],
    ['ten times, two intervals: still too little', h('2025-01-01', '0', MIN_HISTORY_PERIODS - 1), at('2025-04-30', '330'), null],
    ['no history', { oldest: null, periods: 0 }, at('2025-04-30', '330'), null],
    ['a history of zero consumption', h('2025-01-01', '30', 3), at('2025-04-30', '330'), null],
    ['a history across a roll-over (negative)', h('2025-01-01', '90', 3), at('2025-04-30', '330'), null],
    ['a negative period: the rating reports it', h('2025-01-01', '0', 3), at('2025-04-30', '20'), null],
    ['a current reading on the previous day', h('2025-01-01', '0', 3), at('2025-03-31', '330'), null],
  ];
  for (const [name, history, current, expected] of cases) {
    test(name, () => {
      const u = unusualConsumption(history, at('2025-03-31', '30'), current);
      assert.equal(u?.direction ?? null, expected);
    });
  }
  test('answers both daily figures', () => {
    const u = unusualConsumption(h('2025-01-01', '0', 3), at('2025-01-31', '30'), at('2025-03-02', '330'));
    assert.deepEqual([u?.daily.toFixed(), u?.history.toFixed()], ['10', '1']);
  });
});

describe('estimated readings', () => {
  const meter = { decimals: 0, rolloverAt: new Dec(1000) };
  const cases: [string, MeterHistory, string, string | null][] = [
    ['one interval of history is enough to estimate', h('2025-01-31', '0', 1), '2025-03-31', '59'],
    ['at the meter decimals, half up', h('2025-01-31', '0', 1), '2025-03-15', '43'],
    ['wrapped at the roll-over', h('2025-01-31', '0', 1), '2027-11-28', '31'],
    ['no history', { oldest: null, periods: 0 }, '2025-03-31', null],
    ['no day left to estimate', h('2025-01-31', '0', 1), '2025-02-28', null],
  ];
  for (const [name, history, date, expected] of cases) {
    test(name, () => assert.equal(estimateReading(history, at('2025-02-28', '28'), date, meter)?.toFixed() ?? null, expected));
  }
});

describe('MISSING_READING words (docs/bill-run.md)', () => {
  const cases: [string, Parameters<typeof missingReading>, string][] = [
    ['no reading at all', ['METER', undefined, null], 'no reading of METER to measure the consumption from (none before or in the term)'],
    ['a reading before the term', ['METER', at('2026-10-31', '5'), null], 'no reading of METER dated in the term after the one of 31/10/2026'],
    [
      'a subscription ending in the term',
      ['METER', at('2026-10-31', '5'), '2026-11-20'],
      "no reading of METER dated in the term after the one of 31/10/2026 and up to the subscription's end, 20/11/2026",
    ],
  ];
  for (const [name, args, message] of cases) {
    test(name, () => {
      const e = missingReading(...args);
      assert.deepEqual([e.code, e.message, e.details], ['MISSING_READING', message, [{ path: 'readings.METER', message: 'missing' }]]);
    });
  }
  test("the API's date format", () => assert.deepEqual(['2026-09-30', '0999-01-02', 'not a date'].map(apiDate), ['30/09/2026', '02/01/0999', 'not a date']));
});

describe('bill totals', () => {
  const bill = (c: string, t: string, b: string) => ({ charges: c, tax: t, total: new Dec(c).plus(t).toFixed(), balanceBroughtForward: b, totalDue: new Dec(c).plus(t).plus(b).toFixed() });
  test('sums of the rounded amounts, exact, added chunk by chunk', () => {
    const first = sumBills([bill('0.10', '0.02', '-5.00'), bill('0.20', '0.03', '0')]);
    const all = sumBills([bill('1234567890123.45', '0.01', '0.01')], first);
    assert.deepEqual(totalsText(all), { charges: '1234567890123.75', tax: '0.06', total: '1234567890123.81', balanceBroughtForward: '-4.99', totalDue: '1234567890118.82' });
    assert.deepEqual(totalsText(sumBills([]), 2), { charges: '0.00', tax: '0.00', total: '0.00', balanceBroughtForward: '0.00', totalDue: '0.00' });
  });
  test('negative amounts, texts of other scales and in exponent form, rounded only when shown at minor units', () => {
    const mixed = sumBills([bill('-0.50', '0.125', '3'), bill('1E+2', '0', '-0.001')]);
    assert.deepEqual(totalsText(mixed), { charges: '99.5', tax: '0.125', total: '99.625', balanceBroughtForward: '2.999', totalDue: '102.624' });
    assert.deepEqual(totalsText(mixed, 2), { charges: '99.50', tax: '0.13', total: '99.63', balanceBroughtForward: '3.00', totalDue: '102.62' });
    assert.deepEqual(totalsText(sumBills([bill('-0.07', '-0.01', '-0.005')])), { charges: '-0.07', tax: '-0.01', total: '-0.08', balanceBroughtForward: '-0.005', totalDue: '-0.085' });
  });
});

describe("the rating's words write the API's dates", () => {
  test('NOT_ACTIVE names the term in dd/mm/yyyy', () => {
    assert.throws(
      () => rateBill({ tariff: { components: [{ code: 'FLAT', name: 'Flat', model: 'flat', amount: '1' }] } as any, term: { start: '2025-01-01', end: '2025-01-31' }, subscription: { startDate: '2025-02-01' }, minorUnits: 2 }),
      { code: 'NOT_ACTIVE', message: 'the subscription is not active between 01/01/2025 and 31/01/2025' },
    );
  });
});
