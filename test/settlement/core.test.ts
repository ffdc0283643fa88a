// The pure settlement core, without a database: tables of cases, then a property over
// thousands of random accounts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Dec } from '../../src/rating/money.ts';
import { compareIds, debitOpen, settle, type OpenCredit, type OpenDebit } from '../../src/settlement/core.ts';
import { debitLines } from '../../src/settlement/settleAccounts.ts';

const d = (x: string | number) => new Dec(x);
const bill = (entryId: string, dueDate: string, lines: (string | number)[], extra: Partial<OpenDebit> = {}): OpenDebit => ({
  entryId,
  billId: `b${entryId}`,
  dueDate,
  date: dueDate,
  lines: lines.map((l, i) => ({ lineNo: i + 1, open: d(l) })),
  ...extra,
});
const credit = (entryId: string, date: string, open: string | number, extra: Partial<OpenCredit> = {}): OpenCredit => ({ entryId, date, open: d(open), ...extra });
const plain = (r: ReturnType<typeof settle>) => ({
  allocations: r.allocations.map((a) => `${a.creditEntryId}->${a.debitEntryId}#${a.lineNo ?? '-'} ${a.amount.toFixed()} ${a.method}`),
  debits: r.debits.map((x) => `${x.entryId}:${x.lines.map((l) => `${l.lineNo ?? '-'}=${l.open.toFixed()}`).join(',')}`),
  credits: r.credits.map((c) => `${c.entryId}:${c.open.toFixed()}`),
});

describe('settlement core: Chronology', () => {
  const cases: { name: string; debits: OpenDebit[]; credits: OpenCredit[]; expect: ReturnType<typeof plain> }[] = [
    {
      name: 'a partial payment pays the lines of a bill in order',
      debits: [bill('1', '2025-01-14', ['100.00', '50.00', '20.00'])],
      credits: [credit('9', '2025-01-20', '120.00')],
      expect: {
        allocations: ['9->1#1 100 Chronology', '9->1#2 20 Chronology'],
        debits: ['1:2=30,3=20'],
        credits: [],
      },
    },
    {
      name: 'an exact payment closes the bill',
      debits: [bill('1', '2025-01-14', ['100.00', '50.00'])],
      credits: [credit('9', '2025-01-20', '150')],
      expect: { allocations: ['9->1#1 100 Chronology', '9->1#2 50 Chronology'], debits: [], credits: [] },
    },
    {
      name: 'an overpayment leaves the rest as credit',
      debits: [bill('1', '2025-01-14', ['100.00', '70.00'])],
      credits: [credit('9', '2025-01-20', '200.00')],
      expect: { allocations: ['9->1#1 100 Chronology', '9->1#2 70 Chronology'], debits: [], credits: ['9:30'] },
    },
    {
      name: 'several bills: the oldest due first, whatever order they come in',
      debits: [bill('2', '2025-02-14', ['80']), bill('1', '2025-01-14', ['100']), bill('3', '2025-03-14', ['60'])],
      credits: [credit('9', '2025-03-01', '150')],
      expect: { allocations: ['9->1#1 100 Chronology', '9->2#1 50 Chronology'], debits: ['2:1=30', '3:1=60'], credits: [] },
    },
    {
      name: 'equal due dates: the older bill, then the entry posted first (ids compared as numbers)',
      debits: [
        bill('10', '2025-01-14', ['5'], { date: '2024-12-31' }),
        bill('9', '2025-01-14', ['5'], { date: '2024-12-31' }),
        bill('11', '2025-01-14', ['5'], { date: '2024-12-01' }),
      ],
      credits: [credit('20', '2025-01-20', '12')],
      expect: { allocations: ['20->11#1 5 Chronology', '20->9#1 5 Chronology', '20->10#1 2 Chronology'], debits: ['10:1=3'], credits: [] },
    },
    {
      name: 'a payment before any bill stays as credit',
      debits: [],
      credits: [credit('9', '2025-01-01', '75.50')],
      expect: { allocations: [], debits: [], credits: ['9:75.5'] },
    },
    {
      name: 'credit waiting settles the bill posted after it',
      debits: [bill('12', '2025-02-14', ['40', '60'])],
      credits: [credit('9', '2025-01-01', '75.50')],
      expect: { allocations: ['9->12#1 40 Chronology', '9->12#2 35.5 Chronology'], debits: ['12:2=24.5'], credits: [] },
    },
    {
      name: 'several credits are spent oldest first',
      debits: [bill('1', '2025-01-14', ['100'])],
      credits: [credit('8', '2025-01-10', '30'), credit('7', '2025-01-05', '50'), credit('6', '2025-01-10', '40')],
      expect: {
        allocations: ['7->1#1 50 Chronology', '6->1#1 40 Chronology', '8->1#1 10 Chronology'],
        debits: [],
        credits: ['8:20'],
      },
    },
    {
      name: 'a credit note tied to a bill pays that bill first',
      debits: [bill('1', '2025-01-14', ['100']), bill('2', '2025-02-14', ['50'])],
      credits: [credit('9', '2025-02-20', '70', { billId: 'b2' })],
      expect: { allocations: ['9->2#1 50 Bill', '9->1#1 20 Chronology'], debits: ['1:1=80'], credits: [] },
    },
    {
      name: 'a payment reversal is paired with its payment before any method runs',
      debits: [
        bill('1', '2025-01-14', ['100']),
        { entryId: '15', billId: null, dueDate: '2025-03-01', date: '2025-03-01', lines: [{ lineNo: null, open: d(100) }], reversesEntryId: '9' },
      ],
      credits: [credit('9', '2025-01-20', '100'), credit('10', '2025-02-01', '30')],
      expect: { allocations: ['9->15#- 100 Reversal', '10->1#1 30 Chronology'], debits: ['1:1=70'], credits: [] },
    },
    {
      name: 'a bill reversal (a credit) takes back its own bill first',
      debits: [bill('1', '2025-01-14', ['100']), bill('2', '2025-02-14', ['60', '40'])],
      credits: [credit('16', '2025-03-01', '100', { reversesEntryId: '2' })],
      expect: { allocations: ['16->2#1 60 Reversal', '16->2#2 40 Reversal'], debits: ['1:1=100'], credits: [] },
    },
    {
      name: 'lines already paid (zero open) are skipped',
      debits: [bill('1', '2025-01-14', ['0', '10'])],
      credits: [credit('9', '2025-01-20', '4')],
      expect: { allocations: ['9->1#2 4 Chronology'], debits: ['1:2=6'], credits: [] },
    },
    {
      name: 'amounts stay exact below a cent',
      debits: [bill('1', '2025-01-14', ['0.1', '0.2'])],
      credits: [credit('9', '2025-01-20', '0.3')],
      expect: { allocations: ['9->1#1 0.1 Chronology', '9->1#2 0.2 Chronology'], debits: [], credits: [] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const before = JSON.stringify(c.debits);
      assert.deepEqual(plain(settle({ debits: c.debits, credits: c.credits, method: 'Chronology' })), c.expect);
      assert.equal(JSON.stringify(c.debits), before, 'the input is not changed');
    });
  }

  test('ids compare as numbers', () => {
    assert.ok(compareIds('9', '10') < 0);
    assert.ok(compareIds('10', '9') > 0);
    assert.equal(compareIds('12', '12'), 0);
  });
});

describe('settlement core: a bill as lines or as a whole', () => {
  const lines = [
    { lineNo: 1, amount: d(100) },
    { lineNo: 2, amount: d(50) },
  ];
  const show = (x: ReturnType<typeof debitLines>) => x.map((l) => `${l.lineNo ?? '-'}=${l.open.toFixed()}`).join(',');
  test('unpaid: every line', () => assert.equal(show(debitLines(d(150), d(150), lines, undefined)), '1=100,2=50'));
  test('partly paid: each line less what was paid on it', () =>
    assert.equal(show(debitLines(d(70), d(150), lines, new Map([[1, d(80)]]))), '1=20,2=50'));
  test('lines that do not add up to the bill: the whole', () => assert.equal(show(debitLines(d(151), d(151), lines, undefined)), '-=151'));
  test('a negative line: the whole', () =>
    assert.equal(show(debitLines(d(140), d(140), [...lines, { lineNo: 3, amount: d(-10) }], undefined)), '-=140'));
  test('once settled as a whole, always', () => assert.equal(show(debitLines(d(100), d(150), lines, new Map([[null, d(50)]]))), '-=100'));
  test('no lines: the whole', () => assert.equal(show(debitLines(d(9), d(9), undefined, undefined)), '-=9'));
  test('paid per line disagreeing with the open amount: the whole', () =>
    assert.equal(show(debitLines(d(60), d(150), lines, new Map([[1, d(80)]]))), '-=60'));
});

describe('settlement core: properties', () => {
  const cents = fc.integer({ min: 0, max: 100_000 }).map((c) => new Dec(c).div(100));
  const date = fc.integer({ min: 0, max: 400 }).map((n) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10));
  const account = fc
    .record({
      debits: fc.array(fc.record({ due: date, date, lines: fc.array(cents, { minLength: 1, maxLength: 5 }) }), { maxLength: 6 }),
      credits: fc.array(fc.record({ date, open: cents, tied: fc.option(fc.nat(5), { nil: undefined }) }), { maxLength: 5 }),
    })
    .map(({ debits, credits }) => ({
      debits: debits.map((x, i): OpenDebit => ({ entryId: String(i + 1), billId: `b${i + 1}`, dueDate: x.due, date: x.date, lines: x.lines.map((open, j) => ({ lineNo: j + 1, open })) })),
      credits: credits.map((x, i): OpenCredit => ({ entryId: String(100 + i), date: x.date, open: x.open, billId: x.tied === undefined ? null : `b${x.tied + 1}` })),
    }));

  test('no line is paid past its amount, no credit is spent twice, nothing is lost, and one side ends empty', () => {
    fc.assert(
      fc.property(account, ({ debits, credits }) => {
        const r = settle({ debits, credits, method: 'Chronology' });
        const lineOpen = new Map<string, Dec>(debits.flatMap((x) => x.lines.map((l) => [`${x.entryId}#${l.lineNo}`, l.open] as const)));
        const creditOpen = new Map(credits.map((c) => [c.entryId, c.open]));
        for (const a of r.allocations) {
          assert.ok(a.amount.gt(0));
          const key = `${a.debitEntryId}#${a.lineNo}`;
          lineOpen.set(key, lineOpen.get(key)!.minus(a.amount));
          creditOpen.set(a.creditEntryId, creditOpen.get(a.creditEntryId)!.minus(a.amount));
        }
        for (const v of lineOpen.values()) assert.ok(v.gte(0), 'a line paid past its amount');
        for (const v of creditOpen.values()) assert.ok(v.gte(0), 'a credit spent twice');
        const sumDebits = (xs: OpenDebit[]) => xs.reduce((s, x) => s.plus(debitOpen(x)), new Dec(0));
        const sumCredits = (xs: OpenCredit[]) => xs.reduce((s, x) => s.plus(x.open), new Dec(0));
        const allocated = r.allocations.reduce((s, a) => s.plus(a.amount), new Dec(0));
        assert.ok(sumDebits(debits).minus(allocated).eq(sumDebits(r.debits)));
        assert.ok(sumCredits(credits).minus(allocated).eq(sumCredits(r.credits)));
        // Balance before = balance after: what is owed less credit does not change.
        assert.ok(sumDebits(debits).minus(sumCredits(credits)).eq(sumDebits(r.debits).minus(sumCredits(r.credits))));
        assert.ok(r.debits.length === 0 || r.credits.length === 0, 'credit left while a bill is open');
        // Chronology: an untied credit never pays a later bill while an earlier one stays open.
        for (const a of r.allocations.filter((x) => x.method === 'Chronology')) {
          const paidDue = debits.find((x) => x.entryId === a.debitEntryId)!.dueDate;
          for (const left of r.debits) {
            const leftDue = debits.find((x) => x.entryId === left.entryId)!.dueDate;
            assert.ok(!(leftDue < paidDue), `bill due ${leftDue} left open while one due ${paidDue} was paid`);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
