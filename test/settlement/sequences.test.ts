// The settlement core over thousands of random sequences of bills, payments, reversals
// and adjustments, with a small in-memory ledger around it that does what the database
// operation does: entries are only added, a reversal releases what its entry settled
// and adds a reversing entry, and after every event the account is settled again.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Dec } from '../../src/rating/money.ts';
import { settle, type OpenCredit, type OpenDebit } from '../../src/settlement/core.ts';

type Entry = { id: string; date: string; due: string; amount: Dec; lines: Dec[] | null; billId: string | null; reverses: string | null; tiedBill: string | null };
type Alloc = { credit: string; debit: string; line: number | null; amount: Dec; live: boolean };

class Ledger {
  entries: Entry[] = [];
  allocs: Alloc[] = [];
  private next = 1;

  add(e: Omit<Entry, 'id'>): string {
    const id = String(this.next++);
    this.entries.push({ ...e, id });
    this.settle();
    return id;
  }

  reverse(id: string, date: string): void {
    const target = this.entries.find((e) => e.id === id)!;
    for (const a of this.allocs) if (a.live && (a.credit === id || a.debit === id)) a.live = false;
    this.add({ date, due: date, amount: target.amount.neg(), lines: null, billId: null, reverses: id, tiedBill: null });
  }

  open(e: Entry): Dec {
    let open = e.amount;
    for (const a of this.allocs) {
      if (!a.live) continue;
      if (a.debit === e.id) open = open.minus(a.amount);
      if (a.credit === e.id) open = open.plus(a.amount);
    }
    return open;
  }

  lineOpen(e: Entry, i: number): Dec {
    let open = e.lines![i]!;
    for (const a of this.allocs) if (a.live && a.debit === e.id && a.line === i + 1) open = open.minus(a.amount);
    return open;
  }

  settle(): void {
    const debits: OpenDebit[] = [];
    const credits: OpenCredit[] = [];
    for (const e of this.entries) {
      const open = this.open(e);
      if (open.gt(0)) {
        const lines = e.lines ? e.lines.map((_, i) => ({ lineNo: i + 1 as number | null, open: this.lineOpen(e, i) })) : [{ lineNo: null, open }];
        debits.push({ entryId: e.id, billId: e.billId, dueDate: e.due, date: e.date, lines, reversesEntryId: e.reverses });
      } else if (open.lt(0)) {
        credits.push({ entryId: e.id, date: e.date, open: open.neg(), billId: e.tiedBill, reversesEntryId: e.reverses });
      }
    }
    for (const a of settle({ debits, credits, method: 'Chronology' }).allocations) {
      this.allocs.push({ credit: a.creditEntryId, debit: a.debitEntryId, line: a.lineNo, amount: a.amount, live: true });
    }
  }
}

type Event =
  | { kind: 'bill'; day: number; lines: number[] }
  | { kind: 'pay'; day: number; cents: number }
  | { kind: 'reverse'; which: number; day: number }
  | { kind: 'note'; day: number; cents: number; credit: boolean; tied: boolean };

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ kind: fc.constant('bill' as const), day: fc.nat(365), lines: fc.array(fc.integer({ min: 0, max: 50_000 }), { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('pay' as const), day: fc.nat(365), cents: fc.integer({ min: 1, max: 90_000 }) }),
  fc.record({ kind: fc.constant('reverse' as const), which: fc.nat(30), day: fc.nat(365) }),
  fc.record({ kind: fc.constant('note' as const), day: fc.nat(365), cents: fc.integer({ min: 1, max: 20_000 }), credit: fc.boolean(), tied: fc.boolean() }),
);

const date = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10);
const cents = (n: number) => new Dec(n).div(100);

describe('settlement core over sequences', () => {
  test('balance = sum of entries = sum of open amounts; no settlement exceeds a bill or its lines; nothing owed while credit waits', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const l = new Ledger();
        const bills: string[] = [];
        const payments: string[] = [];
        let billNo = 0;
        for (const ev of events) {
          if (ev.kind === 'bill') {
            const lines = ev.lines.map(cents);
            const total = lines.reduce((s, x) => s.plus(x), new Dec(0));
            if (total.isZero()) continue;
            const billId = `b${++billNo}`;
            bills.push(billId);
            l.add({ date: date(ev.day), due: date(ev.day + 14), amount: total, lines, billId, reverses: null, tiedBill: null });
          } else if (ev.kind === 'pay') {
            payments.push(l.add({ date: date(ev.day), due: date(ev.day), amount: cents(ev.cents).neg(), lines: null, billId: null, reverses: null, tiedBill: null }));
          } else if (ev.kind === 'reverse') {
            if (payments.length === 0) continue;
            const [id] = payments.splice(ev.which % payments.length, 1);
            l.reverse(id!, date(ev.day));
          } else {
            const amount = ev.credit ? cents(ev.cents).neg() : cents(ev.cents);
            const tiedBill = ev.credit && ev.tied && bills.length > 0 ? bills[bills.length - 1]! : null;
            l.add({ date: date(ev.day), due: date(ev.day), amount, lines: null, billId: null, reverses: null, tiedBill });
          }
        }
        const balance = l.entries.reduce((s, e) => s.plus(e.amount), new Dec(0));
        const openSum = l.entries.reduce((s, e) => s.plus(l.open(e)), new Dec(0));
        assert.ok(balance.eq(openSum), `balance ${balance} != open ${openSum}`);
        let owed = false;
        let credit = false;
        for (const e of l.entries) {
          const open = l.open(e);
          if (e.amount.gt(0)) assert.ok(open.gte(0) && open.lte(e.amount), `debit ${e.id} open ${open} of ${e.amount}`);
          if (e.amount.lt(0)) assert.ok(open.lte(0) && open.gte(e.amount), `credit ${e.id} open ${open} of ${e.amount}`);
          if (e.lines) e.lines.forEach((_, i) => assert.ok(l.lineOpen(e, i).gte(0), `line ${i + 1} of ${e.id} paid past its amount`));
          owed ||= open.gt(0);
          credit ||= open.lt(0);
        }
        assert.ok(!(owed && credit), 'credit waits while something is owed');
        for (const a of l.allocs) assert.ok(a.amount.gt(0));
      }),
      { numRuns: 3000 },
    );
  });
});
