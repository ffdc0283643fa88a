// Suspended days are not billed: subscription.suspended removes its days inside the
// active period from activeDays, so prorated charges (and tier proration) follow, and
// consumption is still billed from the readings. Every amount below is worked by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RatingError, type RatingErrorCode } from '../../src/rating/errors.ts';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import type { Component } from '../../src/rating/tariff.ts';
import { fullBillTariff, inputs } from './fixtures.ts';

const JANUARY = { start: '2025-01-01', end: '2025-01-31' }; // 31 days
const flat100: Component = { code: 'standing', name: 'Standing', model: 'flat', amount: '100.00' };

function bill(components: Component[], subscription: RateBillInput['subscription'], over: Partial<RateBillInput> = {}) {
  return rateBill({
    tariff: { ...inputs, components },
    term: JANUARY,
    subscription,
    readings: {
      water: { previous: { date: '2024-12-31', value: '1234.00' }, current: { date: '2025-01-31', value: '1271.00' } },
      power: { previous: { date: '2024-12-31', value: 5000 }, current: { date: '2025-01-31', value: 5400 } },
    },
    minorUnits: 2,
    ...over,
  });
}

function throwsCode(f: () => unknown, code: RatingErrorCode, message: RegExp, path?: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof RatingError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    if (path !== undefined) assert.equal(e.details?.[0]?.path, path);
    return true;
  });
}

type Period = { start: string; end?: string | null };

describe('suspended days are taken off the active days', () => {
  // [why, subscription dates, suspensions, term, activeDays, suspendedDays, merged periods, flat 100.00 prorated]
  const cases: [string, { startDate: string; endDate?: string }, Period[], { start: string; end: string }, number, number, { start: string; end: string }[], string][] = [
    [
      '10 days in the middle: 100 x 21/31 = 67.741... -> 67.74',
      { startDate: '2020-01-01' },
      [{ start: '2025-01-11', end: '2025-01-20' }],
      JANUARY,
      21,
      10,
      [{ start: '2025-01-11', end: '2025-01-20' }],
      '67.74',
    ],
    [
      'suspended before the term, resumed on the 6th (last suspended day the 5th): 26/31 = 83.870... -> 83.87',
      { startDate: '2020-01-01' },
      [{ start: '2024-12-15', end: '2025-01-05' }],
      JANUARY,
      26,
      5,
      [{ start: '2025-01-01', end: '2025-01-05' }],
      '83.87',
    ],
    [
      'still suspended (no end) from the 22nd: 22..31 is 10 days, 21/31 -> 67.74',
      { startDate: '2020-01-01' },
      [{ start: '2025-01-22', end: null }],
      JANUARY,
      21,
      10,
      [{ start: '2025-01-22', end: '2025-01-31' }],
      '67.74',
    ],
    [
      'two overlapping suspensions count their common days once: 5..12 is 8 days, 23/31 = 74.193... -> 74.19',
      { startDate: '2020-01-01' },
      [
        { start: '2025-01-08', end: '2025-01-12' },
        { start: '2025-01-05', end: '2025-01-10' },
      ],
      JANUARY,
      23,
      8,
      [{ start: '2025-01-05', end: '2025-01-12' }],
      '74.19',
    ],
    [
      'two suspensions that touch are one period: 5..15 is 11 days, 20/31 = 64.516... -> 64.52',
      { startDate: '2020-01-01' },
      [
        { start: '2025-01-05', end: '2025-01-10' },
        { start: '2025-01-11', end: '2025-01-15' },
      ],
      JANUARY,
      20,
      11,
      [{ start: '2025-01-05', end: '2025-01-15' }],
      '64.52',
    ],
    [
      'two separate suspensions: 3..4 and 30..31 are 4 days, 27/31 = 87.096... -> 87.10',
      { startDate: '2020-01-01' },
      [
        { start: '2025-01-30', end: '2025-02-10' },
        { start: '2025-01-03', end: '2025-01-04' },
      ],
      JANUARY,
      27,
      4,
      [
        { start: '2025-01-03', end: '2025-01-04' },
        { start: '2025-01-30', end: '2025-01-31' },
      ],
      '87.10',
    ],
    [
      'connected on the 17th, suspended 10th to 20th: only 17..20 counts, 15 - 4 = 11 days, 11/31 = 35.483... -> 35.48',
      { startDate: '2025-01-17' },
      [{ start: '2025-01-10', end: '2025-01-20' }],
      JANUARY,
      11,
      4,
      [{ start: '2025-01-17', end: '2025-01-20' }],
      '35.48',
    ],
    [
      'ended on the 10th, suspended from the 6th and never resumed: 10 - 5 = 5 days, 5/31 = 16.129... -> 16.13',
      { startDate: '2020-01-01', endDate: '2025-01-10' },
      [{ start: '2025-01-06' }],
      JANUARY,
      5,
      5,
      [{ start: '2025-01-06', end: '2025-01-10' }],
      '16.13',
    ],
    [
      'leap February, suspended from the 10th to the 29th: 29 - 20 = 9 days, 9/29 = 31.034... -> 31.03',
      { startDate: '2020-01-01' },
      [{ start: '2024-02-10', end: '2024-02-29' }],
      { start: '2024-02-01', end: '2024-02-29' },
      9,
      20,
      [{ start: '2024-02-10', end: '2024-02-29' }],
      '31.03',
    ],
    [
      'a suspension outside the term changes nothing: 100.00',
      { startDate: '2020-01-01' },
      [{ start: '2024-06-01', end: '2024-06-30' }],
      JANUARY,
      31,
      0,
      [],
      '100.00',
    ],
    [
      'a suspension after the subscription ended changes nothing: 10/31 = 32.258... -> 32.26',
      { startDate: '2020-01-01', endDate: '2025-01-10' },
      [{ start: '2025-01-11' }],
      JANUARY,
      10,
      0,
      [],
      '32.26',
    ],
  ];
  for (const [why, dates, suspended, term, active, suspendedDays, periods, amount] of cases) {
    test(why, () => {
      const b = bill([flat100], { ...dates, suspended }, { term });
      assert.equal(b.activeDays, active);
      assert.equal(b.suspendedDays, suspendedDays);
      assert.deepEqual(b.suspendedPeriods, periods);
      assert.equal(b.lines[0]?.amount, amount);
      const proration = b.lines[0]?.trace.proration;
      if (suspendedDays === 0) assert.equal(proration?.suspendedDays, undefined);
      else {
        assert.equal(proration?.activeDays, active);
        assert.equal(proration?.suspendedDays, suspendedDays);
        assert.deepEqual(proration?.suspended, periods);
      }
    });
  }

  test('the trace of a prorated line shows the suspended days and the exact fraction', () => {
    const b = bill([flat100], { startDate: '2020-01-01', suspended: [{ start: '2025-01-11', end: '2025-01-20' }] });
    assert.deepEqual(b.lines[0]?.trace.proration, {
      activeDays: 21,
      termDays: 31,
      factor: '21/31',
      before: '100',
      after: '67.741935483870967741935483870967741935483870967742',
      suspendedDays: 10,
      suspended: [{ start: '2025-01-11', end: '2025-01-20' }],
    });
    // the period billed is still the part of the term it was connected
    assert.deepEqual(b.activePeriod, { start: '2025-01-01', end: '2025-01-31' });
  });

  test('consumption is still billed from the readings: 400 kWh x 0.5 = 200.00, not prorated', () => {
    const b = bill([{ code: 'e', name: 'Energy', model: 'perUnit', input: 'power', rate: '0.5' }], {
      startDate: '2020-01-01',
      suspended: [{ start: '2025-01-11', end: '2025-01-20' }],
    });
    assert.equal(b.lines[0]?.amount, '200.00');
    assert.equal(b.lines[0]?.trace.proration, undefined);
    assert.equal(b.activeDays, 21);
  });

  test('a prorated per-unit charge: 3 rooms x 10 x 21/31 = 20.322... -> 20.32', () => {
    const b = bill([{ code: 'rooms', name: 'Rooms', model: 'perUnit', input: 'rooms', rate: '10', prorate: true }], {
      startDate: '2020-01-01',
      unmetered: { rooms: 3 },
      suspended: [{ start: '2025-01-11', end: '2025-01-20' }],
    });
    assert.equal(b.lines[0]?.amount, '20.32');
  });

  test('tier proration scales by the days billed: 21 days -> bounds 10 x 21/30 = 7 and 20 x 21/30 = 14', () => {
    const b = bill(
      [
        {
          code: 'w',
          name: 'Power',
          model: 'graduated',
          input: 'power',
          tiers: [
            { upTo: 10, rate: '1' },
            { upTo: 20, rate: '2' },
            { upTo: null, rate: '3' },
          ],
          tierProration: { basisDays: 30, decimals: 0, rounding: 'down' },
        },
      ],
      { startDate: '2020-01-01', suspended: [{ start: '2025-01-11', end: '2025-01-20' }] },
      { readings: { power: { previous: { date: '2024-12-31', value: 0 }, current: { date: '2025-01-31', value: 25 } } } },
    );
    // 25 units: 7 x 1 + 7 x 2 + 11 x 3 = 7 + 14 + 33 = 54.00
    assert.equal(b.lines[0]?.amount, '54.00');
    const trace = b.lines[0]?.trace;
    assert.ok(trace?.model === 'graduated');
    assert.equal(trace.tierProration?.activeDays, 21);
    assert.equal(trace.tierProration?.suspendedDays, 10);
    assert.deepEqual(
      trace.tierProration?.bounds.map((x) => x.scaled),
      ['7', '14'],
    );
  });

  test('a full bill: standing prorated 21/31, water from the readings, sewer and VAT on the rounded lines', () => {
    const tariff = fullBillTariff();
    const b = rateBill({
      tariff,
      term: JANUARY,
      subscription: { startDate: '2019-06-01', suspended: [{ start: '2025-01-11', end: '2025-01-20' }] },
      readings: { water: { previous: { date: '2024-12-31', value: 1234 }, current: { date: '2025-01-31', value: 1271 } } },
      minorUnits: 2,
    });
    // standing 250 x 21/31 = 169.354838... -> 169.35
    // water 37 m3: 487.50 + 1224.00 + 581.70 = 2293.20 (not prorated)
    // sewer 10% of 2293.20 = 229.32
    // VAT 16% of (169.35 + 2293.20 + 229.32 = 2691.87) = 430.6992 -> 430.70
    assert.deepEqual(
      b.lines.map((l) => l.amount),
      ['169.35', '2293.20', '229.32', '430.70'],
    );
    assert.equal(b.charges, '2691.87');
    assert.equal(b.total, '3122.57');
  });

  test('no suspensions, or an empty list, rate as before', () => {
    const a = bill([flat100], { startDate: '2020-01-01' });
    const b = bill([flat100], { startDate: '2020-01-01', suspended: [] });
    assert.deepEqual(a, b);
    assert.equal(a.suspendedDays, 0);
    assert.deepEqual(a.suspendedPeriods, []);
  });
});

describe('suspension refusals', () => {
  test('suspended on every connected day: NOT_ACTIVE (the roster leaves such a subscription out)', () => {
    throwsCode(() => bill([flat100], { startDate: '2020-01-01', suspended: [{ start: '2024-12-01' }] }), 'NOT_ACTIVE', /suspended on every day/);
    throwsCode(
      () => bill([flat100], { startDate: '2025-01-17', suspended: [{ start: '2025-01-17', end: '2025-01-31' }] }),
      'NOT_ACTIVE',
      /suspended on every day/,
    );
    throwsCode(
      () =>
        bill([flat100], {
          startDate: '2020-01-01',
          suspended: [
            { start: '2025-01-01', end: '2025-01-15' },
            { start: '2025-01-16', end: '2025-02-15' },
          ],
        }),
      'NOT_ACTIVE',
      /suspended on every day/,
    );
  });
  test('a suspension that ends before it starts: INVALID_PERIOD at its end', () => {
    throwsCode(
      () => bill([flat100], { startDate: '2020-01-01', suspended: [{ start: '2025-01-10', end: '2025-01-09' }] }),
      'INVALID_PERIOD',
      /suspension ends/,
      'subscription.suspended[0].end',
    );
  });
  test('a suspension date that is not a calendar date: INVALID_DATE naming it', () => {
    throwsCode(() => bill([flat100], { startDate: '2020-01-01', suspended: [{ start: '2025-02-30' }] }), 'INVALID_DATE', /suspended\[0\]\.start/);
    throwsCode(() => bill([flat100], { startDate: '2020-01-01', suspended: [{ start: '2025-01-01', end: '10/01/2025' }] }), 'INVALID_DATE', /suspended\[0\]\.end/);
  });
});
