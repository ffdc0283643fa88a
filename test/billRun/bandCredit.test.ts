// A fixed amount off within a consumption band (docs/rating.md, volume), end to end through HTTP:
// a retail electricity plan's bill credit. Energy 0.12 a kWh; 9.95 when the month's use is under
// 1,000 kWh; 125.00 off when it is 1,000 to 2,000 kWh; VAT 5% on both lines. Worked by hand:
//   1,500 kWh: 180.00 - 125.00 = 55.00, VAT 2.75, total 57.75
//     800 kWh:  96.00 +   9.95 = 105.95, VAT 5.2975 -> 5.30, total 111.25
//   1,000 kWh: 120.00 - 125.00 = -5.00, VAT -0.25, total -5.25: the customer is owed 5.25
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

const plan = {
  code: 'BAND',
  name: 'Electricity with a usage credit',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 14,
  meteredInputs: [{ code: 'METER', label: 'Electricity meter', unit: 'kWh', decimals: 0 }],
  components: [
    { code: 'ENERGY', name: 'Energy', model: 'perUnit', input: 'METER', rate: '0.12' },
    {
      code: 'CREDIT',
      name: 'Usage credit',
      model: 'volume',
      input: 'METER',
      tiers: [
        { upTo: 999, rate: '0', flat: '9.95' },
        { upTo: 2000, rate: '0', flat: '-125' },
        { upTo: null, rate: '0' },
      ],
    },
    { code: 'VAT', name: 'VAT', model: 'percentage', category: 'tax', percentage: '5', of: ['ENERGY', 'CREDIT'] },
  ],
  batches: ['B-BAND'],
} as ServiceDefinition;

describe('a credit for a consumption band, through a bill run and its posting', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('each bill takes the band it lands in; a bill the credit takes below zero posts as what the customer is owed', async () => {
    await makeTemplate(h, plan);
    const used = [1500, 800, 1000];
    const subs = await subscriptions(h, { n: 3, serviceCode: 'BAND', batchCode: 'B-BAND', readingsOf: (i) => [['2026-10-31', 5000], ['2026-11-30', 5000 + used[i]!]] });
    const termID = await makeTerm(h, { serviceCode: 'BAND', batchCode: 'B-BAND', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t));

    const r = await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const billOf = (i: number) => r.body.data.bills.find((b: any) => String(b.subscriptionID) === subs[i]!.subscriptionId);
    const amounts = (i: number) => Object.fromEntries(billOf(i).lines.map((l: any) => [l.componentCode, l.amount]));

    assert.deepEqual(amounts(0), { ENERGY: '180.00', CREDIT: '-125.00', VAT: '2.75' });
    assert.equal(billOf(0).total, '57.75');
    assert.deepEqual(amounts(1), { ENERGY: '96.00', CREDIT: '9.95', VAT: '5.30' });
    assert.equal(billOf(1).total, '111.25');
    assert.deepEqual(amounts(2), { ENERGY: '120.00', CREDIT: '-125.00', VAT: '-0.25' });
    assert.equal(billOf(2).total, '-5.25');

    const credit = billOf(0).lines.find((l: any) => l.componentCode === 'CREDIT');
    assert.equal(credit.trace.tier.flat, '-125');
    assert.match(credit.explanation, /1500 x 0 less 125 = -125/);

    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Posted']);
    const balances = await h.db.query<{ account_id: string; balance: string }>(
      `SELECT account_id, sum(amount)::numeric(18,2)::text AS balance FROM ledger_entry WHERE account_id = ANY($1::bigint[]) GROUP BY account_id`,
      [subs.map((s) => s.accountId)],
    );
    const balance = Object.fromEntries(balances.rows.map((b) => [b.account_id, b.balance]));
    assert.deepEqual(subs.map((s) => balance[s.accountId]), ['57.75', '111.25', '-5.25']);
    const check = await h.post('/billing/ledger/check-ledger', envelope('Retrieve', 'Check Ledger', {}), h.tokens.admin);
    assert.equal(check.status, 200, JSON.stringify(check.body));
  });
});
