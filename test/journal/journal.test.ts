import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, startRun, step, subscriptions, tariff } from '../terms/fixtures.ts';
import { processedTerm, fetchFile } from '../documents/support.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const journal = (h: Harness, data: unknown, token = h.tokens.viewer) => h.post('/billing/journal/get-journal', env('Retrieve', 'Retrieve Journal', data), token);
const WHOLE_YEAR = { from: '01/06/2026', to: '31/05/2027' };

describe('the general-ledger journal', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER', { cashAccountID: 7, businessUnitID: 3 })]));
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
