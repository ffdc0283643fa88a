// Table tests of a correction's arithmetic, amounts by hand: the credit note of a bill,
// what cancelling and rebilling does to the balance, and the spread of an actual
// reading over the estimates before it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { correctionEffect, creditNoteOf, sumEffects } from '../../src/corrections/amounts.ts';
import { spreadReadings, SpreadError } from '../../src/corrections/spread.ts';

describe('credit-note arithmetic', () => {
  const cases: { name: string; bill: { charges: string; tax: string; total: string }; note: [string, string, string, string] }[] = [
    { name: 'a bill with tax', bill: { charges: '1470.00', tax: '235.20', total: '1705.20' }, note: ['1470', '235.2', '1705.2', '-1705.2'] },
    { name: 'a bill of nothing', bill: { charges: '0.00', tax: '0.00', total: '0.00' }, note: ['0', '0', '0', '0'] },
    { name: 'a bill of a credit (a discount larger than the charges)', bill: { charges: '-10.00', tax: '-1.60', total: '-11.60' }, note: ['-10', '-1.6', '-11.6', '11.6'] },
    { name: 'minor units of three', bill: { charges: '12.345', tax: '0.001', total: '12.346' }, note: ['12.345', '0.001', '12.346', '-12.346'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const n = creditNoteOf(c.bill);
      assert.deepEqual([n.charges, n.tax, n.amount, n.entryAmount], c.note);
    });
  }

  test('a bill whose total is not charges + tax is refused', () => {
    assert.throws(() => creditNoteOf({ charges: '10.00', tax: '1.60', total: '11.00' }), /not charges/);
  });

  const effects: { name: string; old: string; rebill: string | null; effect: [string, string, string] }[] = [
    { name: 'a misread meter, less used', old: '1705.20', rebill: '1258.60', effect: ['1705.2', '1258.6', '-446.6'] },
    { name: 'an estimate below the actual', old: '1705.20', rebill: '2509.08', effect: ['1705.2', '2509.08', '803.88'] },
    { name: 'cancelled without a rebill', old: '1705.20', rebill: null, effect: ['1705.2', '0', '-1705.2'] },
    { name: 'the same bill again', old: '99.99', rebill: '99.99', effect: ['99.99', '99.99', '0'] },
    { name: 'a credit bill rebilled as a charge', old: '-11.60', rebill: '5.00', effect: ['-11.6', '5', '16.6'] },
  ];
  const bill = (total: string) => ({ charges: total, tax: '0', total });
  for (const e of effects) {
    test(`effect: ${e.name}`, () => {
      const r = correctionEffect(bill(e.old), e.rebill === null ? null : bill(e.rebill));
      assert.deepEqual([r.credited, r.rebilled, r.change], e.effect);
    });
  }

  test("a term's corrections add up exactly (no float drift over many cents)", () => {
    const many = Array.from({ length: 1000 }, () => correctionEffect(bill('0.10'), bill('0.20')));
    assert.deepEqual(sumEffects(many), { credited: '100', rebilled: '200', change: '100' });
  });
});

describe('spreading an actual reading over the estimates before it', () => {
  const cases: { name: string; prev: [string, string]; actual: [string, string]; dates: string[]; decimals: number; values: string[] }[] = [
    // 90 over 91 days: day 30 is 29.67, day 61 is 60.33, rounded down to whole units.
    { name: 'two month-end estimates, whole units', prev: ['2026-08-31', '100'], actual: ['2026-11-30', '190'], dates: ['2026-09-30', '2026-10-31'], decimals: 0, values: ['129', '160'] },
    { name: 'the same with one decimal', prev: ['2026-08-31', '100'], actual: ['2026-11-30', '190'], dates: ['2026-09-30', '2026-10-31'], decimals: 1, values: ['129.6', '160.3'] },
    // 30 over 30 days: one a day exactly.
    { name: 'an even split', prev: ['2026-11-01', '0'], actual: ['2026-12-01', '30'], dates: ['2026-11-11', '2026-11-21'], decimals: 0, values: ['10', '20'] },
    { name: 'no consumption', prev: ['2026-01-01', '500'], actual: ['2026-03-01', '500'], dates: ['2026-02-01'], decimals: 0, values: ['500'] },
    // 2024 is a leap year: 29/02 is day 59 of 60 days from 01/01 to 01/03 (60 units): 59.
    { name: 'over a leap day', prev: ['2024-01-01', '0'], actual: ['2024-03-01', '60'], dates: ['2024-02-29'], decimals: 0, values: ['59'] },
    { name: 'no estimates', prev: ['2026-01-01', '0'], actual: ['2026-02-01', '9'], dates: [], decimals: 0, values: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = spreadReadings({ date: c.prev[0], value: c.prev[1] }, { date: c.actual[0], value: c.actual[1] }, c.dates, c.decimals);
      assert.deepEqual(r.map((x) => x.value), c.values);
      assert.deepEqual(r.map((x) => x.date), c.dates);
    });
  }

  test('a meter that reads less (roll-over, new meter) cannot be spread', () => {
    assert.throws(() => spreadReadings({ date: '2026-01-01', value: '90' }, { date: '2026-03-01', value: '10' }, ['2026-02-01'], 0), SpreadError);
  });
  test('an estimate outside the two actual readings is refused', () => {
    assert.throws(() => spreadReadings({ date: '2026-01-01', value: '0' }, { date: '2026-03-01', value: '10' }, ['2026-03-01'], 0), /not between/);
  });
});
