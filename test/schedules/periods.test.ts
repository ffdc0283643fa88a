// The periods of a bill-cycle schedule, worked out by hand on a calendar: every cycle,
// month ends (the 29th, 30th and 31st), leap years (2028 is one; 2100 is not).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cycleMonths, periodAt, periodIndexOn } from '../../src/schedules/periods.ts';

type Row = [anchor: string, months: number, k: number, start: string, end: string, billingPeriodId: number];

const ROWS: Row[] = [
  // Monthly from the 1st: calendar months, February by its year.
  ['2027-01-01', 1, 0, '2027-01-01', '2027-01-31', 202701],
  ['2027-01-01', 1, 1, '2027-02-01', '2027-02-28', 202702],
  ['2028-01-01', 1, 1, '2028-02-01', '2028-02-29', 202802],
  ['2027-01-01', 1, 11, '2027-12-01', '2027-12-31', 202712],
  ['2027-01-01', 1, 12, '2028-01-01', '2028-01-31', 202801],
  // Monthly from the 31st: 31 January + 1 month ends on February's last day.
  ['2027-01-31', 1, 0, '2027-01-31', '2027-02-28', 202701],
  ['2028-01-31', 1, 0, '2028-01-31', '2028-02-29', 202801],
  ['2027-01-31', 1, 1, '2027-03-01', '2027-03-30', 202702], // no 31 February: the 1st of March
  ['2027-01-31', 1, 2, '2027-03-31', '2027-04-30', 202703],
  ['2027-01-31', 1, 3, '2027-05-01', '2027-05-30', 202704], // no 31 April
  ['2027-01-31', 1, 4, '2027-05-31', '2027-06-30', 202705],
  // Monthly from the 30th and 29th.
  ['2027-01-30', 1, 0, '2027-01-30', '2027-02-28', 202701],
  ['2027-01-30', 1, 1, '2027-03-01', '2027-03-29', 202702],
  ['2028-01-29', 1, 0, '2028-01-29', '2028-02-28', 202801], // 29 February 2028 exists
  ['2028-01-29', 1, 1, '2028-02-29', '2028-03-28', 202802],
  ['2027-01-29', 1, 1, '2027-03-01', '2027-03-28', 202702],
  // Bi-monthly.
  ['2027-01-01', 2, 0, '2027-01-01', '2027-02-28', 202701],
  ['2028-01-01', 2, 0, '2028-01-01', '2028-02-29', 202801],
  ['2027-12-01', 2, 0, '2027-12-01', '2028-01-31', 202712],
  ['2027-12-31', 2, 0, '2027-12-31', '2028-02-29', 202712], // no 31 February 2028: ends the day before 1 March
  ['2027-12-31', 2, 1, '2028-03-01', '2028-04-30', 202802],
  ['2027-12-31', 2, 2, '2028-05-01', '2028-06-30', 202804], // no 31 April
  // Quarterly.
  ['2027-01-01', 3, 0, '2027-01-01', '2027-03-31', 202701],
  ['2027-01-01', 3, 3, '2027-10-01', '2027-12-31', 202710],
  ['2027-11-30', 3, 0, '2027-11-30', '2028-02-29', 202711], // 30 February: 1 March 2028 starts the next
  ['2027-11-30', 3, 1, '2028-03-01', '2028-05-29', 202802],
  ['2027-11-30', 3, 2, '2028-05-30', '2028-08-29', 202805],
  // Half-yearly.
  ['2027-01-01', 6, 0, '2027-01-01', '2027-06-30', 202701],
  ['2027-01-01', 6, 1, '2027-07-01', '2027-12-31', 202707],
  ['2027-08-31', 6, 0, '2027-08-31', '2028-02-29', 202708],
  ['2027-08-31', 6, 1, '2028-03-01', '2028-08-30', 202802],
  // Yearly: 365 or 366 days, and 29 February anchors.
  ['2027-01-01', 12, 0, '2027-01-01', '2027-12-31', 202701],
  ['2028-03-01', 12, 0, '2028-03-01', '2029-02-28', 202803],
  ['2028-02-29', 12, 0, '2028-02-29', '2029-02-28', 202802],
  ['2028-02-29', 12, 1, '2029-03-01', '2030-02-28', 202902],
  ['2028-02-29', 12, 3, '2031-03-01', '2032-02-28', 203102],
  ['2028-02-29', 12, 4, '2032-02-29', '2033-02-28', 203202],
  ['2099-02-01', 12, 0, '2099-02-01', '2100-01-31', 209902],
  ['2099-03-01', 1, 11, '2100-02-01', '2100-02-28', 210002], // 2100 is not a leap year
];

describe('bill-cycle periods', () => {
  test('the billingCycle lookup ids are 1, 2, 3, 6 and 12 months', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map(cycleMonths), [1, 2, 3, 6, 12]);
    assert.throws(() => cycleMonths(6), RangeError);
    assert.throws(() => cycleMonths(0), RangeError);
  });

  for (const [anchor, months, k, start, end, id] of ROWS) {
    test(`${months} month(s) from ${anchor}, period ${k}: ${start} to ${end}, ${id}`, () => {
      assert.deepEqual(periodAt(anchor, months, k), { index: k, start, end, billingPeriodId: id });
      assert.equal(periodIndexOn(anchor, months, start), k);
      assert.equal(periodIndexOn(anchor, months, end), k);
    });
  }

  test('consecutive periods meet: each starts the day after the one before ends, and ids differ', () => {
    for (const anchor of ['2027-01-31', '2027-01-30', '2028-01-29', '2027-05-31', '2028-02-29', '2027-01-15']) {
      for (const months of [1, 2, 3, 6, 12]) {
        const ids = new Set<number>();
        let prev = periodAt(anchor, months, 0);
        ids.add(prev.billingPeriodId);
        for (let k = 1; k < 60; k++) {
          const p = periodAt(anchor, months, k);
          const dayAfter = new Date(Date.parse(prev.end + 'T00:00:00Z') + 86_400_000).toISOString().slice(0, 10);
          assert.equal(p.start, dayAfter, `${anchor} every ${months}: period ${k}`);
          assert.ok(p.end >= p.start);
          assert.ok(!ids.has(p.billingPeriodId), `${anchor} every ${months}: id ${p.billingPeriodId} twice`);
          ids.add(p.billingPeriodId);
          prev = p;
        }
      }
    }
  });

  test('the period of a date: -1 before the anchor, and any day inside a period', () => {
    assert.equal(periodIndexOn('2027-02-01', 1, '2027-01-31'), -1);
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-03-15'), 1);
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-03-31'), 2);
    assert.equal(periodIndexOn('2027-01-01', 3, '2027-08-14'), 2);
    assert.equal(periodIndexOn('2028-02-29', 12, '2030-03-01'), 2);
  });

  test('a date that is not one is refused', () => {
    assert.throws(() => periodAt('2027-02-29', 1, 0));
    assert.throws(() => periodAt('2027-01-01', 1, -1), RangeError);
  });
});
