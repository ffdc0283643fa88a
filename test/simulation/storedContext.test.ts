// A simulation keeps its term's rating context as JSON; one stored before the context kept
// `inForce` (the versions in force, 2026-11-27) has none. A reviewer found draftContext then
// threw, and get-simulation-results answered 500 for every earlier simulation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { draftContext } from '../../src/simulation/compare.ts';
import { inForceOf, rateRoster, type RunContext } from '../../src/billRun/rateRoster.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const tariff: Tariff = { unmeteredInputs: [{ code: 'seats', label: 'Seats', default: 1 }], components: [{ code: 'seats', name: 'Seats', model: 'perUnit', input: 'seats', rate: '10', prorate: true }] };
// As stored before: no inForce.
const stored = { termId: '1', appCode: 1, start: '2026-11-01', end: '2026-11-30', dueDate: '2026-12-14', watermark: null, tariff, meteredCodes: [], minorUnits: 2, rounding: 'halfUp' } as RunContext;

test('a context stored without inForce rates by its one tariff, its draft too, also a bill whose inputs change inside it', async () => {
  assert.deepEqual(inForceOf(stored), [{ version: 1, from: '2026-11-01', tariff }]);
  const draft: Tariff = { ...tariff, components: [{ code: 'seats', name: 'Seats', model: 'perUnit', input: 'seats', rate: '20', prorate: true }] };
  const ctx = draftContext(stored, draft);
  const input = { subscriptionId: '1', accountId: '1', startDate: '2026-01-01', endDate: null, unmetered: { seats: 5 }, levels: [{ from: '2026-11-16', unmetered: { seats: 10 } }], balance: '0', readings: {} };
  const { rated, failed } = await rateRoster(ctx, [input]);
  assert.deepEqual(failed, []);
  // 5 x 20 x 15/30 = 50.00; 10 x 20 x 15/30 = 100.00
  assert.equal(rated[0]!.bill.total, '150.00');
  assert.equal((await rateRoster(stored, [input])).rated[0]!.bill.total, '75.00');
});
