// The ledger's invariants over random sequences of bills, payments, reversals and
// adjustments run through the real operations on PostgreSQL (fewer runs than the pure
// core's property: each step is a transaction).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeAccount, makeWorld, postBill, type TestAccount, type World } from '../settlement/fixtures.ts';
import { makePayment } from '../../src/payments/makePayment.ts';
import { reversePayment } from '../../src/payments/reversePayment.ts';
import { makeAdjustment } from '../../src/ledger/makeAdjustment.ts';
import { checkLedger } from '../../src/ledger/checkLedger.ts';
import { paymentsSinceLastBill } from '../../src/ledger/billingSummary.ts';
import type { Caller } from '../../src/auth/roles.ts';
import { Dec } from '../../src/rating/money.ts';

type Step =
  | { op: 'bill'; account: number; day: number; lines: number[] }
  | { op: 'pay'; account: number; day: number; cents: number }
  | { op: 'reverse'; which: number }
  | { op: 'note'; account: number; day: number; cents: number; kind: 'credit' | 'debit'; onBill: boolean };

const day = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10);
const dmy = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
const amount = (cents: number) => (cents / 100).toFixed(2);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('bill' as const), account: fc.nat(2), day: fc.nat(200), lines: fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 4 }) }),
  fc.record({ op: fc.constant('pay' as const), account: fc.nat(2), day: fc.nat(200), cents: fc.integer({ min: 1, max: 80_000 }) }),
  fc.record({ op: fc.constant('reverse' as const), which: fc.nat(20) }),
  fc.record({
    op: fc.constant('note' as const),
    account: fc.nat(2),
    day: fc.nat(200),
    cents: fc.integer({ min: 1, max: 30_000 }),
    kind: fc.constantFrom('credit' as const, 'debit' as const),
    onBill: fc.boolean(),
  }),
);

describe('ledger invariants over random sequences (database)', () => {
  let h: Harness;
  let w: World;
  let caller: Caller;
  let run = 0;
  before(async () => {
    h = await startHarness();
    w = await makeWorld(h.db, h.appCode);
    caller = { userId: '0', appCode: h.appCode, email: 'property@a.test', role: 'biller', tokenHash: Buffer.alloc(0) };
  });
  after(() => h.close());

  test('balance = sum of entries = sum of open amounts; no settlement exceeds a bill or a line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        run++;
        const accounts: TestAccount[] = [];
        for (let i = 0; i < 3; i++) accounts.push(await makeAccount(h.db, w, `R${run}-${i}`));
        const bills: { billId: string; account: number }[] = [];
        const paid: string[] = [];
        let ref = 0;
        for (const s of steps) {
          if (s.op === 'bill') {
            const d = day(s.day);
            const b = await postBill(h.db, w, accounts[s.account]!, { billDate: d, dueDate: day(s.day + 14), lines: s.lines.map(amount) });
            bills.push({ billId: b.billId, account: s.account });
          } else if (s.op === 'pay') {
            const reference = `R${run}-P${++ref}`;
            await makePayment(h.db, caller, { accountNumber: accounts[s.account]!.accountNumber, amount: amount(s.cents), paymentDate: dmy(day(s.day)), reference, channel: 'bank' });
            paid.push(reference);
          } else if (s.op === 'reverse') {
            if (paid.length === 0) continue;
            const [reference] = paid.splice(s.which % paid.length, 1);
            await reversePayment(h.db, caller, { reference, reason: 'bounced' });
          } else {
            const own = bills.filter((b) => b.account === s.account);
            const billID = s.onBill && own.length > 0 ? Number(own[own.length - 1]!.billId) : undefined;
            await makeAdjustment(h.db, caller, { accountNumber: accounts[s.account]!.accountNumber, kind: s.kind, amount: amount(s.cents), reason: 'goodwill', adjustmentDate: dmy(day(s.day)), billID });
          }
        }
        for (const a of accounts) {
          const c = await checkLedger(h.db, caller, { accountNumber: a.accountNumber });
          assert.deepEqual(c.check.problems, []);
          const sums = await h.db.query(
            `SELECT ac.balance,
                    (SELECT coalesce(sum(amount), 0) FROM ledger_entry WHERE account_id = ac.account_id) AS entries,
                    (SELECT coalesce(sum(open_amount), 0) FROM open_item WHERE account_id = ac.account_id) AS open,
                    (SELECT count(*) FROM open_item WHERE account_id = ac.account_id AND open_amount > 0) AS debits,
                    (SELECT count(*) FROM open_item WHERE account_id = ac.account_id AND open_amount < 0) AS credits
               FROM account ac WHERE ac.account_id = $1`,
            [a.accountId],
          );
          const r = sums.rows[0];
          assert.ok(new Dec(r.balance).eq(r.entries), `balance ${r.balance} != entries ${r.entries}`);
          assert.ok(new Dec(r.entries).eq(r.open), `entries ${r.entries} != open ${r.open}`);
          assert.ok(r.debits === '0' || r.credits === '0', 'credit left unapplied while something is owed');
        }
        const over = await h.db.query(
          `SELECT b.bill_id, b.total, sum(al.amount) AS settled FROM bill b JOIN allocation al ON al.bill_id = b.bill_id AND al.released_at IS NULL
            WHERE b.app_code = $1 GROUP BY b.bill_id HAVING sum(al.amount) > b.total`,
          [h.appCode],
        );
        assert.deepEqual(over.rows, []);
        // A reversed payment pays nothing any more: its only live settlement is the
        // pairing with its reversal, and the bills it paid were reopened.
        const stillPaying = await h.db.query(
          `SELECT al.allocation_id FROM payment_reversal pr JOIN allocation al ON al.payment_id = pr.payment_id
            WHERE pr.app_code = $1 AND al.released_at IS NULL AND al.method <> 'Reversal'`,
          [h.appCode],
        );
        assert.deepEqual(stillPaying.rows, []);
        const since = await paymentsSinceLastBill(h.db, h.appCode, accounts.map((a) => a.accountId));
        for (const a of accounts) assert.ok(since.has(a.accountId));
      }),
      { numRuns: 100 },
    );
    const whole = await checkLedger(h.db, caller, {});
    assert.equal(whole.check.ok, true);
  });
});
