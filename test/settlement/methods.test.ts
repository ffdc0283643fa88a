// The settlement methods side by side, without a database: the same open bills settled by
// Chronology, Category Priority and Proportional, amounts worked out by hand; the
// pro rata rule (prorate) on its own; a property over random accounts for every method.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Dec } from '../../src/rating/money.ts';
import { CATEGORY_ORDER, SETTLEMENT_METHODS, debitOpen, prorate, settle, type OpenCredit, type OpenDebit, type SettlementMethod } from '../../src/settlement/core.ts';
import { debitLines } from '../../src/settlement/settleAccounts.ts';

const d = (x: string | number) => new Dec(x);
type L = [amount: string, category: string];
const bill = (entryId: string, dueDate: string, lines: L[], extra: Partial<OpenDebit> = {}): OpenDebit => ({
  entryId,
  billId: `b${entryId}`,
  dueDate,
  date: dueDate,
  lines: lines.map(([open, category], i) => ({ lineNo: i + 1, open: d(open), category })),
  ...extra,
});
const credit = (entryId: string, date: string, open: string, extra: Partial<OpenCredit> = {}): OpenCredit => ({ entryId, date, open: d(open), ...extra });
const plain = (r: ReturnType<typeof settle>) => ({
  allocations: r.allocations.map((a) => `${a.creditEntryId}->${a.debitEntryId}#${a.lineNo ?? '-'} ${a.amount.toFixed(2)} ${a.method}`),
  debits: r.debits.map((x) => `${x.entryId}:${x.lines.map((l) => `${l.lineNo ?? '-'}=${l.open.toFixed(2)}`).join(',')}`),
  credits: r.credits.map((c) => `${c.entryId}:${c.open.toFixed(2)}`),
});

// Two bills, each a charge line and its tax line (16%), and one payment of 100.00.
const january = bill('1', '2025-01-14', [
  ['100.00', 'charge'],
  ['16.00', 'tax'],
]);
const february = bill('2', '2025-02-14', [
  ['50.00', 'charge'],
  ['8.00', 'tax'],
]);
const payment = credit('9', '2025-02-20', '100.00');

describe('settlement methods over the same open bills', () => {
  const cases: { method: SettlementMethod; name: string; credits?: OpenCredit[]; debits?: OpenDebit[]; expect: ReturnType<typeof plain> }[] = [
    {
      method: 'Chronology',
      name: 'the oldest bill first, its lines in order: January charge 100.00; both taxes and February stay open',
      expect: { allocations: ['9->1#1 100.00 Chronology'], debits: ['1:2=16.00', '2:1=50.00,2=8.00'], credits: [] },
    },
    {
      method: 'Category Priority',
      name: 'tax before charges, oldest first in each: taxes 16.00 + 8.00, then January charge 76.00',
      expect: {
        allocations: ['9->1#2 16.00 Category Priority', '9->2#2 8.00 Category Priority', '9->1#1 76.00 Category Priority'],
        debits: ['1:1=24.00', '2:1=50.00'],
        credits: [],
      },
    },
    {
      // 100 x 116/174 = 66.666.. -> 66.66 (lost .00666), 100 x 58/174 = 33.333.. -> 33.33 (lost .00333):
      // the cent left goes to January (lost most): 66.67 + 33.33.
      // January's 66.67 over its lines: x 100/116 = 57.474.. -> 57.47 (lost .0041), x 16/116 = 9.195.. -> 9.19 (lost .0059): 57.47 + 9.20.
      // February's 33.33: x 50/58 = 28.732.. -> 28.73 (lost .0028), x 8/58 = 4.597.. -> 4.59 (lost .0072): 28.73 + 4.60.
      method: 'Proportional',
      name: 'pro rata to what each bill owes, then each bill share over its lines; cents left to the share that lost most',
      expect: {
        allocations: ['9->1#1 57.47 Proportional', '9->1#2 9.20 Proportional', '9->2#1 28.73 Proportional', '9->2#2 4.60 Proportional'],
        debits: ['1:1=42.53,2=6.80', '2:1=21.27,2=3.40'],
        credits: [],
      },
    },
    {
      method: 'Proportional',
      name: 'a payment of at least what is owed pays everything in full; the rest stays as credit',
      credits: [credit('9', '2025-02-20', '200.00')],
      expect: {
        allocations: ['9->1#1 100.00 Proportional', '9->1#2 16.00 Proportional', '9->2#1 50.00 Proportional', '9->2#2 8.00 Proportional'],
        debits: [],
        credits: ['9:26.00'],
      },
    },
    {
      method: 'Category Priority',
      name: 'a payment of at least what is owed pays everything; the rest stays as credit',
      credits: [credit('9', '2025-02-20', '180.00')],
      expect: {
        allocations: [
          '9->1#2 16.00 Category Priority',
          '9->2#2 8.00 Category Priority',
          '9->1#1 100.00 Category Priority',
          '9->2#1 50.00 Category Priority',
        ],
        debits: [],
        credits: ['9:6.00'],
      },
    },
    {
      // The first credit (older) goes first: 30 over 116 and 58 -> 20.00 and 10.00 (exact).
      // The second then over what is open: 96 and 48 (total 144): 14.40 -> 9.60 and 4.80.
      // Within January 20.00 over 100/16: 17.241.. -> 17.24 (lost .0014), 2.758.. -> 2.75 (lost .0086): 17.24 + 2.76;
      // February 10.00 over 50/8: 8.620.. -> 8.62 (lost .0007), 1.379.. -> 1.37 (lost .0093): 8.62 + 1.38.
      // Then January's 9.60 over 82.76/13.24 (96): 8.2760 -> 8.27 (lost .006), 1.3240 -> 1.32 (lost .004): 8.28 + 1.32;
      // February's 4.80 over 41.38/6.62 (48): 4.138 -> 4.13 (lost .008), 0.662 -> 0.66 (lost .002): 4.14 + 0.66.
      method: 'Proportional',
      name: 'several credits: the oldest is split first, the next over what is then open',
      credits: [credit('9', '2025-02-20', '14.40'), credit('8', '2025-02-18', '30.00')],
      expect: {
        allocations: [
          '8->1#1 17.24 Proportional',
          '8->1#2 2.76 Proportional',
          '8->2#1 8.62 Proportional',
          '8->2#2 1.38 Proportional',
          '9->1#1 8.28 Proportional',
          '9->1#2 1.32 Proportional',
          '9->2#1 4.14 Proportional',
          '9->2#2 0.66 Proportional',
        ],
        debits: ['1:1=74.48,2=11.92', '2:1=37.24,2=5.96'],
        credits: [],
      },
    },
    {
      method: 'Category Priority',
      name: "a deposit comes before tax and charges, even the newest (CATEGORY_ORDER's first category)",
      debits: [
        january,
        february,
        { entryId: '5', billId: null, dueDate: '2025-03-01', date: '2025-03-01', lines: [{ lineNo: null, open: d('40.00'), category: 'deposit' }] },
      ],
      expect: {
        allocations: ['9->5#- 40.00 Category Priority', '9->1#2 16.00 Category Priority', '9->2#2 8.00 Category Priority', '9->1#1 36.00 Category Priority'],
        debits: ['1:1=64.00', '2:1=50.00'],
        credits: [],
      },
    },
    {
      method: 'Category Priority',
      name: 'a credit note tied to a bill pays that bill first (in its line order), then the rest by the method',
      credits: [credit('9', '2025-02-20', '70.00', { billId: 'b2' })],
      expect: {
        allocations: ['9->2#1 50.00 Bill', '9->2#2 8.00 Bill', '9->1#2 12.00 Category Priority'],
        debits: ['1:1=100.00,2=4.00'],
        credits: [],
      },
    },
    {
      method: 'Proportional',
      name: 'a credit note tied to a bill pays that bill first, then the rest pro rata over what is left',
      credits: [credit('9', '2025-02-20', '70.00', { billId: 'b2' })],
      // 12.00 left over January alone: 100/116 -> 10.344.. -> 10.34 (lost .0045), 16/116 -> 1.655.. -> 1.65 (lost .0055): 10.34 + 1.66.
      expect: {
        allocations: ['9->2#1 50.00 Bill', '9->2#2 8.00 Bill', '9->1#1 10.34 Proportional', '9->1#2 1.66 Proportional'],
        debits: ['1:1=89.66,2=14.34'],
        credits: [],
      },
    },
  ];
  for (const c of cases) {
    test(`${c.method}: ${c.name}`, () => {
      const debits = c.debits ?? [february, january];
      const before = JSON.stringify(debits);
      assert.deepEqual(plain(settle({ debits, credits: c.credits ?? [payment], method: c.method, minorUnits: 2 })), c.expect);
      assert.equal(JSON.stringify(debits), before, 'the input is not changed');
    });
  }

  test('an unknown method is refused', () => {
    assert.throws(() => settle({ debits: [january], credits: [payment], method: 'Random' as SettlementMethod }), /unknown settlement method/);
  });

  test('the category order is one list: deposit, tax, charge', () => {
    assert.deepEqual(CATEGORY_ORDER, ['deposit', 'tax', 'charge']);
    assert.deepEqual([...SETTLEMENT_METHODS], ['Chronology', 'Category Priority', 'Proportional']);
  });

  test('a currency without minor units splits in whole units', () => {
    const r = settle({ debits: [bill('1', '2025-01-14', [['100', 'charge']]), bill('2', '2025-02-14', [['200', 'charge']])], credits: [credit('9', '2025-02-20', '100')], method: 'Proportional', minorUnits: 0 });
    // 100/300 x 100 = 33.3 -> 33, 200/300 x 100 = 66.6 -> 66 (lost more): 33 + 67.
    assert.deepEqual(plain(r).allocations, ['9->1#1 33.00 Proportional', '9->2#1 67.00 Proportional']);
  });
});

describe('prorate: the pro rata rule', () => {
  const show = (xs: Dec[]) => xs.map((x) => x.toFixed(2)).join(' ');
  const cases: [amount: string, owed: string[], expect: string][] = [
    ['10.00', ['3', '3', '3'], '3.00 3.00 3.00'],
    ['9.00', ['3', '3', '3'], '3.00 3.00 3.00'],
    // 10/3 = 3.333.. each, all lose the same: the cent left goes to the first.
    ['5.00', ['3', '3', '3'], '1.67 1.67 1.66'],
    ['0.01', ['1', '1', '1'], '0.01 0.00 0.00'],
    ['0.02', ['1', '1', '1'], '0.01 0.01 0.00'],
    // 1 x 1/6 = 0.1666 (lost .0066), x 2/6 = 0.3333 (lost .0033), x 3/6 = 0.50: the cent to the first.
    ['1.00', ['1', '2', '3'], '0.17 0.33 0.50'],
    // 1 x 0.01/100.01 rounds down to 0.00 and loses .0001; the other 0.9999 -> 0.99 loses .0099: the cent there.
    ['1.00', ['0.01', '100'], '0.00 1.00'],
    ['0.00', ['5', '5'], '0.00 0.00'],
  ];
  for (const [amount, owed, expect] of cases) {
    test(`${amount} over ${owed.join(', ')}: ${expect}`, () => {
      const shares = prorate(d(amount), owed.map(d), d('0.01'));
      assert.equal(show(shares), expect);
      assert.ok(shares.reduce((s, x) => s.plus(x), d(0)).eq(Dec.min(d(amount), owed.map(d).reduce((s, x) => s.plus(x), d(0)))));
    });
  }

  test('always the payment exactly, never past what an item owes', () => {
    const cents = fc.integer({ min: 1, max: 10_000_000 }).map((c) => new Dec(c).div(100));
    fc.assert(
      fc.property(fc.array(cents, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 100_000_000 }), (owed, paid) => {
        const total = owed.reduce((s, x) => s.plus(x), d(0));
        const amount = Dec.min(new Dec(paid).div(100), total);
        const shares = prorate(amount, owed, d('0.01'));
        assert.ok(shares.reduce((s, x) => s.plus(x), d(0)).eq(amount), 'the shares add up to the amount');
        shares.forEach((s, i) => {
          assert.ok(s.gte(0) && s.lte(owed[i]!), 'a share within what its item owes');
          assert.ok(s.mod('0.01').isZero(), 'in whole cents');
          // Each share is within one cent of its exact pro rata part.
          assert.ok(s.minus(amount.times(owed[i]!).div(total)).abs().lt('0.01'), 'within a cent of pro rata');
        });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a bill settled as one item takes its most urgent category', () => {
  test('a bill with a discount line and tax is one item of category tax', () => {
    const lines = [
      { lineNo: 1, amount: d(100), category: 'charge' },
      { lineNo: 2, amount: d(-10), category: 'charge' },
      { lineNo: 3, amount: d(14.4), category: 'tax' },
    ];
    assert.deepEqual(
      debitLines(d('104.4'), d('104.4'), lines, undefined).map((l) => `${l.lineNo ?? '-'}=${l.open.toFixed()} ${l.category}`),
      ['-=104.4 tax'],
    );
  });
  test('lines keep their own categories', () => {
    const lines = [
      { lineNo: 1, amount: d(100), category: 'charge' },
      { lineNo: 2, amount: d(16), category: 'tax' },
    ];
    assert.deepEqual(
      debitLines(d(116), d(116), lines, undefined).map((l) => `${l.lineNo}=${l.open.toFixed()} ${l.category}`),
      ['1=100 charge', '2=16 tax'],
    );
  });
});

describe('every method: properties', () => {
  const cents = fc.integer({ min: 0, max: 100_000 }).map((c) => new Dec(c).div(100));
  const date = fc.integer({ min: 0, max: 400 }).map((n) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10));
  const category = fc.constantFrom('charge', 'tax', 'deposit');
  const account = fc
    .record({
      debits: fc.array(fc.record({ due: date, date, lines: fc.array(fc.tuple(cents, category), { minLength: 1, maxLength: 5 }) }), { maxLength: 6 }),
      credits: fc.array(fc.record({ date, open: cents, tied: fc.option(fc.nat(5), { nil: undefined }) }), { maxLength: 5 }),
      method: fc.constantFrom(...SETTLEMENT_METHODS),
    })
    .map(({ debits, credits, method }) => ({
      method,
      debits: debits.map(
        (x, i): OpenDebit => ({
          entryId: String(i + 1),
          billId: `b${i + 1}`,
          dueDate: x.due,
          date: x.date,
          lines: x.lines.map(([open, category], j) => ({ lineNo: j + 1, open, category })),
        }),
      ),
      credits: credits.map((x, i): OpenCredit => ({ entryId: String(100 + i), date: x.date, open: x.open, billId: x.tied === undefined ? null : `b${x.tied + 1}` })),
    }));

  test('no line paid past its amount, no credit spent twice, nothing lost, one side ends empty, whole cents', () => {
    fc.assert(
      fc.property(account, ({ debits, credits, method }) => {
        const r = settle({ debits, credits, method, minorUnits: 2 });
        const lineOpen = new Map<string, Dec>(debits.flatMap((x) => x.lines.map((l) => [`${x.entryId}#${l.lineNo}`, l.open] as const)));
        const creditOpen = new Map(credits.map((c) => [c.entryId, c.open]));
        for (const a of r.allocations) {
          assert.ok(a.amount.gt(0));
          assert.ok(a.amount.mod('0.01').isZero(), 'an allocation in whole cents');
          assert.ok(a.method === method || a.method === 'Bill');
          const key = `${a.debitEntryId}#${a.lineNo}`;
          lineOpen.set(key, lineOpen.get(key)!.minus(a.amount));
          creditOpen.set(a.creditEntryId, creditOpen.get(a.creditEntryId)!.minus(a.amount));
        }
        for (const v of lineOpen.values()) assert.ok(v.gte(0), 'a line paid past its amount');
        for (const v of creditOpen.values()) assert.ok(v.gte(0), 'a credit spent twice');
        const owed = (xs: OpenDebit[]) => xs.reduce((s, x) => s.plus(debitOpen(x)), new Dec(0));
        const held = (xs: OpenCredit[]) => xs.reduce((s, x) => s.plus(x.open), new Dec(0));
        assert.ok(owed(debits).minus(held(credits)).eq(owed(r.debits).minus(held(r.credits))), 'the balance is unchanged');
        assert.ok(r.debits.length === 0 || r.credits.length === 0, 'credit left while a bill is open');
        if (method === 'Category Priority') {
          // Every line paid by the method ranks no lower than every line left open... at the moment it was paid:
          // so a tax line left open means no charge line was paid by the method.
          const left = new Set(r.debits.flatMap((x) => x.lines.map((l) => l.category)));
          const paid = r.allocations.filter((a) => a.method === method).map((a) => debits.find((x) => x.entryId === a.debitEntryId)!.lines.find((l) => l.lineNo === a.lineNo)!.category);
          const rank = (c: string | undefined) => CATEGORY_ORDER.indexOf(c!);
          for (const p of paid) for (const l of left) assert.ok(rank(p) <= rank(l), `${p} paid while ${l} is open`);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
