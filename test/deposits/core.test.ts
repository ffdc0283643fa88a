// The deposit arithmetic, amounts worked out by hand: the amount a template asks for,
// what is held, the top-up of a move, and what a termination applies and refunds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Dec } from '../../src/rating/money.ts';
import { DEPOSIT_METHOD, depositAmount, heldOf, planRelease, topUp, type ReleasingDeposit } from '../../src/deposits/core.ts';
import type { OpenDebit } from '../../src/settlement/core.ts';

const d = (x: string) => new Dec(x);
const text = (x: Dec | null) => (x === null ? null : x.toFixed(2));

describe('deposit amount', () => {
  for (const [given, minor, mode, expected] of [
    ['500', 2, 'halfUp', '500.00'],
    ['10.005', 2, 'halfUp', '10.01'], // half away from zero
    ['10.005', 2, 'halfEven', '10.00'], // half to the even cent
    ['10.001', 2, 'up', '10.01'],
    ['99.5', 0, 'halfUp', '100.00'], // a currency without minor units
    ['0.004', 2, 'halfUp', null], // rounds to nothing: no deposit
    ['0', 2, 'halfUp', null],
    [null, 2, 'halfUp', null],
  ] as const) {
    test(`${given} at ${minor} places ${mode} is ${expected}`, () => {
      assert.equal(text(depositAmount(given, minor, mode)), expected);
    });
  }
});

describe('held and top-up', () => {
  test('held is what payments paid of the deposit', () => {
    assert.equal(text(heldOf(d('500'), d('0'))), '500.00'); // paid in full
    assert.equal(text(heldOf(d('500'), d('300'))), '200.00'); // 200 paid
    assert.equal(text(heldOf(d('500'), d('500'))), '0.00'); // nothing paid
  });
  test('a move tops up to the new template deposit, never refunds', () => {
    assert.equal(text(topUp(d('500'), d('700'))), '200.00');
    assert.equal(text(topUp(d('700'), d('500'))), '0.00');
    assert.equal(text(topUp(d('500'), null)), '0.00');
    assert.equal(text(topUp(d('0'), d('250.50'))), '250.50');
  });
});

// Two open bills: B1 due 15/01 with lines 100 + 50, B2 due 15/02 with one line 80.
const bills = (): OpenDebit[] => [
  { entryId: 'b2', billId: '2', dueDate: '2025-02-15', date: '2025-02-01', lines: [{ lineNo: 1, open: d('80') }] },
  { entryId: 'b1', billId: '1', dueDate: '2025-01-15', date: '2025-01-01', lines: [{ lineNo: 1, open: d('100') }, { lineNo: 2, open: d('50') }] },
];
const deposit = (amount: string, unpaid: string, id = '1', date = '2025-01-01'): ReleasingDeposit => ({ depositId: id, releaseEntryId: `r${id}`, date, amount: d(amount), unpaid: d(unpaid) });
const outcome = (o: { unpaid: Dec; held: Dec; applied: Dec; refunded: Dec }) => [o.unpaid, o.held, o.applied, o.refunded].map((x) => x.toFixed(2));
const allocs = (a: { debitEntryId: string; lineNo: number | null; amount: Dec; method: string; creditEntryId: string }[]) =>
  a.map((x) => [x.creditEntryId, x.debitEntryId, x.lineNo, x.amount.toFixed(2), x.method]);

describe('release on termination', () => {
  test('paid in full: the oldest bill first, line by line, the rest refunded', () => {
    const p = planRelease([deposit('500', '0')], bills());
    // 100 + 50 to B1, 80 to B2: 230 applied; 500 - 230 = 270 refunded.
    assert.deepEqual(outcome(p.outcomes[0]!), ['0.00', '500.00', '230.00', '270.00']);
    assert.deepEqual(allocs(p.allocations), [
      ['r1', 'b1', 1, '100.00', DEPOSIT_METHOD],
      ['r1', 'b1', 2, '50.00', DEPOSIT_METHOD],
      ['r1', 'b2', 1, '80.00', DEPOSIT_METHOD],
    ]);
  });

  test('partly paid: only what is held is applied; the unpaid part is cancelled; nothing refunded', () => {
    const p = planRelease([deposit('500', '300')], bills());
    // held 200: B1 100 + 50, then 50 of B2's 80.
    assert.deepEqual(outcome(p.outcomes[0]!), ['300.00', '200.00', '200.00', '0.00']);
    assert.deepEqual(allocs(p.allocations).map((a) => [a[1], a[3]]), [['b1', '100.00'], ['b1', '50.00'], ['b2', '50.00']]);
  });

  test('nothing paid: nothing applied, nothing refunded, all of it cancelled', () => {
    const p = planRelease([deposit('500', '500')], bills());
    assert.deepEqual(outcome(p.outcomes[0]!), ['500.00', '0.00', '0.00', '0.00']);
    assert.deepEqual(p.allocations, []);
  });

  test('no open bills: all that is held is refunded', () => {
    const p = planRelease([deposit('123.45', '0.45')], []);
    assert.deepEqual(outcome(p.outcomes[0]!), ['0.45', '123.00', '0.00', '123.00']);
  });

  test('a line partly paid before: the deposit pays what is still due on it', () => {
    const partly: OpenDebit[] = [{ entryId: 'b1', billId: '1', dueDate: '2025-01-15', date: '2025-01-01', lines: [{ lineNo: 1, open: d('30') }, { lineNo: 2, open: d('50') }] }];
    const p = planRelease([deposit('60', '0')], partly);
    assert.deepEqual(outcome(p.outcomes[0]!), ['0.00', '60.00', '60.00', '0.00']);
    assert.deepEqual(allocs(p.allocations).map((a) => [a[2], a[3]]), [[1, '30.00'], [2, '30.00']]);
  });

  test('a carried deposit and its top-up: the older one is spent first; each adds up to its amount', () => {
    const oneBill: OpenDebit[] = [{ entryId: 'b1', billId: '1', dueDate: '2025-01-15', date: '2025-01-01', lines: [{ lineNo: null, open: d('400') }] }];
    const p = planRelease([deposit('200', '0', '2', '2025-03-01'), deposit('300', '0', '1', '2025-01-01')], oneBill);
    // 300 (older) then 100 of the 200 top-up to the bill's 400; 100 of the top-up refunded.
    assert.deepEqual(p.outcomes.map((o) => [o.depositId, ...outcome(o)]), [
      ['2', '0.00', '200.00', '100.00', '100.00'],
      ['1', '0.00', '300.00', '300.00', '0.00'],
    ]);
    for (const o of p.outcomes) assert.equal(o.unpaid.plus(o.applied).plus(o.refunded).toFixed(2), o.amount.toFixed(2));
  });
});
