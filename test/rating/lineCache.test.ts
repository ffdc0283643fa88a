// rateLine keeps the lines it rated per component, by what they were rated from
// (src/rating/rateLine.ts, lineCore): a bill rated alike to an earlier one takes its lines
// from there. These tests say what must not leak from one bill into another through it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import { fullBillTariff } from './fixtures.ts';

const JANUARY = { start: '2025-01-01', end: '2025-01-31' };

describe('lines rated alike, from the cache', () => {
  const tariff = fullBillTariff();
  const input = (previous: string, current: string, over: Partial<RateBillInput> = {}): RateBillInput => ({
    tariff,
    term: JANUARY,
    subscription: { startDate: '2020-01-01' },
    readings: { water: { previous: { date: '2024-12-31', value: previous }, current: { date: '2025-01-31', value: current } } },
    minorUnits: 2,
    ...over,
  });

  test('two meters that used the same 37 m3 from other readings: the same amounts, each its own readings in the trace', () => {
    const a = rateBill(input('1234', '1271'));
    const b = rateBill(input('500', '537'));
    assert.deepEqual(
      a.lines.map((l) => l.amount),
      b.lines.map((l) => l.amount),
    );
    assert.equal(a.lines[1]!.trace.reading!.previous.value, '1234');
    assert.equal(b.lines[1]!.trace.reading!.previous.value, '500');
    // Hand-worked: 10 x 48.75 + 20 x 61.20 + 7 x 83.10 = 487.50 + 1224.00 + 581.70 = 2293.20.
    assert.equal(b.lines[1]!.amount, '2293.20');
  });

  test('a bill rated again is the same JSON, byte for byte, and a change to one bill\'s trace reaches no other', () => {
    const first = JSON.stringify(rateBill(input('1234', '1271')));
    const again = rateBill(input('1234', '1271'));
    assert.equal(JSON.stringify(again), first);
    // A line that reads nothing of its bill's own (the standing charge, the sewer's
    // percentage) is shared by the bills rated alike, so frozen: a field set on its trace
    // throws rather than reaching another bill. A line with a reading is the bill's own.
    const shared = again.lines.filter((l) => l.trace.reading === undefined);
    const own = again.lines.filter((l) => l.trace.reading !== undefined);
    assert.ok(shared.length > 0 && own.length > 0);
    for (const l of shared) assert.throws(() => ((l.trace as Record<string, unknown>).prepaid = { basis: 'arrears' }), TypeError);
    for (const l of own) (l.trace as Record<string, unknown>).prepaid = { basis: 'arrears' };
    assert.equal(JSON.stringify(rateBill(input('1234', '1271'))), first);
  });

  test('what a line depends on besides its quantity tells lines apart: days connected, suspensions, the amounts a percentage is of', () => {
    const whole = rateBill(input('0', '10'));
    const half = rateBill(input('0', '10', { subscription: { startDate: '2025-01-17' } }));
    const suspended = rateBill(input('0', '10', { subscription: { startDate: '2020-01-01', suspended: [{ start: '2025-01-01', end: '2025-01-15' }] } }));
    // 250.00 for 15 of 31 days, and for 16 of 31 (suspended 1 to 15 January).
    assert.deepEqual([whole.lines[0]!.amount, half.lines[0]!.amount, suspended.lines[0]!.amount], ['250.00', '120.97', '129.03']);
    assert.equal(suspended.lines[0]!.trace.proration!.suspendedDays, 15);
    assert.equal(half.lines[0]!.trace.proration!.suspendedDays, undefined);
    // The sewer line is 10% of the water line: same quantity 10, so the same water, so the same sewer.
    const more = rateBill(input('0', '11'));
    assert.notEqual(more.lines[2]!.amount, whole.lines[2]!.amount);
    assert.equal(whole.lines[2]!.amount, '48.75');
  });

  test('the segments of a bill with the same days and quantity in each: each rated by its own version, then a bill without a change as before', () => {
    const APRIL = { start: '2025-04-01', end: '2025-04-30' }; // 30 days: 1-15 and 16-30 are 15 days each
    const version = (service: string, perKl: string): Tariff => ({
      meteredInputs: [{ code: 'water', label: 'Water', unit: 'kL', decimals: 0 }],
      components: [
        { code: 'service', name: 'Service', model: 'flat', amount: service },
        { code: 'water', name: 'Water', model: 'perUnit', input: 'water', rate: perKl },
      ],
    });
    const v1 = version('31.00', '2.00');
    const versions: TariffVersion[] = [
      { version: 1, from: APRIL.start, tariff: v1 },
      { version: 2, from: '2025-04-16', tariff: version('62.00', '3.00') },
    ];
    const april = (over: Partial<RateBillInput> = {}): RateBillInput => ({
      tariff: v1,
      term: APRIL,
      subscription: { startDate: '2020-01-01' },
      readings: { water: { previous: { date: '2025-03-31', value: '1000' }, current: { date: '2025-04-30', value: '1310' } } },
      minorUnits: 2,
      ...over,
    });
    const plain = rateBill(april()).lines.map((l) => l.amount);
    // 310 kL split by days, 155 in each half. Version 1: 31.00 x 15/30 = 15.50 and 155 x 2.00 = 310.00;
    // version 2: 62.00 x 15/30 = 31.00 and 155 x 3.00 = 465.00.
    const split = rateBill(april({ versions }));
    assert.deepEqual(
      split.lines.map((l) => [l.trace.segment?.version, l.quantity, l.amount]),
      [
        [1, '1', '15.50'],
        [1, '155', '310.00'],
        [2, '1', '31.00'],
        [2, '155', '465.00'],
      ],
    );
    assert.deepEqual(plain, ['31.00', '620.00']);
    assert.deepEqual(rateBill(april()).lines.map((l) => l.amount), plain);
  });
});
