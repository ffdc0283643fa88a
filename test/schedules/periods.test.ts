// The periods of a bill-cycle schedule, worked out by hand on a calendar: every cycle,
// month ends (the 29th, 30th and 31st), leap years (2028 is one; 2100 is not). A period
// starts on the anchor's day, or its month's last day when the month is shorter, and ends
// the day before the next one starts (docs/schedules.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { periodAfter, periodAt, periodIndexOn } from '../../src/schedules/periods.ts';
import { cycleMonths } from '../../src/calendar/cycles.ts';
import { addMonths } from '../../src/rating/days.ts';

type Row = [anchor: string, months: number, k: number, start: string, end: string, billingPeriodId: number];

const ROWS: Row[] = [
  // Monthly from the 1st: calendar months, February by its year.
  ['2027-01-01', 1, 0, '2027-01-01', '2027-01-31', 202701],
  ['2027-01-01', 1, 1, '2027-02-01', '2027-02-28', 202702],
  ['2028-01-01', 1, 1, '2028-02-01', '2028-02-29', 202802],
  ['2027-01-01', 1, 11, '2027-12-01', '2027-12-31', 202712],
  ['2027-01-01', 1, 12, '2028-01-01', '2028-01-31', 202801],
  // Monthly from the 31st: 31 January + 1 month is 28 February, so January's period ends
  // on the 27th; the 31st comes back in every month that has one.
  ['2027-01-31', 1, 0, '2027-01-31', '2027-02-27', 202701],
  ['2027-01-31', 1, 1, '2027-02-28', '2027-03-30', 202702], // February's last day
  ['2027-01-31', 1, 2, '2027-03-31', '2027-04-29', 202703],
  ['2027-01-31', 1, 3, '2027-04-30', '2027-05-30', 202704], // April's last day
  ['2027-01-31', 1, 4, '2027-05-31', '2027-06-29', 202705],
  ['2027-01-31', 1, 6, '2027-07-31', '2027-08-30', 202707], // July and August both have a 31st
  ['2027-01-31', 1, 7, '2027-08-31', '2027-09-29', 202708],
  ['2027-01-31', 1, 10, '2027-11-30', '2027-12-30', 202711],
  ['2027-01-31', 1, 11, '2027-12-31', '2028-01-30', 202712],
  ['2027-01-31', 1, 12, '2028-01-31', '2028-02-28', 202801], // 29 February 2028 starts the next
  ['2027-01-31', 1, 13, '2028-02-29', '2028-03-30', 202802],
  ['2028-01-31', 1, 0, '2028-01-31', '2028-02-28', 202801],
  // Monthly from the 30th and 29th.
  ['2027-01-30', 1, 0, '2027-01-30', '2027-02-27', 202701],
  ['2027-01-30', 1, 1, '2027-02-28', '2027-03-29', 202702],
  ['2027-01-30', 1, 2, '2027-03-30', '2027-04-29', 202703],
  ['2028-01-29', 1, 0, '2028-01-29', '2028-02-28', 202801], // 29 February 2028 exists
  ['2028-01-29', 1, 1, '2028-02-29', '2028-03-28', 202802],
  ['2027-01-29', 1, 0, '2027-01-29', '2027-02-27', 202701], // 2027 has no 29 February
  ['2027-01-29', 1, 1, '2027-02-28', '2027-03-28', 202702],
  ['2027-01-29', 1, 2, '2027-03-29', '2027-04-28', 202703],
  // Bi-monthly.
  ['2027-01-01', 2, 0, '2027-01-01', '2027-02-28', 202701],
  ['2028-01-01', 2, 0, '2028-01-01', '2028-02-29', 202801],
  ['2027-12-01', 2, 0, '2027-12-01', '2028-01-31', 202712],
  ['2027-12-31', 2, 0, '2027-12-31', '2028-02-28', 202712], // the next starts on 29 February 2028
  ['2027-12-31', 2, 1, '2028-02-29', '2028-04-29', 202802],
  ['2027-12-31', 2, 2, '2028-04-30', '2028-06-29', 202804], // April's last day
  ['2027-12-31', 2, 3, '2028-06-30', '2028-08-30', 202806],
  // Quarterly.
  ['2027-01-01', 3, 0, '2027-01-01', '2027-03-31', 202701],
  ['2027-01-01', 3, 3, '2027-10-01', '2027-12-31', 202710],
  ['2027-11-30', 3, 0, '2027-11-30', '2028-02-28', 202711],
  ['2027-11-30', 3, 1, '2028-02-29', '2028-05-29', 202802],
  ['2027-11-30', 3, 2, '2028-05-30', '2028-08-29', 202805],
  // Half-yearly.
  ['2027-01-01', 6, 0, '2027-01-01', '2027-06-30', 202701],
  ['2027-01-01', 6, 1, '2027-07-01', '2027-12-31', 202707],
  ['2027-08-31', 6, 0, '2027-08-31', '2028-02-28', 202708],
  ['2027-08-31', 6, 1, '2028-02-29', '2028-08-30', 202802],
  // Yearly: 365 or 366 days; a 29 February anchor is billed on 28 February in common years.
  ['2027-01-01', 12, 0, '2027-01-01', '2027-12-31', 202701],
  ['2028-03-01', 12, 0, '2028-03-01', '2029-02-28', 202803],
  ['2028-02-29', 12, 0, '2028-02-29', '2029-02-27', 202802],
  ['2028-02-29', 12, 1, '2029-02-28', '2030-02-27', 202902],
  ['2028-02-29', 12, 3, '2031-02-28', '2032-02-28', 203102], // 366 days: 2032 is a leap year
  ['2028-02-29', 12, 4, '2032-02-29', '2033-02-27', 203202],
  ['2096-02-29', 12, 4, '2100-02-28', '2101-02-27', 210002], // 2100 is not a leap year
  ['2099-02-01', 12, 0, '2099-02-01', '2100-01-31', 209902],
  ['2099-03-01', 1, 11, '2100-02-01', '2100-02-28', 210002],
  ['2100-01-29', 1, 0, '2100-01-29', '2100-02-27', 210001],
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

  test('months are added to the anchor, never to the last result: the anchor day comes back', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 12, 13].map((n) => addMonths('2027-01-31', n)),
      ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2028-01-31', '2028-02-29'],
    );
    assert.equal(addMonths(addMonths('2027-01-31', 1), 1), '2027-03-28'); // what chaining would lose
    assert.equal(addMonths('2028-02-29', 12), '2029-02-28');
    assert.equal(addMonths('2028-02-29', 48), '2032-02-29');
    assert.equal(addMonths('2027-03-31', -1), '2027-02-28');
    assert.equal(addMonths('2027-01-15', -13), '2025-12-15');
  });

  test('the period of a date: -1 before the anchor, and any day inside a period', () => {
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-02-27'), 0);
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-02-28'), 1);
    assert.equal(periodIndexOn('2027-02-01', 1, '2027-01-31'), -1);
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-03-15'), 1);
    assert.equal(periodIndexOn('2027-01-31', 1, '2027-03-31'), 2);
    assert.equal(periodIndexOn('2027-01-01', 3, '2027-08-14'), 2);
    assert.equal(periodIndexOn('2028-02-29', 12, '2030-03-01'), 2);
  });

  test('a schedule whose last term was made by the rule before (1 May for 31 April) opens its next period the day after it', () => {
    const april = periodAt('2027-01-31', 1, 3); // 30/04-30/05 by this rule
    // The rule before made period 2 as 31/03-30/04: period 3 starts on 01/05 and keeps its end and id.
    assert.deepEqual(periodAfter(april, '2027-04-30'), { index: 3, billingPeriodId: 202704, start: '2027-05-01', end: '2027-05-30' });
    // Made by this rule (31/03-29/04), or not made: nothing moves.
    assert.deepEqual(periodAfter(april, '2027-04-29'), april);
    assert.deepEqual(periodAfter(april, null), april);
  });

  test('a date that is not one is refused', () => {
    assert.throws(() => periodAt('2027-02-29', 1, 0));
    assert.throws(() => periodAt('2027-01-01', 1, -1), RangeError);
  });
});
