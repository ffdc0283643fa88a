import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, termOf, waitForStatus } from './fixtures.ts';

// Every bill of this tariff with 25 m3 used: standing 150.00; water 10 x 50 + 15 x 70 =
// 1550.00; sewer 10% of 1550.00 = 155.00; VAT 16% of 1855.00 = 296.80.
const BILL = { charges: '1855.00', tax: '296.80', total: '2151.80' };

describe('the six steps of a bill run', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
  });
  after(() => close());

  test('make, load, capture, validate, approve, process, read, post', async () => {
    const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]], balance: '40.00' });
    const termID = await makeTerm(h);
    let t = await termOf(h, { termID });
    assert.equal(t.status, 'Draft');
    assert.equal(t.startDate, '01/11/2026');
    assert.equal(t.dueDate, '14/12/2026');
    assert.equal(t.postType, 'Post Subscription');
    assert.equal(t.label, 'Domestic water ZONE-A 01/11/2026 to 30/11/2026');
    assert.equal(t.job.state, 'none');

    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    t = await termOf(h, { termID });
    assert.equal(t.status, 'Loaded');
    assert.equal(t.counts.subscriptions, 3);
    assert.equal(t.counts.readings, 0);

    const captured = await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: subs.map((s) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: '30/11/2026', value: 125 })),
    });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.headers.get('x-billrun-readings'), '3');

    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const v = validated.body.data;
    assert.deepEqual(v.exceptions, []);
    assert.deepEqual(v.preview.totals, { charges: '5565.00', tax: '890.40', total: '6455.40', balanceBroughtForward: '120.00', totalDue: '6575.40' });
    assert.equal(v.previewBills.length, 3);
    t = await termOf(h, { termID });
    assert.equal(t.status, 'Validated');
    assert.equal(t.counts.readings, 3);

    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    const processed = await step(h, 'process-term', 'Process Term', { termID });
    assert.equal(processed.status, 200, JSON.stringify(processed.body));
    assert.deepEqual(processed.body.data, {});
    t = await waitForStatus(h, termID, ['Processed']);
    assert.equal(t.counts.bills, 3);
    assert.equal(t.counts.failures, 0);
    assert.equal(t.job.state, 'done');
    assert.equal(t.job.progress.percent, 100);
    assert.deepEqual(t.totals, v.preview.totals);

    const bills = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    const list = bills.body.data.bills;
    assert.equal(list.length, 3);
    assert.deepEqual(list.map((b: any) => b.billNumber), [1, 2, 3]);
    for (const b of list) {
      assert.equal(b.charges, BILL.charges);
      assert.equal(b.tax, BILL.tax);
      assert.equal(b.total, BILL.total);
      assert.equal(b.balanceBroughtForward, '40.00');
      assert.equal(b.totalDue, '2191.80');
      assert.equal(b.dueDate, '14/12/2026');
      assert.equal(b.status, 'draft');
      const preview = v.previewBills.find((p: any) => p.subscriptionID === b.subscriptionID);
      assert.deepEqual(
        b.lines.map((l: any) => ({ componentCode: l.componentCode, name: l.name, quantity: l.quantity, ...(l.rate ? { rate: l.rate } : {}), amount: l.amount })),
        preview.lines,
      );
    }
    const water = list[0].lines.find((l: any) => l.componentCode === 'WATER');
    assert.equal(water.amount, '1550.00');
    assert.deepEqual(
      water.trace.tiers.map((x: any) => [x.quantity, x.rate]),
      [
        ['10', '50'],
        ['15', '70'],
      ],
    );
    assert.equal(water.trace.reading.previous.value, '100');
    assert.match(water.explanation, /tier 2: 15 x 70 = 1050/);

    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    t = await termOf(h, { termID });
    assert.equal(t.status, 'Posted');
    const ledger = await h.db.query(`SELECT count(*)::int AS n, sum(amount) AS s FROM ledger_entry WHERE kind = 'bill'`);
    assert.deepEqual(ledger.rows[0], { n: 3, s: '6455.4000' });
    const acc = await h.db.query('SELECT balance FROM account WHERE account_id = $1', [subs[0]!.accountId]);
    assert.equal(acc.rows[0].balance, '2191.8000');
  });

  test('a payment that arrives before the bill settles it when the bill is posted', async () => {
    const [sub] = await subscriptions(h, { n: 1, readings: [['2026-10-31', 100]], prefix: 'EARLY', batchCode: 'ZONE-B' });
    const accountNumber = (await h.db.query('SELECT account_number FROM account WHERE account_id = $1', [sub!.accountId])).rows[0].account_number;
    const paid = await h.post('/billing/payments/make-payment', {
      method: 'Create',
      action: 'Create Payment',
      apiVersion: 'v2',
      data: { accountNumber, amount: '1000.00', paymentDate: '25/11/2026', reference: 'EARLY-1', channel: 'bank' },
    });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const termID = await makeTerm(h, { batchCode: 'ZONE-B' });
    await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID });
    await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: [{ subscriptionID: Number(sub!.subscriptionId), inputCode: 'METER', readingDate: '30/11/2026', value: 125 }],
    });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Processed']);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    const open = await h.post('/billing/ledger/get-open-bills', {
      method: 'Retrieve',
      action: 'Retrieve Open Bills',
      apiVersion: 'v2',
      data: { accountNumber },
    });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    const [bill] = open.body.data.bills;
    assert.equal(bill.total, BILL.total);
    assert.equal(bill.paid, '1000.00');
    assert.equal(bill.due, '1151.80');
    const acc = await h.db.query('SELECT balance FROM account WHERE account_id = $1', [sub!.accountId]);
    assert.equal(acc.rows[0].balance, '1151.8000');
  });
});
