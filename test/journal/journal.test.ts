import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, startRun, step, subscriptions, tariff } from '../terms/fixtures.ts';
import { processedTerm, fetchFile, eventually } from '../documents/support.ts';
import { Dec } from '../../src/rating/money.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const journal = (h: Harness, data: unknown, token = h.tokens.viewer) => h.post('/billing/journal/get-journal', env('Retrieve', 'Retrieve Journal', data), token);
const WHOLE_YEAR = { from: '01/06/2026', to: '31/05/2027' };

describe('the general-ledger journal', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [
      tariff('WATER', { cashAccountID: 7, businessUnitID: 3 }),
      tariff('LATE', { cashAccountID: 8, businessUnitID: 4, lateCharge: { graceDays: 0, percentage: '2' }, batches: ['Z1'] }),
      tariff('DEP', { cashAccountID: 9, businessUnitID: 5, securityDeposit: '250.00', batches: ['Z2'] }),
    ]));
  });
  after(() => close());

  test('a posted term, a payment and a debit note: debits equal credits, by GL account, cash account, business unit and component', async () => {
    const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]] });
    const termID = await processedTerm(h, subs);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    const account = (await h.db.query<{ account_number: string }>('SELECT account_number FROM account WHERE account_id = $1', [subs[0]!.accountId])).rows[0]!.account_number;
    const pay = await h.post('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: account, amount: '1000', paymentDate: '31/01/2027', reference: 'J-P1', channel: 'bank', cashAccountID: 12 }), h.tokens.biller);
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    const debit = await h.post('/billing/ledger/make-adjustment', env('Create', 'Create Adjustment', { accountNumber: account, kind: 'debit', amount: '12.50', reason: 'reconnection fee', adjustmentDate: '31/01/2027' }), h.tokens.biller);
    assert.equal(debit.status, 200, JSON.stringify(debit.body));

    const r = await journal(h, WHOLE_YEAR);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // 125 - 100 = 25 m3: water 10 x 50 + 15 x 70 = 1,550.00; sewer 10% = 155.00; standing
    // 150.00; VAT 16% of 1,855.00 = 296.80; a bill 2,151.80, three 6,455.40.
    assert.deepEqual(
      r.body.data.lines.map((l: any) => [l.date, l.glAccount, l.cashAccountID, l.businessUnitID, l.componentCode, l.debit, l.credit]),
      [
        ['31/01/2027', 'adjustments', 0, null, null, '0.00', '12.50'],
        ['31/01/2027', 'cash', 12, null, null, '1000.00', '0.00'],
        ['31/01/2027', 'receivable', 0, null, null, '12.50', '0.00'],
        ['31/01/2027', 'receivable', 7, 3, null, '6455.40', '0.00'],
        ['31/01/2027', 'receivable', 12, null, null, '0.00', '1000.00'],
        ['31/01/2027', 'revenue', 7, 3, 'SEWER', '0.00', '465.00'],
        ['31/01/2027', 'revenue', 7, 3, 'STANDING', '0.00', '450.00'],
        ['31/01/2027', 'revenue', 7, 3, 'WATER', '0.00', '4650.00'],
        ['31/01/2027', 'tax', 7, 3, 'VAT', '0.00', '890.40'],
      ],
    );
    assert.deepEqual(r.body.data.days, [{ date: '31/01/2027', debit: '7467.90', credit: '7467.90', balanced: true }]);

    const csv = await fetchFile(h, '/billing/journal/export-journal', env('Retrieve', 'Export Journal', WHOLE_YEAR), h.tokens.viewer);
    assert.equal(csv.status, 200);
    assert.match(csv.type, /^text\/csv/);
    const rows = csv.bytes.toString('utf8').trimEnd().split('\r\n');
    assert.equal(rows[0], 'date,glAccount,cashAccountID,businessUnitID,componentCode,debit,credit');
    assert.equal(rows.length, 1 + r.body.data.lines.length);
    assert.equal(rows[4], '31/01/2027,receivable,7,3,,6455.40,0.00');
  });

  /** The day's lines of one cash account, as [glAccount, cashAccountID, businessUnitID, componentCode, debit, credit]. */
  const linesOf = async (cashAccountID: number) => {
    const r = await journal(h, { from: '31/01/2027' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // Every day balances, whatever the other tests wrote on it.
    for (const d of r.body.data.days) assert.ok(d.balanced && d.debit === d.credit, JSON.stringify(d));
    return r.body.data.lines
      .filter((l: any) => l.cashAccountID === cashAccountID)
      .map((l: any) => [l.glAccount, l.cashAccountID, l.businessUnitID, l.componentCode, l.debit, l.credit]);
  };
  const accountNumberOf = async (accountId: string) =>
    (await h.db.query<{ account_number: string }>('SELECT account_number FROM account WHERE account_id = $1', [accountId])).rows[0]!.account_number;

  test("a credit note (cancel-bill), a late charge and a payment without a cash account: in the bill's template's cash account and business unit, by component, balanced", async () => {
    const subs = await subscriptions(h, { n: 2, serviceCode: 'LATE', batchCode: 'Z1', readings: [['2026-10-31', 100]] });
    const termID = await processedTerm(h, subs, { serviceCode: 'LATE', batchCode: 'Z1' });
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    const bills = (await h.db.query<{ bill_id: string }>('SELECT bill_id FROM bill WHERE term_id = $1 ORDER BY subscription_id', [termID])).rows.map((b) => Number(b.bill_id));
    // The first bill cancelled by a credit note (bill_reversal), not rebilled.
    const cancel = await h.post('/billing/bills/cancel-bill', env('Update', 'Cancel Bill', { billID: bills[0], reason: 'wrong meter', rebill: false }), h.tokens.biller);
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    // The second account pays 100.00 without saying into which cash account: its open bill's template's, 8.
    const account = await accountNumberOf(subs[1]!.accountId);
    const pay = await h.post('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: account, amount: '100', reference: 'J-P2', channel: 'bank' }), h.tokens.biller);
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    const got = await h.post('/billing/payments/get-payments', env('Retrieve', 'Retrieve Payments', { reference: 'J-P2' }), h.tokens.viewer);
    assert.equal(got.body.data.payments[0].cashAccountID, 8);
    // The late charge on the second bill (due 14/12/2026, no grace): 2% of 2,151.80 - 100.00 = 41.036, 41.04.
    const run = await h.post('/billing/late-charges/run-late-charges', env('Create', 'Run Late Charges', {}), h.tokens.admin);
    assert.equal(run.status, 200, JSON.stringify(run.body));
    await eventually(async () => {
      const r = await h.post('/billing/late-charges/get-late-charges', env('Retrieve', 'Retrieve Late Charges', { billID: bills[1] }), h.tokens.viewer);
      return r.body.data?.lateCharges?.length === 1 ? r.body.data.lateCharges[0] : undefined;
    }, 'the late charge');

    // Each bill 2,151.80 (as above): standing 150.00, water 1,550.00, sewer 155.00, VAT 296.80.
    // Receivable 8/4: two bills 4,303.60 + the late charge 41.04 debited, the credit note 2,151.80
    // credited; the lines credited twice by the bills and debited once by the credit note; the
    // late charge's other side on adjustments; the payment on cash 8 (no business unit).
    assert.deepEqual(await linesOf(8), [
      ['adjustments', 8, 4, null, '0.00', '41.04'],
      ['cash', 8, null, null, '100.00', '0.00'],
      ['receivable', 8, null, null, '0.00', '100.00'],
      ['receivable', 8, 4, null, '4344.64', '2151.80'],
      ['revenue', 8, 4, 'SEWER', '155.00', '310.00'],
      ['revenue', 8, 4, 'STANDING', '150.00', '300.00'],
      ['revenue', 8, 4, 'WATER', '1550.00', '3100.00'],
      ['tax', 8, 4, 'VAT', '296.80', '593.60'],
    ]);
    // Cash account 8 balances on its own: its bills, credit note, late charge and payment are all its.
    const lines = await linesOf(8);
    const total = (i: 4 | 5) => lines.reduce((t: Dec, l: any[]) => t.plus(l[i]), new Dec(0)).toFixed(2);
    assert.deepEqual([total(4), total(5)], ['6596.44', '6596.44']);
  });

  test("a security deposit's charge, release and refund, and its payment made without a cash account, sit in its template's cash account and business unit", async () => {
    const dep = env('Create', 'Create Account', { accountNumber: 'J-D1', name: 'Deposit customer' });
    assert.equal((await h.post('/billing/accounts/make-account', dep, h.tokens.biller)).status, 200);
    const made = await h.post(
      '/billing/subscriptions/make-subscription',
      env('Create', 'Create Subscription', { accountNumber: 'J-D1', serviceCode: 'DEP', batchCode: 'Z2', startDate: '01/01/2025' }),
      h.tokens.biller,
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const subscriptionID = Number(made.headers.get('x-billrun-subscription-id'));
    // No bill open: the payment goes to the cash account of the subscription's template, 9.
    const pay = await h.post('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'J-D1', amount: '250', reference: 'J-D1-P', channel: 'bank' }), h.tokens.biller);
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    const end = await h.post('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '31/12/2026' }), h.tokens.biller);
    assert.equal(end.status, 200, JSON.stringify(end.body));
    // No term of DEP will bill it: released by hand, all 250.00 refunded.
    const rel = await h.post('/billing/deposits/release-deposits', env('Update', 'Release Deposits', { subscriptionID }), h.tokens.biller);
    assert.equal(rel.status, 200, JSON.stringify(rel.body));
    assert.equal(rel.body.data.refunded, '250.00');
    // Charge 250 (receivable debit, deposits held credit), payment 250 (cash debit, receivable
    // credit), release -250 (deposits held debit, receivable credit), refund 250 (receivable
    // debit, deposit refunds credit): cash account 9 balances on its own.
    assert.deepEqual(await linesOf(9), [
      ['cash', 9, null, null, '250.00', '0.00'],
      ['deposit refunds', 9, 5, null, '0.00', '250.00'],
      ['deposits held', 9, 5, null, '250.00', '250.00'],
      ['receivable', 9, null, null, '0.00', '250.00'],
      ['receivable', 9, 5, null, '500.00', '250.00'],
    ]);
  });

  test('another app sees none of it; a bad period is refused, naming the field', async () => {
    const other = await journal(h, WHOLE_YEAR, h.tokens.otherAdmin);
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.data, { lines: [], days: [] });
    const bad = async (data: unknown, path: string) => {
      const x = await journal(h, data);
      assert.equal(x.status, 400, JSON.stringify(x.body));
      assert.equal(x.body.error.code, 'VALIDATION_FAILED');
      assert.ok(x.body.error.details.some((d: any) => d.path === path), JSON.stringify(x.body.error.details));
    };
    await bad({ from: '02/02/2027', to: '01/02/2027' }, 'data.to');
    await bad({ from: '01/01/2026', to: '01/02/2027' }, 'data.to');
    await bad({ from: '31/02/2027' }, 'data.from');
    await bad({}, 'data.from');
  });
});
