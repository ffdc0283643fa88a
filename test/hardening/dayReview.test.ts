// Review of the day's change 3c6d097..HEAD (2026-11-28): defects found, one failing test each.
// Every test here fails on the change as reviewed and passes once the defect is fixed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, waitForStatus } from '../terms/fixtures.ts';
import { fetchFile, needsPoppler, pdfText } from '../documents/support.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const termEnv = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', operation: 'schedule', data });

let h: Harness;
let close: () => Promise<void>;
before(async () => {
  ({ h, close } = await startRun({}, []));
});
after(() => close());

async function ok(path: string, body: unknown): Promise<any> {
  const r = await h.post(path, body);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r;
}
const makeService = (service: unknown) => ok('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service });

async function customer(o: { account: string; serviceCode: string; batchCode: string; meter: string; open: string; openDate: string; readings: [string, string][] }): Promise<number> {
  await ok('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: o.account, name: `Customer ${o.account}` }));
  const s = await ok(
    '/billing/subscriptions/make-subscription',
    env('Create', 'Create Subscription', { accountNumber: o.account, serviceCode: o.serviceCode, batchCode: o.batchCode, startDate: '01/01/2026', openingReadings: { [o.meter]: o.open }, readingDate: o.openDate }),
  );
  const subscriptionID = Number(s.headers.get('x-billrun-subscription-id'));
  await ok(
    '/billing/readings/capture-readings',
    env('Create', 'Capture Readings', { readings: o.readings.map(([readingDate, value]) => ({ subscriptionID, inputCode: o.meter, readingDate, value })) }),
  );
  return subscriptionID;
}

async function billTerm(data: Record<string, unknown>, until = 'Posted'): Promise<any[]> {
  const m = await ok('/billing/terms/make-term', termEnv('Create', 'Create Bill Term', data));
  const termID = Number(m.headers.get('x-billrun-term-id'));
  for (const [name, action] of [
    ['load-subscriptions', 'Load Term Subscriptions'],
    ['validate-term', 'Validate Term'],
    ['approve-term', 'Approve Term'],
    ['process-term', 'Process Term'],
  ] as const) {
    await ok(`/billing/terms/${name}`, termEnv('Update', action, { termID }));
  }
  const t = await waitForStatus(h, termID, [until, 'Failed']);
  assert.equal(t.status, until, JSON.stringify(t));
  const r = await ok('/billing/bills/get-bills', env('Retrieve', 'Retrieve Bills', { termID }));
  return r.body.data.bills;
}

async function documentText(billID: number): Promise<string> {
  let pdf: Awaited<ReturnType<typeof fetchFile>> | undefined;
  for (let i = 0; i < 300; i++) {
    pdf = await fetchFile(h, '/billing/documents/get-bill-document', env('Retrieve', 'Retrieve Bill Document', { billID }));
    if (pdf.status !== 409 && pdf.status !== 404) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(pdf!.status, 200);
  return pdfText(pdf!.bytes);
}

const depositService = (code: string, batch: string, postType: string, postBilling = 1) => ({
  code,
  name: 'Water with a deposit',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType,
  billingCycle: 1,
  dueDateOffset: 20,
  postBilling,
  securityDeposit: '100.00',
  meteredInputs: [{ code: 'W', label: 'Water meter', unit: 'kL', decimals: 0, rolloverAt: 100000 }],
  components: [
    { code: 'SVC', name: 'Service', model: 'flat', amount: '30.00' },
    { code: 'USE', name: 'Water', model: 'perUnit', input: 'W', rate: '2.00' },
  ],
  batches: [batch],
});

describe("a final bill's document and its security deposit (item 5)", { skip: needsPoppler() }, () => {
  // Deposit 100.00 of which 60.00 paid; moved out 15/10/2026, final bill 34.52 (30.00 x 15/31
  // + 10 kL x 2.00). The balance brought forward is the 40.00 still owed of the deposit, so
  // totalDue is 74.52. The posting's release cancels that 40.00 (docs/payments.md, "its own
  // unpaid part, which is cancelled"), pays the 34.52 from the 60.00 held and refunds 25.48:
  // the balance is 0.00 and nothing is due. The document applies 34.52 to the 74.52 and asks
  // "Total due: 40.00" for the deposit part the release cancelled.
  test('a partly unpaid deposit: the document asks nothing, not the unpaid part the release cancelled', async () => {
    await makeService(depositService('DEPP', 'DEPP-ROUTE', 'Post Subscription'));
    const subscriptionID = await customer({ account: 'DEPP-1', serviceCode: 'DEPP', batchCode: 'DEPP-ROUTE', meter: 'W', open: '1000', openDate: '30/09/2026', readings: [['15/10/2026', '1010']] });
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'DEPP-1', amount: '60.00', paymentDate: '01/10/2026', reference: 'DEPP-1-PAY', channel: 'bank' }));
    await ok('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '15/10/2026', reason: 'moved out' }));
    const [bill] = await billTerm({ serviceCode: 'DEPP', batchCode: 'DEPP-ROUTE', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    assert.equal(bill.total, '34.52');
    const st = await ok('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'DEPP-1' }));
    const kinds = st.body.data.statement.entries.map((e: any) => `${e.kind} ${e.amount}`);
    assert.ok(kinds.includes('deposit_refund 25.48'), kinds.join(', '));
    assert.equal(st.body.data.statement.balance, '0.00', 'the release leaves nothing owed');
    const text = await documentText(bill.billID);
    assert.doesNotMatch(text, /Total due: 40\.00/, 'the release cancelled the unpaid 40.00 of the deposit: nothing is owed');
    assert.match(text, /Nothing to pay/);
    assert.match(text, /25\.48/, 'the refund');
  });

  // The same final bill on a Post Account template: the release pays the subscription's group
  // of the account bill (docs/payments.md, "Of a Post Account bill, only the subscription's own
  // group"), the balance is 0.00 and 65.48 is refunded; DEPOSIT_SQL looks for the deposit by
  // bill.subscription_id, null on an account bill, so the document asks "Total due: 34.52"
  // again, the defect 572a45d fixed for subscription bills.
  test('a Post Account final bill paid by the deposit: the document shows it, not "Total due: 34.52"', async () => {
    await makeService(depositService('DEPA', 'DEPA-ROUTE', 'Post Account'));
    const subscriptionID = await customer({ account: 'DEPA-1', serviceCode: 'DEPA', batchCode: 'DEPA-ROUTE', meter: 'W', open: '1000', openDate: '30/09/2026', readings: [['15/10/2026', '1010']] });
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'DEPA-1', amount: '100.00', paymentDate: '01/10/2026', reference: 'DEPA-1-PAY', channel: 'bank' }));
    await ok('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '15/10/2026', reason: 'moved out' }));
    const [bill] = await billTerm({ serviceCode: 'DEPA', batchCode: 'DEPA-ROUTE', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    assert.equal(bill.total, '34.52');
    assert.equal(bill.subscriptionID, null, 'a Post Account bill');
    const st = await ok('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'DEPA-1' }));
    const kinds = st.body.data.statement.entries.map((e: any) => `${e.kind} ${e.amount}`);
    assert.ok(kinds.includes('deposit_release -100.00') && kinds.includes('deposit_refund 65.48'), kinds.join(', '));
    assert.equal(st.body.data.statement.balance, '0.00');
    const text = await documentText(bill.billID);
    assert.doesNotMatch(text, /Total due: 34\.52/, 'the deposit paid this bill');
    assert.match(text, /65\.48/, 'the refund of the rest of the deposit');
  });
});

describe("a final bill's document rendered before the posting (item 5, the usual case)", { skip: needsPoppler() }, () => {
  // docs/documents.md: documents are rendered when the run ends, before the posting, "as the
  // release will spend it: what is held, up to the total due". But the release spends the
  // deposit on the subscription's own open bills only (docs/payments.md, "The release"), not
  // on whatever else the total due brings forward. Deposit 100.00 paid; a debit note of 50.00
  // (a reconnection fee) on the account; final bill 34.52; totalDue 84.52. The posting
  // applies 34.52, refunds 65.48 and leaves the 50.00 owed (balance 50.00). The document,
  // rendered at Processed and sent at the posting, says the deposit applied 84.52, "Nothing to
  // pay" and 15.48 refunded.
  test('a debit note beside the final bill: the document asks the 50.00 still owed and shows 65.48 refunded', async () => {
    await makeService(depositService('DEPR', 'DEPR-ROUTE', 'Post Subscription', 0));
    const subscriptionID = await customer({ account: 'DEPR-1', serviceCode: 'DEPR', batchCode: 'DEPR-ROUTE', meter: 'W', open: '1000', openDate: '30/09/2026', readings: [['15/10/2026', '1010']] });
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'DEPR-1', amount: '100.00', paymentDate: '01/10/2026', reference: 'DEPR-1-PAY', channel: 'bank' }));
    await ok('/billing/ledger/make-adjustment', env('Create', 'Create Adjustment', { accountNumber: 'DEPR-1', kind: 'debit', amount: '50.00', reason: 'reconnection fee', adjustmentDate: '02/10/2026' }));
    await ok('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '15/10/2026', reason: 'moved out' }));
    const [bill] = await billTerm({ serviceCode: 'DEPR', batchCode: 'DEPR-ROUTE', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' }, 'Processed');
    assert.equal(bill.total, '34.52');
    assert.equal(bill.totalDue, '84.52');
    await documentText(bill.billID); // rendered when the run ended
    await ok('/billing/terms/post-term', termEnv('Update', 'Post Term', { termID: bill.termID }));
    await waitForStatus(h, bill.termID, ['Posted']);
    const st = await ok('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'DEPR-1' }));
    const kinds = st.body.data.statement.entries.map((e: any) => `${e.kind} ${e.amount}`);
    assert.ok(kinds.includes('deposit_refund 65.48'), kinds.join(', '));
    assert.equal(st.body.data.statement.balance, '50.00', 'the debit note is still owed');
    const text = await documentText(bill.billID);
    assert.doesNotMatch(text, /Nothing to pay/, 'the customer owes the 50.00 debit note');
    assert.match(text, /65\.48/, 'the refund');
  });
});

describe('bills by e-mail need an address (item 7): an account left so from before', () => {
  // docs/documents.md: update-account refuses to clear the address of an account taking its
  // bills by e-mail, or to choose email for one without an address; "an account left so from
  // before is printed". updateAccount checks the account as it will be on every change, so
  // such an account can no longer be renamed, given a phone number or closed: each is
  // VALIDATION_FAILED on data.deliveryPreference, a field the request did not send.
  test('renaming or closing an e-mail account with no address (from before the rule) is not refused', async () => {
    await ok('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: 'OLD-EMAIL', name: 'Old customer' }));
    await h.db.query(`UPDATE account SET delivery_preference = 'email', email = NULL WHERE account_number = 'OLD-EMAIL'`);
    const renamed = await h.post('/billing/accounts/update-account', env('Update', 'Update Account', { accountNumber: 'OLD-EMAIL', name: 'Old customer (renamed)' }));
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const closed = await h.post('/billing/accounts/update-account', env('Update', 'Update Account', { accountNumber: 'OLD-EMAIL', status: 'closed' }));
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
  });
});

describe("a rebill of a final bill the deposit paid (item 5)", { skip: needsPoppler() }, () => {
  // Deposit 100.00 paid; final bill 34.52 (10 kL), posted: the release applies 34.52 and refunds
  // 65.48. The reading was 1020, not 1010: the rebill is 54.52 (20 kL). The credit note frees
  // the 34.52 the deposit paid, which the rebill brings forward (balanceBroughtForward -34.52,
  // totalDue 20.00) and which settles 34.52 of it: 20.00 is owed (balance 20.00). The rebill's
  // document counts the deposit a second time: "applied" min(34.52, 20.00) = 20.00 off the
  // 20.00 due, "Nothing to pay".
  test('the rebill asks the 20.00 the deposit did not pay', async () => {
    await makeService(depositService('DEPC', 'DEPC-ROUTE', 'Post Subscription'));
    const subscriptionID = await customer({ account: 'DEPC-1', serviceCode: 'DEPC', batchCode: 'DEPC-ROUTE', meter: 'W', open: '1000', openDate: '30/09/2026', readings: [['15/10/2026', '1010']] });
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'DEPC-1', amount: '100.00', paymentDate: '01/10/2026', reference: 'DEPC-1-PAY', channel: 'bank' }));
    await ok('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '15/10/2026', reason: 'moved out' }));
    const [bill] = await billTerm({ serviceCode: 'DEPC', batchCode: 'DEPC-ROUTE', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    assert.equal(bill.total, '34.52');
    const readingID = Number((await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-10-15'`, [subscriptionID])).rows[0].reading_id);
    await ok('/billing/readings/correct-reading', env('Update', 'Correct Reading', { readingID, value: '1020', note: 'misread' }));
    await ok('/billing/terms/cancel-and-rebill', termEnv('Update', 'Cancel And Rebill Term', { termID: bill.termID, reason: 'misread meter', rebill: true }));
    const bills = (await ok('/billing/bills/get-bills', env('Retrieve', 'Retrieve Bills', { termID: bill.termID }))).body.data.bills;
    const rebill = bills.find((b: any) => b.correctsBillID === bill.billID);
    assert.ok(rebill, JSON.stringify(bills));
    assert.equal(rebill.total, '54.52');
    const st = await ok('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'DEPC-1' }));
    assert.equal(st.body.data.statement.balance, '20.00', 'the rebill less what the deposit paid');
    const text = await documentText(rebill.billID);
    assert.doesNotMatch(text, /Nothing to pay/, 'the customer owes 20.00');
    assert.match(text, /Total due: 20\.00/);
  });
});
