// A Prepaid template's bill (src/rating/prepaid.ts, docs/templates.md "Prepaid"): metered
// in arrears, fixed and unmetered in advance for the coming period, the term's days not
// paid in advance billed in arrears, unused prepaid days credited. Amounts worked by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { comingPeriod, ratePrepaidBill, type PrepaidAdvance } from '../../src/rating/prepaid.ts';
import type { RateBillInput } from '../../src/rating/rateBill.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import { explainLine } from '../../src/bills/explain.ts';

// Standing charge 310.00 a month (prorated by days), bins 35.00 each (a charge per period,
// not prorated), water 2.00 a m3, VAT 10% of all three.
const tariff: Tariff = {
  meteredInputs: [{ code: 'water', label: 'Water', unit: 'm3', decimals: 0 }],
  unmeteredInputs: [{ code: 'bins', label: 'Bins', default: 1 }],
  components: [
    { code: 'standing', name: 'Standing charge', model: 'flat', amount: '310.00' },
    { code: 'bins', name: 'Bins', model: 'perUnit', input: 'bins', rate: '35.00' },
    { code: 'water', name: 'Water', model: 'perUnit', input: 'water', rate: '2.00' },
    { code: 'vat', name: 'VAT', model: 'percentage', category: 'tax', percentage: '10', of: ['standing', 'bins', 'water'] },
  ],
};

const JANUARY = { start: '2025-01-01', end: '2025-01-31' };

function rate(over: Partial<RateBillInput>, prepaid: PrepaidAdvance[] = [], advanceTariff: Tariff = tariff) {
  const input: RateBillInput = {
    tariff,
    term: JANUARY,
    subscription: { startDate: '2024-06-01' },
    readings: { water: { previous: { date: '2024-12-31', value: 1234 }, current: { date: '2025-01-31', value: 1271 } } },
    minorUnits: 2,
    ...over,
  };
  return ratePrepaidBill(input, { cycleMonths: 1, advanceTariff, prepaid });
}

/** January billed in advance by December's bill (number 1007). */
const januaryPaid = (over: Partial<PrepaidAdvance> = {}): PrepaidAdvance => ({
  billId: '7',
  billNumber: '1007',
  start: '2025-01-01',
  end: '2025-01-31',
  lines: [
    { componentCode: 'standing', name: 'Standing charge', category: 'charge', amount: '310.00', prorate: true, model: { model: 'flat', amount: '310' } },
    { componentCode: 'bins', name: 'Bins', category: 'charge', amount: '35.00', prorate: false, model: { model: 'perUnit', quantity: '1', rate: '35' } },
    {
      componentCode: 'vat',
      name: 'VAT',
      category: 'tax',
      amount: '34.50',
      prorate: false,
      model: { model: 'percentage', percentage: '10', of: [{ code: 'standing', amount: '310.00' }, { code: 'bins', amount: '35.00' }], base: '345' },
    },
  ],
  ...over,
});

const summary = (b: ReturnType<typeof rate>) => b.lines.map((l) => `${l.trace.prepaid?.basis} ${l.componentCode} ${l.amount}`);

describe('the coming period', () => {
  const cases: [string, number, string, string][] = [
    ['2025-01-31', 1, '2025-02-01', '2025-02-28'],
    ['2024-01-31', 1, '2024-02-01', '2024-02-29'], // leap year
    ['2025-01-30', 1, '2025-01-31', '2025-02-27'], // 31/01 + 1 month is 28 February (no 31st): the next starts then
    ['2024-01-28', 1, '2024-01-29', '2024-02-28'], // 29/01 + 1 month is 29 February 2024
    ['2025-04-29', 1, '2025-04-30', '2025-05-29'],
    ['2024-12-31', 3, '2025-01-01', '2025-03-31'],
    ['2025-06-30', 6, '2025-07-01', '2025-12-31'],
    ['2023-02-28', 12, '2023-03-01', '2024-02-29'],
    ['2025-01-14', 1, '2025-01-15', '2025-02-14'],
  ];
  for (const [end, months, start, last] of cases) {
    test(`after ${end}, ${months} month(s): ${start} to ${last}`, () => assert.deepEqual(comingPeriod(end, months), { start, end: last }));
  }
});

describe('a Prepaid bill', () => {
  test('a full period paid in advance: the consumption in arrears and the next month in advance, on one bill', () => {
    const b = rate({}, [januaryPaid()]);
    // water 37 m3 x 2.00 = 74.00, VAT 7.40 (in arrears); February: 310.00 + 35.00 + VAT 34.50 (in advance)
    assert.deepEqual(summary(b), ['arrears water 74.00', 'arrears vat 7.40', 'advance standing 310.00', 'advance bins 35.00', 'advance vat 34.50']);
    assert.equal(b.total, '460.90');
    assert.equal(b.charges, '419.00');
    assert.equal(b.tax, '41.90');
    assert.deepEqual(b.prepaid.comingPeriod, { start: '2025-02-01', end: '2025-02-28' });
    assert.deepEqual(b.prepaid.advance && [b.prepaid.advance.start, b.prepaid.advance.end, b.prepaid.advance.lines.map((l) => l.amount)], ['2025-02-01', '2025-02-28', ['310.00', '35.00', '34.50']]);
    assert.deepEqual(b.prepaid.used.map((u) => u.settles), [[{ start: '2025-01-01', end: '2025-01-31' }]]);
    const water = b.lines[0]!;
    assert.deepEqual(water.trace.prepaid, { basis: 'arrears', start: '2025-01-01', end: '2025-01-31', days: 31 });
    assert.match(explainLine(water), /^Water: in arrears for 01\/01\/2025 to 31\/01\/2025 \(31 day\(s\) billed\); water read 1234/);
    assert.match(explainLine(b.lines[2]!), /^Standing charge: in advance for 01\/02\/2025 to 28\/02\/2025 \(28 day\(s\)\)/);
  });

  test('the first Prepaid bill (nothing paid in advance): the term in arrears, the next month in advance', () => {
    const b = rate({});
    assert.deepEqual(summary(b), [
      'arrears water 74.00',
      'arrears vat 7.40',
      'catchUp standing 310.00',
      'catchUp bins 35.00',
      'catchUp vat 34.50',
      'advance standing 310.00',
      'advance bins 35.00',
      'advance vat 34.50',
    ]);
    assert.equal(b.total, '840.40'); // 74.00 + 7.40 + 2 x (310.00 + 35.00 + 34.50)
  });

  test('a subscription starting inside the term is billed from its start, then the next month in advance', () => {
    const b = rate({
      subscription: { startDate: '2025-01-15' },
      readings: { water: { previous: { date: '2025-01-15', value: 500 }, current: { date: '2025-01-31', value: 510 } } },
    });
    // 15 to 31 January is 17 days: 310.00 x 17/31 = 170.00; bins 35.00 (per period); VAT 10% of 205.00 = 20.50
    // water 10 m3 = 20.00, VAT 2.00
    assert.deepEqual(summary(b), [
      'arrears water 20.00',
      'arrears vat 2.00',
      'catchUp standing 170.00',
      'catchUp bins 35.00',
      'catchUp vat 20.50',
      'advance standing 310.00',
      'advance bins 35.00',
      'advance vat 34.50',
    ]);
    assert.equal(b.total, '627.00');
    const standing = b.lines[2]!;
    assert.deepEqual(standing.trace.prepaid, { basis: 'catchUp', start: '2025-01-15', end: '2025-01-31', days: 17 });
    assert.equal(standing.trace.proration?.factor, '17/31');
    assert.match(explainLine(standing), /in arrears for 15\/01\/2025 to 31\/01\/2025, 17 day\(s\) not billed in advance/);
  });

  test('a subscription ending inside a prepaid period: its unused days credited on its final bill, as their own lines', () => {
    const b = rate(
      {
        subscription: { startDate: '2024-06-01', endDate: '2025-01-10' },
        readings: { water: { previous: { date: '2024-12-31', value: 1234 }, current: { date: '2025-01-10', value: 1244 } } },
      },
      [januaryPaid()],
    );
    // 11 to 31 January unused, 21 of the 31 days paid: -310.00 x 21/31 = -210.00; bins per period, not credited;
    // VAT 10% of -210.00 = -21.00. Water 10 m3 = 20.00, VAT 2.00. Nothing in advance: it has ended.
    assert.deepEqual(summary(b), ['arrears water 20.00', 'arrears vat 2.00', 'credit standing -210.00', 'credit vat -21.00']);
    assert.equal(b.total, '-209.00');
    assert.equal(b.prepaid.advance, null);
    const credit = b.lines[2]!;
    assert.deepEqual(credit.trace.prepaid, {
      basis: 'credit',
      start: '2025-01-11',
      end: '2025-01-31',
      days: 21,
      unused: [{ start: '2025-01-11', end: '2025-01-31' }],
      advance: { billNumber: '1007', start: '2025-01-01', end: '2025-01-31', days: 31, amount: '310.00' },
    });
    assert.equal(credit.quantity, '21');
    assert.match(
      explainLine(credit),
      /credit for 21 unused day\(s\) \(11\/01\/2025 to 31\/01\/2025\) of the 31 day\(s\) 01\/01\/2025 to 31\/01\/2025 billed in advance on bill 1007 \(310.00\), given back: -310.00 x 21\/31/,
    );
    assert.match(explainLine(b.lines[3]!), /^VAT: credit for 21 unused day\(s\)/);
  });

  test('the credit never exceeds what was paid: ended on the first day, 30 of 31 days back', () => {
    const b = rate({ subscription: { startDate: '2024-06-01', endDate: '2025-01-01' }, readings: { water: { previous: { date: '2024-12-31', value: 1234 }, current: { date: '2025-01-01', value: 1234 } } } }, [januaryPaid()]);
    // -310.00 x 30/31 = -299.999... = -300.00; VAT -30.00
    assert.deepEqual(summary(b), ['arrears water 0.00', 'arrears vat 0.00', 'credit standing -300.00', 'credit vat -30.00']);
  });

  test('days another bill settled already are not credited again', () => {
    const paid = januaryPaid({ settled: [{ start: '2025-01-11', end: '2025-01-31' }] });
    const b = rate(
      { subscription: { startDate: '2024-06-01', endDate: '2025-01-10' }, readings: { water: { previous: { date: '2024-12-31', value: 1234 }, current: { date: '2025-01-10', value: 1244 } } } },
      [paid],
    );
    assert.deepEqual(summary(b), ['arrears water 20.00', 'arrears vat 2.00']);
    assert.deepEqual(b.prepaid.used.map((u) => u.settles), [[{ start: '2025-01-01', end: '2025-01-10' }]]);
  });

  test('suspended days inside a prepaid period are credited like unused ones', () => {
    const b = rate({ subscription: { startDate: '2024-06-01', suspended: [{ start: '2025-01-11', end: '2025-01-20' }] } }, [januaryPaid()]);
    // 10 of 31 days: -310.00 x 10/31 = -100.00, VAT -10.00
    assert.deepEqual(summary(b), ['arrears water 74.00', 'arrears vat 7.40', 'credit standing -100.00', 'credit vat -10.00', 'advance standing 310.00', 'advance bins 35.00', 'advance vat 34.50']);
  });

  test('leap year: an end date known when billing in advance bills only its days of February 2024 (29 days)', () => {
    const t: Tariff = { ...tariff, components: [{ code: 'standing', name: 'Standing charge', model: 'flat', amount: '290.00' }] };
    const jan = ratePrepaidBill(
      { tariff: t, term: { start: '2024-01-01', end: '2024-01-31' }, subscription: { startDate: '2023-06-01', endDate: '2024-02-10' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: t, prepaid: [] },
    );
    // catch-up January 290.00 (31/31), advance 1 to 10 February: 290.00 x 10/29 = 100.00
    assert.deepEqual(jan.lines.map((l) => `${l.trace.prepaid?.basis} ${l.amount}`), ['catchUp 290.00', 'advance 100.00']);
    assert.equal(jan.lines[1]!.trace.proration?.factor, '10/29');
    // February's bill: those 10 days were paid and used, nothing is credited or billed again.
    const advance = { ...jan.prepaid.advance!, billId: '9', billNumber: '2009' };
    const feb = ratePrepaidBill(
      { tariff: t, term: { start: '2024-02-01', end: '2024-02-29' }, subscription: { startDate: '2023-06-01', endDate: '2024-02-10' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: t, prepaid: [advance] },
    );
    assert.deepEqual(feb.lines, []);
    assert.equal(feb.total, '0.00');
  });

  test('days of the coming period paid already by an earlier bill are not billed in advance again', () => {
    const b = rate({}, [januaryPaid({ end: '2025-02-05' })]);
    // 6 to 28 February: 310.00 x 23/28 = 254.642... = 254.64, VAT 10% of 289.64 = 28.96
    assert.deepEqual(summary(b).slice(2), ['advance standing 254.64', 'advance bins 35.00', 'advance vat 28.96']);
  });

  test('the balance brought forward is added once, to the whole bill', () => {
    const b = rate({ balanceBroughtForward: '-100.00' }, [januaryPaid()]);
    assert.equal(b.totalDue, '360.90');
  });
});
