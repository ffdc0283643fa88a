// Corrections over random sequences on PostgreSQL: bills (posted terms of the water
// tariff), payments, payment reversals, misread meters corrected, late charges, bills
// cancelled with or without a rebill, whole terms cancelled and rebilled, through the real
// operations. After each sequence: every account's balance is the sum of its ledger
// entries (check-ledger proves the rest), every credit note is paired with exactly one
// cancelled bill (and its rebill, if any), nothing pays a cancelled bill but its credit
// note, every late charge of a cancelled bill is reversed with it (and no other), and the
// credit-note numbers run without gaps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Caller } from '../../src/auth/roles.ts';
import { AppError } from '../../src/errors.ts';
import { makePayment } from '../../src/payments/makePayment.ts';
import { reversePayment } from '../../src/payments/reversePayment.ts';
import { correctReading } from '../../src/readings/correctReading.ts';
import { checkLedger } from '../../src/ledger/checkLedger.ts';
import { settleAccounts } from '../../src/settlement/settleAccounts.ts';
import { cancelBill } from '../../src/corrections/cancelBill.ts';
import { cancelAndRebillTerm } from '../../src/corrections/cancelTerm.ts';
import { chargeLateCharges } from '../../src/lateCharges/chargeLateCharges.ts';
import { Dec } from '../../src/rating/money.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, tariff } from '../terms/fixtures.ts';

type Step =
  | { op: 'bill'; cents: number[] }
  | { op: 'pay'; account: number; cents: number }
  | { op: 'reverse'; which: number }
  | { op: 'misread'; account: number; month: number; delta: number }
  | { op: 'cancel'; which: number; rebill: boolean }
  | { op: 'cancelTerm'; which: number; rebill: boolean }
  | { op: 'late' };

const ACCOUNTS = 3;
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('bill' as const), cents: fc.array(fc.integer({ min: -2_000, max: 900_000 }), { minLength: ACCOUNTS, maxLength: ACCOUNTS }) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('pay' as const), account: fc.nat(ACCOUNTS - 1), cents: fc.integer({ min: 1, max: 900_000 }) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('reverse' as const), which: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('misread' as const), account: fc.nat(ACCOUNTS - 1), month: fc.nat(11), delta: fc.integer({ min: -49, max: 49 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('cancel' as const), which: fc.nat(40), rebill: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('cancelTerm' as const), which: fc.nat(12), rebill: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('late' as const) }), weight: 1 },
);

const amount = (cents: number) => new Dec(cents).div(100).toFixed(2);
/** Month m of the sequence's year (2025): its first and last day. */
const monthOf = (m: number) => {
  const start = new Date(Date.UTC(2025, m, 1));
  const end = new Date(Date.UTC(2025, m + 1, 0));
  return [start.toISOString().slice(0, 10), end.toISOString().slice(0, 10)] as const;
};

describe('corrections over random sequences (database)', () => {
  let h: Harness;
  let caller: Caller;
  let service: { service_id: string; service_version_id: string };
  let run = 0;

  before(async () => {
    h = await startHarness();
    // Every bill of the sequences (2025) is past its grace on the tests' today: the late
    // step charges each one still unpaid, once.
    await makeTemplate(h, tariff('WATER', { lateCharge: { graceDays: 10, percentage: '2', minimum: '5' } }));
    service = (
      await h.db.query(
        `SELECT s.service_id, v.service_version_id FROM service s JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version
          WHERE s.app_code = $1 AND s.service_code = 'WATER'`,
        [h.appCode],
      )
    ).rows[0];
    caller = { userId: '0', appCode: h.appCode, email: 'property@a.test', role: 'biller', tokenHash: Buffer.alloc(0) };
  });
  after(() => h.close());

  test('balance = sum of entries; each credit note paired with one cancelled bill; nothing else pays a cancelled bill', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), async (steps) => {
        run++;
        // A batch of this sequence's own, so its monthly terms never overlap another's.
        const batch = (await h.db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, $2, 'test') RETURNING batch_id`, [h.appCode, `P${run}`])).rows[0].batch_id;
        const accounts: { accountId: string; accountNumber: string; subscriptionId: string }[] = [];
        for (let i = 0; i < ACCOUNTS; i++) {
          const number = `P${run}-${i}`;
          const a = (await h.db.query(`INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, $2, $2, 't', 't') RETURNING account_id`, [h.appCode, number])).rows[0];
          const s = (
            await h.db.query(
              `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by) VALUES ($1, $2, $3, $4, '2020-01-01', 't', 't') RETURNING subscription_id`,
              [h.appCode, a.account_id, service.service_id, batch],
            )
          ).rows[0];
          accounts.push({ accountId: a.account_id, accountNumber: number, subscriptionId: s.subscription_id });
          // A reading at each month end from December 2024: 100 a month.
          await h.db.query(
            `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
             SELECT $1, $2, 'METER', (DATE '2025-01-01' + make_interval(months => g))::date - 1, 100 * g, 't' FROM generate_series(0, 12) g`,
            [h.appCode, s.subscription_id],
          );
        }
        const terms: string[] = [];
        const bills: string[] = [];
        const paid: string[] = [];
        let ref = 0;
        for (const s of steps) {
          try {
            if (s.op === 'bill') {
              if (terms.length >= 12) continue;
              const [start, end] = monthOf(terms.length);
              const t = await h.db.query(
                `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
                 VALUES ($1, $2, $3, $4, $5, 'T', $6, $7, $7::date + 14, 'Post Subscription', 'Posted', 't', 't') RETURNING term_id`,
                [h.appCode, service.service_id, service.service_version_id, batch, terms.length + 1, start, end],
              );
              const termId = t.rows[0].term_id;
              terms.push(termId);
              await h.db.query(`INSERT INTO term_subscription (term_id, subscription_id) SELECT $1, unnest($2::bigint[])`, [termId, accounts.map((a) => a.subscriptionId)]);
              // The run's bills as posting leaves them (amounts of the run's day; the rebill rates them again).
              const b = await h.db.query(
                `WITH n AS (INSERT INTO bill_number_counter AS c (app_code, last_number) VALUES ($1, 3) ON CONFLICT (app_code) DO UPDATE SET last_number = c.last_number + 3 RETURNING last_number),
                      ins AS (
                        INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                                          charges, tax, total, balance_brought_forward, total_due, lines, status, posted_at)
                        SELECT $1, $2, u.sub, u.acc, (SELECT last_number FROM n) - 3 + u.i, $3::date + 1, $3::date + 15, $4, $3, u.total, 0, u.total, 0, u.total,
                               json_build_array(json_build_object('componentCode', 'STANDING', 'name', 'Standing', 'category', 'charge', 'quantity', '1', 'amount', u.total::text)),
                               'posted', now()
                          FROM unnest($5::bigint[], $6::bigint[], $7::numeric[]) WITH ORDINALITY AS u(sub, acc, total, i)
                        RETURNING bill_id, app_code, account_id, bill_date, total, bill_number)
                 INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, bill_id, description, created_by)
                 SELECT app_code, account_id, bill_date, 'bill', total, bill_id, 'Bill ' || bill_number, 't' FROM ins RETURNING bill_id`,
                [h.appCode, termId, end, start, accounts.map((a) => a.subscriptionId), accounts.map((a) => a.accountId), s.cents.map(amount)],
              );
              bills.push(...b.rows.map((x) => x.bill_id));
              await settleAccounts(h.db, h.appCode, accounts.map((a) => a.accountId), 't');
            } else if (s.op === 'pay') {
              const reference = `P${run}-${++ref}`;
              await makePayment(h.db, caller, { accountNumber: accounts[s.account]!.accountNumber, amount: amount(s.cents), paymentDate: '15/06/2025', reference, channel: 'bank' });
              paid.push(reference);
            } else if (s.op === 'reverse') {
              if (paid.length === 0) continue;
              const [reference] = paid.splice(s.which % paid.length, 1);
              await reversePayment(h.db, caller, { reference: reference!, reason: 'bounced' });
            } else if (s.op === 'misread') {
              const [, end] = monthOf(s.month);
              const r = await h.db.query(
                `SELECT r.reading_id FROM reading r WHERE r.subscription_id = $1 AND r.reading_date = $2
                    AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)`,
                [accounts[s.account]!.subscriptionId, end],
              );
              await correctReading(h.db, caller, { readingID: Number(r.rows[0].reading_id), value: String(100 * (s.month + 1) + s.delta) });
            } else if (s.op === 'cancel') {
              if (bills.length === 0) continue;
              const billId = bills[s.which % bills.length]!;
              const status = (await h.db.query('SELECT status FROM bill WHERE bill_id = $1', [billId])).rows[0].status;
              try {
                const r = await cancelBill(h.db, caller, { billID: Number(billId), reason: 'property', rebill: s.rebill });
                assert.equal(status, 'posted');
                assert.equal(r.cancelled, 1);
                if (r.creditNotes[0]!.rebillID !== null) bills.push(String(r.creditNotes[0]!.rebillID));
              } catch (err) {
                // Only a bill cancelled already is refused.
                assert.ok(err instanceof AppError && err.code === 'INVALID_STATE', String(err));
                assert.equal(status, 'cancelled');
              }
            } else if (s.op === 'late') {
              await chargeLateCharges(h.db, h.appCode, '2027-01-31', 'property');
            } else {
              if (terms.length === 0) continue;
              const termId = terms[s.which % terms.length]!;
              const live = Number((await h.db.query(`SELECT count(*) FROM bill WHERE term_id = $1 AND status = 'posted'`, [termId])).rows[0].count);
              try {
                const r = await cancelAndRebillTerm(h.db, caller, { termID: Number(termId), reason: 'property', rebill: s.rebill });
                assert.equal(r.cancelled, live);
                for (const c of r.creditNotes) if (c.rebillID !== null) bills.push(String(c.rebillID));
              } catch (err) {
                assert.ok(err instanceof AppError && err.code === 'INVALID_STATE', String(err));
                assert.equal(live, 0);
              }
            }
          } catch (err) {
            // A misread can make a reading the chain refuses; a reversal of a reversed payment: the operation's own 4xx.
            if (!(err instanceof AppError) || !['VALIDATION_FAILED', 'INVALID_STATE', 'CONFLICT'].includes(err.code)) throw err;
            if (s.op === 'cancel' || s.op === 'cancelTerm' || s.op === 'bill' || s.op === 'pay') throw err;
          }
        }

        for (const a of accounts) {
          const c = await checkLedger(h.db, caller, { accountNumber: a.accountNumber });
          assert.deepEqual(c.check.problems, []);
          const r = (
            await h.db.query(`SELECT ac.balance, (SELECT coalesce(sum(amount), 0) FROM ledger_entry WHERE account_id = ac.account_id) AS entries FROM account ac WHERE ac.account_id = $1`, [a.accountId])
          ).rows[0];
          assert.ok(new Dec(r.balance).eq(r.entries), `balance ${r.balance} != entries ${r.entries}`);
        }
        // Every credit note: one cancelled bill, its entry reversing that bill's, its rebill (if any) correcting it.
        const unpaired = await h.db.query(
          `SELECT cn.credit_note_id FROM credit_note cn
             JOIN bill b ON b.bill_id = cn.bill_id
             JOIN ledger_entry e ON e.entry_id = cn.entry_id
             JOIN ledger_entry be ON be.bill_id = b.bill_id AND be.kind = 'bill'
             LEFT JOIN bill nb ON nb.bill_id = cn.rebill_id
            WHERE cn.app_code = $1
              AND (b.status <> 'cancelled' OR e.kind <> 'bill_reversal' OR e.amount <> -b.total OR e.reverses_entry_id <> be.entry_id
                   OR cn.amount <> b.total OR (cn.rebill_id IS NOT NULL AND (nb.corrects_bill_id <> b.bill_id OR nb.status = 'draft')))`,
          [h.appCode],
        );
        assert.deepEqual(unpaired.rows, []);
        const cancelledWithout = await h.db.query(
          `SELECT b.bill_id FROM bill b WHERE b.app_code = $1 AND b.status = 'cancelled' AND (SELECT count(*) FROM credit_note cn WHERE cn.bill_id = b.bill_id) <> 1`,
          [h.appCode],
        );
        assert.deepEqual(cancelledWithout.rows, []);
        const orphanRebills = await h.db.query(
          `SELECT b.bill_id FROM bill b WHERE b.app_code = $1 AND b.corrects_bill_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM credit_note cn WHERE cn.rebill_id = b.bill_id AND cn.bill_id = b.corrects_bill_id)`,
          [h.appCode],
        );
        assert.deepEqual(orphanRebills.rows, []);
        // Nothing but its own credit note pays a cancelled bill.
        const paying = await h.db.query(
          `SELECT al.allocation_id FROM allocation al JOIN bill b ON b.bill_id = al.bill_id
             JOIN ledger_entry d ON d.entry_id = al.debit_entry_id AND d.kind = 'bill'
             JOIN credit_note cn ON cn.bill_id = b.bill_id
            WHERE b.app_code = $1 AND b.status = 'cancelled' AND al.released_at IS NULL AND al.credit_entry_id <> cn.entry_id`,
          [h.appCode],
        );
        assert.deepEqual(paying.rows, []);
        // A late charge is reversed exactly when its bill is cancelled, by an entry taking it
        // back whole; so a debt (a bill and its rebills) never carries two live late charges.
        const lateWrong = await h.db.query(
          `SELECT lc.late_charge_id FROM late_charge lc
             JOIN bill b ON b.bill_id = lc.bill_id
             LEFT JOIN late_charge_reversal r ON r.late_charge_id = lc.late_charge_id
             LEFT JOIN ledger_entry e ON e.entry_id = r.entry_id
            WHERE lc.app_code = $1
              AND ((b.status = 'cancelled') <> (r.late_charge_id IS NOT NULL)
                   OR (r.late_charge_id IS NOT NULL AND (e.amount <> -lc.amount OR e.reverses_entry_id <> lc.entry_id OR e.bill_id <> lc.bill_id)))`,
          [h.appCode],
        );
        assert.deepEqual(lateWrong.rows, []);
        const numbers = await h.db.query('SELECT credit_note_number::int AS n FROM credit_note WHERE app_code = $1 ORDER BY 1', [h.appCode]);
        assert.deepEqual(numbers.rows.map((x) => x.n), numbers.rows.map((_, i) => i + 1));
      }),
      // A fixed seed: the sequences are random but the same on every run, so the check
      // below that they did cancel and rebill cannot fail by chance (it did in CI, 8 of 10
      // credit notes). BILLRUN_PROPERTY_SEED tries others.
      { numRuns: Number(process.env.BILLRUN_PROPERTY_RUNS ?? 20), seed: Number(process.env.BILLRUN_PROPERTY_SEED ?? 20261123) },
    );
    assert.equal((await checkLedger(h.db, caller, {})).check.ok, true);
    const made = await h.db.query('SELECT count(*)::int AS n, count(rebill_id)::int AS r FROM credit_note WHERE app_code = $1', [h.appCode]);
    // Not vacuous: the sequences did cancel and rebill.
    assert.ok(made.rows[0].n > 10 && made.rows[0].r > 5, JSON.stringify(made.rows[0]));
    const reversed = await h.db.query('SELECT count(*)::int AS n FROM late_charge_reversal WHERE app_code = $1', [h.appCode]);
    // Not vacuous either: late charges were made and some went with their bills.
    assert.ok(reversed.rows[0].n > 0, 'no late charge was reversed');
  });
});
