// A reviewer's finding (perUnitPerDay): a Prepaid template bills a capacity per kVA per day in
// advance for the coming period; when the subscription ends inside that period the days
// paid and not used must be credited, as docs/templates.md promises for a charge billed by
// the day ("a credit for the days paid in advance that the subscription did not use"), and
// as a Postpaid bill would charge only the days connected. The advance line of a
// perUnitPerDay component is recorded with prorate: false (the model's prorate is 'never',
// prepaid.ts ratePrepaidBill: `prorate: prepared.components[i]?.prorate`), and creditLines
// credits only lines with prorate true: the unused days are never given back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ratePrepaidBill } from '../../src/rating/prepaid.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff: Tariff = {
  meteredInputs: [],
  unmeteredInputs: [{ code: 'capacity', label: 'Contracted capacity (kVA)', default: 120 }],
  components: [{ code: 'capacity', name: 'Capacity charge', model: 'perUnitPerDay', input: 'capacity', rate: '0.2100' }],
};

describe('perUnitPerDay on a Prepaid template', () => {
  test('a subscription that ends inside the period paid in advance is credited its unused days', () => {
    // November's bill: November in arrears (catch-up, nothing paid before) and December in
    // advance: 120 kVA x 31 days x 0.21 = 781.20.
    const nov = ratePrepaidBill(
      { tariff, term: { start: '2026-11-01', end: '2026-11-30' }, subscription: { startDate: '2020-01-01' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: tariff, prepaid: [] },
    );
    const advance = nov.prepaid.advance!;
    assert.deepEqual(
      advance.lines.map((l) => [l.componentCode, l.amount]),
      [['capacity', '781.20']],
    );
    // December's bill: the subscription ended on 10/12/2026. It used 10 of the 31 days paid;
    // the 21 others are given back: 781.20 x 21/31 = 529.20 (= 120 x 21 x 0.21), so that it
    // paid 120 x 10 x 0.21 = 252.00 for December, as a Postpaid bill would have charged.
    const dec = ratePrepaidBill(
      { tariff, term: { start: '2026-12-01', end: '2026-12-31' }, subscription: { startDate: '2020-01-01', endDate: '2026-12-10' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: tariff, prepaid: [{ ...advance, billId: '7', billNumber: '1007' }] },
    );
    assert.deepEqual(
      dec.lines.map((l) => `${l.trace.prepaid?.basis} ${l.componentCode} ${l.amount}`),
      ['credit capacity -529.20'],
    );
    assert.equal(dec.total, '-529.20');
  });

  test('a daily standing charge (perDay) paid in advance is credited the same way', () => {
    const standing: Tariff = { meteredInputs: [], components: [{ code: 'standing', name: 'Standing charge', model: 'perDay', rate: '0.58' }] };
    // December in advance: 31 x 0.58 = 17.98; ended 10/12: 21 days back, 17.98 x 21/31 = 12.18.
    const nov = ratePrepaidBill(
      { tariff: standing, term: { start: '2026-11-01', end: '2026-11-30' }, subscription: { startDate: '2020-01-01' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: standing, prepaid: [] },
    );
    assert.deepEqual(nov.prepaid.advance!.lines.map((l) => l.amount), ['17.98']);
    const dec = ratePrepaidBill(
      { tariff: standing, term: { start: '2026-12-01', end: '2026-12-31' }, subscription: { startDate: '2020-01-01', endDate: '2026-12-10' }, minorUnits: 2 },
      { cycleMonths: 1, advanceTariff: standing, prepaid: [{ ...nov.prepaid.advance!, billId: '7', billNumber: '1007' }] },
    );
    assert.deepEqual(dec.lines.map((l) => `${l.trace.prepaid?.basis} ${l.componentCode} ${l.amount}`), ['credit standing -12.18']);
  });
});
