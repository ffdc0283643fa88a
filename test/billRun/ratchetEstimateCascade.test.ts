// A reviewer's finding (a demand ratchet): an estimate in the history counts (docs/rating.md:
// "an estimate counts, and is named as one"), and the bill records its id in its source
// (readings[code].ratchet[months]). But the cascade from estimates (src/corrections/
// estimates.ts, demandReplaced) looks for a replaced demand estimate only in a bill's
// `current` and `highest`, and only among bills flagged `estimated` (their own period's
// readings). A bill priced on an estimated peak through its ratchet is never listed by
// get-estimated-bills, so rebill-estimates never corrects it: the customer keeps paying on a
// demand that was never read, though the bill says "(estimated)".
//
// Worked by hand (the ratchet of test/billRun/contractDemand.test.ts, posted on processing):
//   demand 45.00 a kVA, at least 75% of the highest demand of the 11 months before.
//   Read monthly since January; June ESTIMATED 90.0; July 85.0; November 40.0 (actual).
//   November's bill: 75% of 90 (estimated) = 67.5 kVA x 45.00 = 3037.50.
//   June's actual demand arrives: 60.0 (correct-reading of the estimate, kind actual).
//   November was priced on the replaced estimate: get-estimated-bills must list it
//   (rebilled: 75% of 85 = 63.75 kVA x 45.00 = 2868.75).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, waitForStatus } from '../terms/fixtures.ts';
import { customer, envelope, ok } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { ratchetedDemand, RATCHET_HISTORY } from '../fixtures/tariffs.ts';

const ratcheted = (): ServiceDefinition => ratchetedDemand(['B-R'], { postBilling: 1 } as never);

describe('a bill held by its ratchet to an estimated demand, then the actual demand read', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('get-estimated-bills lists the bill priced on the replaced estimate', async () => {
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: ratcheted() }), 'make-service');
    const r1 = await customer(h, { accountNumber: 'R-1', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    const history: [string, string][] = [...RATCHET_HISTORY, ['30/11/2026', '40.0']];
    const months = history.map(([d]) => d);
    const values = history.map(([, v]) => v);
    await ok(
      h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', {
        readings: months.map((d, i) => ({ subscriptionID: r1, inputCode: 'DEMAND', readingDate: d, value: values[i]!, ...(d === '30/06/2026' ? { kind: 'estimated' } : {}) })),
      })),
      'capture-readings',
    );
    // The six steps; posted on processing (postBilling 1).
    const termID = await makeTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    for (const [name, action] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) {
      await ok(step(h, name, action, { termID }), name);
    }
    assert.equal((await waitForStatus(h, termID, ['Posted', 'Failed'])).status, 'Posted');
    const bills = (await ok(h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID })), 'get-bills')).body.data.bills;
    const bill = bills.find((x: any) => x.subscriptionID === r1);
    assert.equal(bill.total, '3037.50');
    assert.deepEqual(bill.lines[0].trace.ratchet.highest, { date: '2026-06-30', value: '90', estimated: true });

    const june = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-06-30'`, [r1]);
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(june.rows[0].reading_id), value: '60.0', kind: 'actual', note: 'read' })), 'correct-reading');

    const plan = await h.post('/billing/bills/get-estimated-bills', envelope('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: r1 }));
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    // fails: bills [] (the bill is not flagged estimated, and its ratchet's reading is not looked at)
    assert.deepEqual(plan.body.data.bills.map((b: any) => b.billID), [bill.billID], JSON.stringify(plan.body.data));
  });
});
