// The account bill of Post Account terms: sums of its groups' rounded amounts, the
// balance once, the period from the earliest start to the latest end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountBill, type RatedBill } from '../../src/rating/index.ts';
import { RatingError } from '../../src/rating/errors.ts';

const bill = (charges: string, tax: string, total: string, start: string, end: string, lines: number, estimated = false) =>
  ({
    lines: Array.from({ length: lines }, (_, i) => ({ componentCode: `C${i}` })),
    charges,
    tax,
    total,
    balanceBroughtForward: '40.00',
    totalDue: 'ignored',
    activePeriod: { start, end },
    estimated,
  }) as unknown as RatedBill;

test('amounts are the groups\' sums, the balance counted once', () => {
  const a = accountBill(
    [
      { subscriptionId: '7', bill: bill('1855.00', '296.80', '2151.80', '2026-11-01', '2026-11-30', 4) },
      { subscriptionId: '9', bill: bill('425.00', '68.00', '493.00', '2026-11-16', '2026-11-30', 4, true) },
      { subscriptionId: '12', bill: bill('0.10', '0.02', '0.12', '2026-11-01', '2026-11-20', 2) },
    ],
    '40.00',
    2,
  );
  assert.deepEqual(
    { charges: a.charges, tax: a.tax, total: a.total, balanceBroughtForward: a.balanceBroughtForward, totalDue: a.totalDue, estimated: a.estimated, activePeriod: a.activePeriod },
    { charges: '2280.10', tax: '364.82', total: '2644.92', balanceBroughtForward: '40.00', totalDue: '2684.92', estimated: true, activePeriod: { start: '2026-11-01', end: '2026-11-30' } },
  );
  assert.equal(a.lines.length, 10);
  assert.deepEqual(a.groups.map((g) => [g.subscriptionId, g.lineCount, g.total, g.periodStart]), [
    ['7', 4, '2151.80', '2026-11-01'],
    ['9', 4, '493.00', '2026-11-16'],
    ['12', 2, '0.12', '2026-11-01'],
  ]);
});

test('a negative balance (credit) and no decimals', () => {
  const a = accountBill([{ subscriptionId: '1', bill: bill('100', '16', '116', '2026-11-01', '2026-11-30', 1) }], '-200', 0);
  assert.deepEqual([a.total, a.balanceBroughtForward, a.totalDue], ['116', '-200', '-84']);
});

test('an account bill needs a subscription', () => {
  assert.throws(() => accountBill([], '0', 2));
});

// A reviewer's case: each subscription's bill within 15 digits, their sum past it.
test("an account bill past 15 digits is refused, though each subscription's is within them", () => {
  const near = bill('900000000000000.00', '0.00', '900000000000000.00', '2026-11-01', '2026-11-30', 1);
  assert.throws(
    () => accountBill([{ subscriptionId: '1', bill: near }, { subscriptionId: '2', bill: near }], '0', 2),
    (e: unknown) => e instanceof RatingError && e.code === 'AMOUNT_TOO_LARGE' && /the total 1800000000000000\.00/.test(e.message),
  );
});
