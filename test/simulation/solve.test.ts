// The rate search and the rate's address, as pure functions, with answers worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Dec } from '../../src/rating/index.ts';
import { locateRate, solveRate, withRate } from '../../src/simulation/solve.ts';
import { waterService } from '../fixtures/tariffs.ts';

const cents = new Dec('0.01');
/** A revenue of 3 bills of 7.5 units each, rounded per bill to the cent, plus a fixed 12.34. */
const revenue = async (rate: Dec) => new Dec('12.34').plus(rate.times('7.5').toDecimalPlaces(2, Dec.ROUND_HALF_UP).times(3));

test('the search finds the nearest rate on the minor-unit grid, and says how many ratings it took', async () => {
  // 12.34 + 3 * round(7.5 r): 100 lies between r = 3.89 (29.175 -> 29.18 a bill: 99.88) and
  // 3.90 (29.25: 100.09), nearer the second.
  const cases: [string, string, string][] = [
    // target, rate, revenue
    ['100', '3.90', '100.09'],
    ['99.85', '3.89', '99.88'], // 3.88 gives 29.10 a bill: 99.64
    ['12.34', '0', '12.34'],
    ['12.57', '0.01', '12.58'], // 0.01 * 7.5 = 0.075 -> 0.08 per bill: 12.58 (0.01 off) beats 12.34 (0.23 off)
  ];
  for (const [target, rate, rev] of cases) {
    const s = await solveRate({ start: new Dec(1), step: cents, target: new Dec(target), revenue });
    assert.ok(s.ok, target);
    assert.equal(s.rate.toFixed(2), new Dec(rate).toFixed(2), `target ${target}`);
    assert.equal(s.revenue.toFixed(2), new Dec(rev).toFixed(2), `target ${target}`);
    // Within one step's revenue of the target.
    assert.ok(s.revenue.minus(target).abs().lte(new Dec('0.075').times(3).plus('0.03')));
  }
  const far = await solveRate({ start: new Dec(1), step: cents, target: new Dec('1000000'), revenue });
  assert.ok(far.ok);
  assert.equal(far.rate.toFixed(2), '44443.90');
  assert.ok(far.evaluations < 60, String(far.evaluations));
});

test('a target out of reach is said, not guessed', async () => {
  const below = await solveRate({ start: new Dec(1), step: cents, target: new Dec('5'), revenue });
  assert.equal(below.ok, false);
  assert.match(!below.ok ? below.reason : '', /even a rate of 0 gives a revenue of 12\.34, above the target 5/);
  const flat = await solveRate({ start: new Dec(1), step: cents, target: new Dec('50'), revenue: async () => new Dec(10) });
  assert.equal(flat.ok, false);
  assert.match(!flat.ok ? flat.reason : '', /does not move it enough/);
});

test('a rate is addressed by component, tier and parameter; the draft with a new value is a copy', () => {
  const s = waterService();
  const tariff = { values: s.values, meteredInputs: s.meteredInputs, components: s.components };
  const tier = locateRate(tariff, { componentCode: 'WATER', tierIndex: 2 }, 'data.solve');
  assert.ok(!Array.isArray(tier));
  assert.equal(tier.parameter, 'rate');
  assert.equal(tier.current.toFixed(), '90');
  const changed = withRate(tariff, tier, '99.50');
  assert.equal((changed.components![1] as any).tiers[2].rate, '99.50');
  assert.equal((tariff.components![1] as any).tiers[2].rate, '90');
  const flatOfTier = locateRate(tariff, { componentCode: 'WATER', tierIndex: 0, parameter: 'flat' }, 'data.solve');
  assert.ok(!Array.isArray(flatOfTier));
  assert.equal(flatOfTier.current.toFixed(), '0');
  // A reference to a value is read through it, and replaced only on that component.
  const vat = locateRate(tariff, { componentCode: 'VAT' }, 'data.solve');
  assert.ok(!Array.isArray(vat));
  assert.equal(vat.current.toFixed(), '16');
  assert.deepEqual(withRate(tariff, vat, '18').values, tariff.values);
  assert.deepEqual(locateRate(tariff, { componentCode: 'STANDING', tierIndex: 0 }, 'p'), [{ path: 'p.tierIndex', message: 'a flat component has no tiers' }]);
  assert.deepEqual(locateRate(tariff, { componentCode: 'SEWER', parameter: 'amount' }, 'p'), [{ path: 'p.parameter', message: 'a percentage component has no amount to solve (it has percentage)' }]);
});

test('the search answers what trying every rate answers, on revenues near linear, with kinks and flats, in few ratings where near linear', async () => {
  // A small generator of its own, so a failure is the same on every run.
  let seed = 13;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const bills = (n: number) => Array.from({ length: n }, () => ({ q: new Dec(Math.floor(random() * 60)), from: Math.floor(random() * 3) * Math.floor(random() * 150) }));
  let compared = 0;
  for (let i = 0; i < 60; i++) {
    // Each bill: a fixed part, plus q * the rate above `from` steps (a tier reached
    // later: a kink), rounded to the cent; some cases cap the rate's effect (a flat).
    const roster = bills(1 + Math.floor(random() * 8));
    const cap = random() < 0.3 ? Math.floor(random() * 1000) : Infinity;
    const fixed = new Dec(Math.floor(random() * 5000)).div(100);
    const revenue = async (rate: Dec) => {
      const k = Math.min(rate.div(cents).toNumber(), cap);
      return roster.reduce((s, b) => s.plus(b.q.times(cents.times(Math.max(0, k - b.from))).times('1.16').toDecimalPlaces(2, Dec.ROUND_HALF_UP)), fixed);
    };
    // Every rate from 0 up to 1200 steps: the last below the target and the first at it or above.
    const all: Dec[] = [];
    for (let k = 0; k <= 1200; k++) all.push(await revenue(cents.times(k)));
    const target = all[Math.floor(random() * 1100)]!.plus(new Dec(Math.floor(random() * 200)).div(100));
    const start = new Dec(Math.floor(random() * 3000)).div(100);
    const s = await solveRate({ start, step: cents, target, revenue });
    const firstAt = all.findIndex((r) => r.gte(target));
    if (all[0]!.gt(target) || firstAt < 0) continue; // out of reach: said, tested above
    const k = firstAt === 0 ? 0 : target.minus(all[firstAt - 1]!).lt(all[firstAt]!.minus(target)) ? firstAt - 1 : firstAt;
    assert.ok(s.ok, `case ${i}`);
    assert.equal(s.rate.toFixed(2), cents.times(k).toFixed(2), `case ${i}: target ${target.toFixed()}, start ${start.toFixed()}`);
    assert.equal(s.revenue.toFixed(2), all[k]!.toFixed(2), `case ${i}`);
    assert.ok(s.evaluations <= 40, `case ${i}: ${s.evaluations} ratings`);
    compared++;
  }
  assert.ok(compared >= 40, `${compared} cases compared`);
  // The bench's case, a tier rate solved revenue-neutral from 10% above (linear in the
  // rate, rounded per bill): a handful of ratings where halving took 15.
  const tier = async (rate: Dec) =>
    [5, 20, 45, 33, 12].reduce((s, used) => s.plus(new Dec(Math.max(0, Math.min(used, 30) - 10)).times(rate).times('1.1').times('1.16').toDecimalPlaces(2, Dec.ROUND_HALF_UP)), new Dec(1000));
  const neutral = await solveRate({ start: new Dec(77), step: cents, target: await tier(new Dec(70)), revenue: tier });
  assert.ok(neutral.ok);
  assert.equal(neutral.rate.toFixed(2), '70.00');
  assert.ok(neutral.evaluations <= 5, `${neutral.evaluations} ratings`);
});
