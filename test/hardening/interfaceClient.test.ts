// An outside client written from interface.md and product.md only, driven end to end over HTTP.
// Each test here failed when it was written: it names a behaviour product.md promises that the
// service does not give. (The rest of the client's walk - envelopes, ids in headers, states,
// tenancy, roles, tokens, idempotency, the sandbox - passed and is not repeated here.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun } from '../terms/fixtures.ts';

const v2 = (method: string, action: string, extra: Record<string, unknown> = {}) => ({ method, action, apiVersion: 'v2', ...extra });
const termOp = (method: string, action: string, data: unknown) => v2(method, action, { operation: 'schedule', data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an interface.md client: a billing month through HTTP', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let termID = 0;
  let billIDs: number[] = [];

  before(async () => {
    ({ h, close } = await startRun());
    // No webhook endpoint exists yet: an integrator will add one later and replay.
    const service = {
      code: 'CLIENT-WATER',
      name: 'Water domestic',
      serviceType: 'Sale',
      chargingType: 'Postpaid',
      postType: 'Post Subscription',
      billingCycle: 1,
      dueDateOffset: 14,
      description: '',
      values: [],
      components: [
        { code: 'FIX', name: 'Standing charge', model: 'flat', amount: '100.00' },
        { code: 'USE', name: 'Water use', model: 'perUnit', input: 'water', rate: '2.50' },
      ],
      connectionInputs: [],
      meteredInputs: [{ code: 'water', label: 'Water', unit: 'm3', decimals: 0 }],
      unmeteredInputs: [],
      bankAccounts: [],
      batches: ['CLIENT-ZONE'],
      invoiceTemplate: { templateID: null },
      emailTemplate: { templateID: null },
    };
    const s = await h.post('/billing/services/make-service', v2('Create', 'Create Package', { service }));
    assert.equal(s.status, 200, JSON.stringify(s.body));
    const subIDs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const accountNumber = `CLIENT-${i}`;
      const a = await h.post('/billing/accounts/make-account', v2('Create', 'Create Account', { data: { accountNumber, name: `Customer ${i}`, deliveryPreference: 'none' } }), h.tokens.biller);
      assert.equal(a.status, 200, JSON.stringify(a.body));
      const sub = await h.post(
        '/billing/subscriptions/make-subscription',
        v2('Create', 'Create Subscription', { data: { accountNumber, serviceCode: 'CLIENT-WATER', batchCode: 'CLIENT-ZONE', startDate: '01/01/2026', openingReadings: { water: 1000 }, readingDate: '01/01/2026' } }),
        h.tokens.biller,
      );
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      subIDs.push(Number(sub.headers.get('x-billrun-subscription-id')));
    }
    const mk = await h.post(
      '/billing/terms/make-term',
      termOp('Create', 'Create Bill Term', { serviceCode: 'CLIENT-WATER', batchCode: 'CLIENT-ZONE', billingPeriodID: 202601, label: 'January 2026', startDate: '01/01/2026', endDate: '31/01/2026', dueDate: '14/02/2026', postType: 'Post Subscription' }),
      h.tokens.biller,
    );
    assert.equal(mk.status, 200, JSON.stringify(mk.body));
    assert.deepEqual(mk.body.data, {});
    termID = Number(mk.headers.get('x-billrun-term-id'));
    const cap = await h.post(
      '/billing/terms/load-subscriptions',
      termOp('Update', 'Load Term Subscriptions', { termID }),
      h.tokens.biller,
    );
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    const readings = subIDs.map((subscriptionID, i) => ({ subscriptionID, inputCode: 'water', readingDate: '31/01/2026', value: 1005 + 10 * i }));
    const c = await h.post('/billing/terms/capture-readings', termOp('Update', 'Capture Term Readings', { termID, readings }), h.tokens.biller);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal((await h.post('/billing/terms/validate-term', termOp('Update', 'Validate Term', { termID }), h.tokens.biller)).status, 200);
    assert.equal((await h.post('/billing/terms/approve-term', termOp('Update', 'Approve Term', { termID }), h.tokens.biller)).status, 200);
    const now = new Date().toISOString().slice(0, 19); // the test app's time zone is UTC: now runs at once
    const p = await h.post('/billing/terms/process-term', termOp('Update', 'Process Term', { termID, sheduleTime: now }), h.tokens.biller);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual(p.body.data, {});
    let status = '';
    for (let i = 0; i < 200 && status !== 'Processed'; i++) {
      const t = await h.post('/billing/terms/get-terms', termOp('Retrieve', 'Retrieve Terms', { termID }), h.tokens.biller);
      status = t.body.data.terms[0].status;
      if (status === 'Failed') throw new Error(JSON.stringify(t.body.data.terms[0]));
      if (status !== 'Processed') await sleep(100);
    }
    assert.equal(status, 'Processed');
    const posted = await h.post('/billing/terms/post-term', termOp('Update', 'Post Term', { termID }), h.tokens.biller);
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const bills = await h.post('/billing/bills/get-bills', v2('Retrieve', 'Retrieve Bills', { data: { termID } }), h.tokens.biller);
    billIDs = (bills.body.data.bills as any[]).map((b) => b.billID);
    assert.equal(billIDs.length, 3);
  });
  after(() => close());

  const events = async (type: string) => {
    const r = await h.post('/webhooks/get-events', v2('Retrieve', 'Retrieve Events', { data: { type, limit: 100 } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.events as any[];
  };

  // product.md, "Events, administration, observability": "every change a client may care about (term ... posted
  // ...; bill posted, delivered, delivery failed; payment received, reversed; ...) is an event written in the same
  // transaction as the change, delivered to the app's endpoints ..., logged, replayable". The term's posting is
  // logged (term.posted), its bills' are not: a bill.posted event is written only while some endpoint subscribes to
  // it (docs/webhooks.md), so an integrator who adds an endpoint afterwards and replays the day finds no bill posted.
  test('posting a term logs one bill.posted event per bill, endpoint or not (replayable later)', async () => {
    const termPosted = await events('term.posted');
    assert.equal(termPosted.filter((e) => e.data.termID === termID).length, 1, 'term.posted is logged');
    const billPosted = await events('bill.posted');
    assert.deepEqual(
      billPosted.map((e) => e.data.billID).sort((a, b) => a - b),
      [...billIDs].sort((a, b) => a - b),
      'one bill.posted event per posted bill',
    );
  });

  // Same rule, for a correction: cancel-bill makes a credit note and a rebill (both changes a client cares about),
  // yet neither credit_note.made nor the rebill's bill.posted is logged when no endpoint subscribes.
  test('cancel-bill with a rebill logs credit_note.made and the rebill\'s bill.posted', async () => {
    const billID = billIDs[0]!;
    const c = await h.post('/billing/bills/cancel-bill', v2('Update', 'Cancel Bill', { data: { billID, reason: 'meter misread', rebill: true } }), h.tokens.biller);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const note = c.body.data.creditNotes[0];
    const made = await events('credit_note.made');
    assert.deepEqual(made.map((e) => e.data.creditNoteID), [note.creditNoteID], 'credit_note.made is logged');
    const rebillPosted = (await events('bill.posted')).filter((e) => e.data.billID === note.rebillID);
    assert.equal(rebillPosted.length, 1, 'the rebill\'s bill.posted is logged');
  });
});
