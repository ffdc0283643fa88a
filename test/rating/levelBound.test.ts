// A component's quantity held against a level of the subscription (levelBound.ts): a billing
// demand of no less than 60% of the contract demand (`floor`), and the demand above the
// notified maximum demand at a penalty rate (`excessOver`), as business electricity tariffs
// publish them. Amounts worked out by hand in the comments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill, type RateBillInput } from '../../src/rating/rateBill.ts';
import { checkTariff } from '../../src/rating/checkTariff.ts';
import type { Component, Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';
import { explainLine } from '../../src/bills/explain.ts';

const NOVEMBER = { start: '2026-11-01', end: '2026-11-30' }; // 30 days

const tariff = (demandRate = '12.50', extra: Component[] = []): Tariff => ({
  meteredInputs: [{ code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
  unmeteredInputs: [
    { code: 'contract', label: 'Contract demand (kW)', default: 100 },
    { code: 'nmd', label: 'Notified maximum demand (kW)' },
  ],
  components: [
    // Billing demand: the month's highest, but not less than 60% of the contract demand.
    { code: 'demand', name: 'Demand charge', model: 'perUnit', input: 'demand', rate: demandRate, floor: { input: 'contract', percentage: '60' } },
    // The demand above the notified maximum demand, at a penalty rate.
    { code: 'excess', name: 'Excess demand', model: 'perUnit', input: 'demand', rate: '25.00', excessOver: { input: 'nmd' } },
    ...extra,
  ],
});

const bill = (demand: string, over: Partial<RateBillInput> = {}, unmetered: Record<string, number> = { contract: 100, nmd: 80 }) =>
  rateBill({
    tariff: tariff(),
    term: NOVEMBER,
    subscription: { startDate: '2020-01-01', unmetered },
    readings: { demand: { previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: demand } } },
    minorUnits: 2,
    ...over,
  });
const line = (b: ReturnType<typeof rateBill>, code: string) => b.lines.filter((l) => l.componentCode === code);

describe('a quantity held against a level of the subscription', () => {
  const cases: [string, string, Record<string, number>, [string, string], [string, string]][] = [
    // [demand, the levels, [billing demand, demand line], [excess, excess line]]
    // 40.0 kW < 60% of 100 = 60: billed 60 x 12.50 = 750.00; not above 80: 0
    ['a quiet month: the floor', '40.0', { contract: 100, nmd: 80 }, ['60.0', '750.00'], ['0.0', '0.00']],
    // 75.0 >= 60: 75.0 x 12.50 = 937.50; not above 80
    ['above the floor, under the NMD', '75.0', { contract: 100, nmd: 80 }, ['75.0', '937.50'], ['0.0', '0.00']],
    // 95.0: 95.0 x 12.50 = 1187.50; above 80 by 15.0: 15 x 25.00 = 375.00
    ['above the NMD', '95.0', { contract: 100, nmd: 80 }, ['95.0', '1187.50'], ['15.0', '375.00']],
    // exactly 80.0: no excess
    ['on the NMD', '80.0', { contract: 100, nmd: 80 }, ['80.0', '1000.00'], ['0.0', '0.00']],
    // a customer of its own levels: contract 250, 60% = 150; NMD 200: 120.0 -> 150 x 12.50 = 1875.00; no excess
    ['another customer, its own contract', '120.0', { contract: 250, nmd: 200 }, ['150.0', '1875.00'], ['0.0', '0.00']],
  ];
  for (const [what, demand, levels, [billed, amount], [excess, excessAmount]] of cases) {
    test(`${what}: ${demand} kW`, () => {
      const b = bill(demand, {}, levels);
      const [d] = line(b, 'demand');
      const [x] = line(b, 'excess');
      assert.deepEqual([d!.quantity, d!.amount], [billed, amount]);
      assert.deepEqual([x!.quantity, x!.amount], [excess, excessAmount]);
    });
  }

  test('the trace and the words say the level, the threshold and what was priced', () => {
    const b = bill('40.0');
    const [d] = line(b, 'demand');
    assert.deepEqual(d!.trace.bound, { kind: 'floor', input: 'contract', level: '100', percentage: '60', threshold: '60', of: '40', quantity: '60' });
    assert.match(explainLine(d!), /at least 60% of contract 100 = 60 kW: 60 kW priced, not 40; 60 x 12\.5; amount 750\.00\.$/);
    const [x] = line(bill('95.0'), 'excess');
    assert.match(explainLine(x!), /the part above 100% of nmd 80 = 80 kW: 95 - 80 = 15 kW priced; 15 x 25; amount 375\.00\.$/);
    assert.match(explainLine(line(b, 'excess')[0]!), /the part above 100% of nmd 80 = 80 kW: 40 kW is not above it, 0 priced; /);
  });

  test('a level with no value and no default is a missing input, named', () => {
    assert.throws(() => bill('40.0', {}, { contract: 100 }), (e: any) => e.code === 'MISSING_INPUT' && e.details[0].path === 'subscription.unmetered.nmd');
  });

  test('across a version change the floor is shared by days as the demand is', () => {
    // 40.0 kW over 15 + 15 days: each segment 20.0 of the demand; the floor 60 shared: 30 each.
    // Version 1 at 12.50: 30 x 12.50 = 375.00; version 2 at 14.00: 30 x 14.00 = 420.00 (= 60 kW billed in all)
    const versions: TariffVersion[] = [
      { version: 1, from: '2026-11-01', tariff: tariff() },
      { version: 2, from: '2026-11-16', tariff: tariff('14.00') },
    ];
    const b = bill('40.0', { versions });
    assert.deepEqual(
      line(b, 'demand').map((l) => [l.trace.segment?.version, l.quantity, l.amount, l.trace.bound?.threshold]),
      [
        [1, '30.0', '375.00', '30'],
        [2, '30.0', '420.00', '30'],
      ],
    );
    // 95.0 kW: each half 47.5, above its half of 80 (40) by 7.5: 7.5 x 25.00 = 187.50 twice (15 kW in all)
    const high = bill('95.0', { versions });
    assert.deepEqual(line(high, 'excess').map((l) => [l.quantity, l.amount]), [
      ['7.5', '187.50'],
      ['7.5', '187.50'],
    ]);
  });

  test('a demand priced per kW per day holds the whole demand to the whole floor in each segment', () => {
    // perUnitPerDay at 0.45 on the floor: 40.0 kW held to 60: 60 x 15 days x 0.45 = 405.00 in each half
    const perDay: Component = { code: 'network', name: 'Network demand', model: 'perUnitPerDay', input: 'demand', rate: '0.45', floor: { input: 'contract', percentage: '60' } };
    const versions: TariffVersion[] = [
      { version: 1, from: '2026-11-01', tariff: tariff('12.50', [perDay]) },
      { version: 2, from: '2026-11-16', tariff: tariff('14.00', [perDay]) },
    ];
    const b = bill('40.0', { tariff: tariff('12.50', [perDay]), versions });
    assert.deepEqual(line(b, 'network').map((l) => [l.quantity, l.amount]), [
      ['60.0', '405.00'],
      ['60.0', '405.00'],
    ]);
  });

  test('a level the subscription changes inside the term holds each segment to its own', () => {
    // contract 100 to 15/11, 200 from 16/11 (no version change): 40.0 kW, 20.0 a half;
    // floors 60 and 120 shared by days: 30 and 60; 30 x 12.50 + 60 x 12.50 = 375.00 + 750.00
    const b = bill('40.0', {
      versions: [{ version: 1, from: '2026-11-01', tariff: tariff() }],
      subscription: { startDate: '2020-01-01', unmetered: { contract: 100, nmd: 80 }, levels: [{ from: '2026-11-16', unmetered: { contract: 200, nmd: 80 } }] },
    });
    assert.deepEqual(line(b, 'demand').map((l) => [l.quantity, l.amount]), [
      ['30.0', '375.00'],
      ['60.0', '750.00'],
    ]);
  });

  test('saved only against an unmetered input, once, with a positive percentage', () => {
    const on = (component: Record<string, unknown>) =>
      checkTariff({ ...tariff(), components: [{ code: 'x', name: 'X', model: 'perUnit', input: 'demand', rate: '1', ...component } as never] }).map((i) => [i.path, i.message]);
    assert.deepEqual(on({ floor: { input: 'contract' } }), []);
    assert.deepEqual(on({ floor: { input: 'demand' } }), [['service.components[0].floor.input', "'demand' is metered: a floor is a level of the subscription, an unmetered input"]]);
    assert.deepEqual(on({ excessOver: { input: 'nothing' } }), [['service.components[0].excessOver.input', "no unmetered input with code 'nothing'"]]);
    assert.deepEqual(on({ floor: { input: 'contract', percentage: '0' } }), [['service.components[0].floor.percentage', '0 must be above zero']]);
    assert.deepEqual(on({ floor: { input: 'contract' }, excessOver: { input: 'nmd' } }), [['service.components[0].excessOver', 'a component is held to a floor or priced on an excess, not both']]);
  });
});

describe('a demand ratchet: at least a share of the highest demand of the months before', () => {
  // Demand charge 12.50 a kW, billing demand not less than 75% of the highest of the last 11 months.
  const ratcheted = (rate = '12.50', floor = false): Tariff => ({
    meteredInputs: [{ code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
    unmeteredInputs: [{ code: 'contract', label: 'Contract demand (kW)', default: 100 }],
    components: [
      { code: 'demand', name: 'Demand charge', model: 'perUnit', input: 'demand', rate, ratchet: { percentage: '75', months: 11 }, ...(floor ? { floor: { input: 'contract', percentage: '50' } } : {}) },
    ],
  });
  const history = (value: string | null, date = '2026-07-31') => (value === null ? { '11': null } : { '11': { date, value } });
  const rated = (demand: string, hist: Record<string, { date: string; value: string } | null> | undefined, over: Partial<RateBillInput> = {}) =>
    rateBill({
      tariff: ratcheted(),
      term: NOVEMBER,
      subscription: { startDate: '2020-01-01' },
      readings: { demand: { previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: demand }, ...(hist === undefined ? {} : { ratchet: hist }) } },
      minorUnits: 2,
      ...over,
    });

  const cases: [string, string, string | null, string, string][] = [
    // 40.0 kW after a summer peak of 80.0: 75% of 80 = 60: 60 x 12.50 = 750.00
    ['a quiet month after a summer peak', '40.0', '80.0', '60.0', '750.00'],
    // 70.0 kW above 60: 70 x 12.50 = 875.00
    ['a month above the ratchet', '70.0', '80.0', '70.0', '875.00'],
    // no demand read in the 11 months (a new connection): as read, 40 x 12.50 = 500.00
    ['no history', '40.0', null, '40.0', '500.00'],
    // 75% of 53.3 = 39.975: 40.0 is above it
    ['just above', '40.0', '53.3', '40.0', '500.00'],
    // 75% of 53.4 = 40.05: 40.05 x 12.50 = 500.625 -> 500.63
    ['a threshold with more decimals than the meter', '40.0', '53.4', '40.05', '500.63'],
  ];
  for (const [what, demand, highest, billed, amount] of cases) {
    test(`${what}: ${demand} kW, the highest before ${highest ?? 'none'}`, () => {
      const [l] = rated(demand, history(highest)).lines;
      assert.deepEqual([l!.quantity, l!.amount], [billed, amount]);
    });
  }

  test('the trace and the words say the months, the reading and the threshold', () => {
    const [l] = rated('40.0', history('80.0')).lines;
    assert.deepEqual(l!.trace.ratchet, { months: 11, percentage: '75', highest: { date: '2026-07-31', value: '80' }, threshold: '60', of: '40', quantity: '60' });
    assert.match(explainLine(l!), /at least 75% of the highest demand of the 11 month\(s\) before, 80 on 31\/07\/2026, = 60 kW: 60 kW priced, not 40; 60 x 12\.5; amount 750\.00\.$/);
  });

  test('with a floor, the greater of both', () => {
    const both = (demand: string, highest: string) =>
      rateBill({
        tariff: ratcheted('12.50', true),
        term: NOVEMBER,
        subscription: { startDate: '2020-01-01', unmetered: { contract: 100 } },
        readings: { demand: { previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: demand }, ratchet: history(highest) } },
        minorUnits: 2,
      }).lines[0]!;
    // ratchet 75% of 60 = 45, floor 50% of 100 = 50: 50 x 12.50 = 625.00
    assert.deepEqual([both('40.0', '60.0').quantity, both('40.0', '60.0').amount], ['50.0', '625.00']);
    // ratchet 75% of 80 = 60 above the floor's 50: 750.00
    assert.deepEqual([both('40.0', '80.0').quantity, both('40.0', '80.0').amount], ['60.0', '750.00']);
  });

  test('held up by an estimated demand, the bill is estimated; above it, it is not', () => {
    const estimated = { '11': { date: '2026-07-31', value: '80.0', estimated: true as const } };
    assert.equal(rated('40.0', estimated).estimated, true, '60 kVA billed on an estimate of July');
    assert.equal(rated('70.0', estimated).estimated, false, 'the demand read is billed: the estimate held nothing');
    assert.equal(rated('40.0', history('80.0')).estimated, false);
  });

  test('a history not given is a missing reading, never billed as none', () => {
    assert.throws(() => rated('40.0', undefined), (e: any) => e.code === 'MISSING_READING' && e.details[0].path === 'readings.demand.ratchet.11');
  });

  test('across a version change the threshold is shared by days as the demand is', () => {
    // 40.0 kW, threshold 60 over 15 + 15 days: 30 at 12.50 = 375.00 and 30 at 14.00 = 420.00
    const versions: TariffVersion[] = [
      { version: 1, from: '2026-11-01', tariff: ratcheted() },
      { version: 2, from: '2026-11-16', tariff: ratcheted('14.00') },
    ];
    const b = rated('40.0', history('80.0'), { versions });
    assert.deepEqual(b.lines.map((l) => [l.quantity, l.amount, l.trace.ratchet?.threshold]), [
      ['30.0', '375.00', '30'],
      ['30.0', '420.00', '30'],
    ]);
  });

  test('saved only on a demand register, not with an excess', () => {
    const on = (input: string, extra: Record<string, unknown> = {}) =>
      checkTariff({ ...ratcheted(), meteredInputs: [...ratcheted().meteredInputs!, { code: 'energy', label: 'Energy', unit: 'kWh', decimals: 0 }], components: [{ code: 'x', name: 'X', model: 'perUnit', input, rate: '1', ratchet: { percentage: '75', months: 11 }, ...extra } as never] }).map((i) => [i.path, i.message]);
    assert.deepEqual(on('demand'), []);
    assert.deepEqual(on('energy'), [['service.components[0].ratchet', "a ratchet looks back over a demand register's readings; 'energy' is a cumulative meter"]]);
    assert.deepEqual(on('contract'), [['service.components[0].ratchet', "a ratchet looks back over a demand register's readings; 'contract' is an unmetered input"]]);
    assert.deepEqual(on('demand', { excessOver: { input: 'contract' } }), [['service.components[0].ratchet', 'a ratchet holds a quantity up, not with an excessOver']]);
  });
});
