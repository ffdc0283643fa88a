// A reviewer's finding (a demand ratchet): a Validated term reads the ratchet's history (the
// highest demand dated in the 11 months before the term, rateRoster.ts withRatchetHighs), but
// correct-reading sends a Validated term back to Loaded only when the corrected reading is
// one of the term's own period (correctReading.ts, refuseIntoFrozenTerm: dates from the last
// reading before the term). A history reading corrected after validation leaves the term
// Validated with a preview the run will not bill: the officer approves 3037.50 and the run
// (its watermark taken at approval, after the correction) bills 2868.75.
//
// Worked by hand (the template of test/billRun/contractDemand.test.ts's ratchet):
//   demand 45.00 a kVA, at least 75% of the highest demand of the 11 months before.
//   Read monthly since January, June 90.0, November 40.0.
//   Validated: 75% of 90 = 67.5 kVA x 45.00 = 3037.50 (the preview).
//   June corrected to 70.0 (a misread): highest before November now 85.0 (31/07):
//   75% of 85 = 63.75 kVA x 45.00 = 2868.75: what the run bills.
//   The term must go back to Loaded (to be validated again), as it does for a corrected
//   reading of its own period.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, termOf, waitForStatus } from '../terms/fixtures.ts';
import { billTerm, capture, customer, envelope, ok } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { ratchetedDemand, RATCHET_HISTORY } from '../fixtures/tariffs.ts';

const ratcheted = (): ServiceDefinition => ratchetedDemand(['B-R', 'B-R2']);

describe('a ratchet history reading corrected while the term is Validated', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('the term goes back to Loaded, so its preview is the bills', async () => {
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: ratcheted() }), 'make-service');
    const r1 = await customer(h, { accountNumber: 'R-1', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    const history: [string, string][] = [...RATCHET_HISTORY, ['30/11/2026', '40.0']];
    const months = history.map(([d]) => d);
    const values = history.map(([, v]) => v);
    await capture(h, months.map((d, i) => [r1, 'DEMAND', d, values[i]!] as [number, string, string, string]));

    const termID = await makeTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    await ok(step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID }), 'load-subscriptions');
    const validated = (await ok(step(h, 'validate-term', 'Validate Term', { termID }), 'validate-term')).body.data;
    assert.equal(validated.previewBills.find((p: any) => p.subscriptionID === r1).total, '3037.50');

    const june = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-06-30'`, [r1]);
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(june.rows[0].reading_id), value: '70.0', note: 'misread' })), 'correct-reading');

    // fails: still 'Validated' (the corrected reading is dated before the term's last reading before it)
    const t = await termOf(h, { termID });
    assert.equal(t.status, 'Loaded', 'a Validated term whose ratchet history changed must be validated again');

    // What approving that preview gives: the run bills from the corrected history.
    if (t.status === 'Validated') {
      await ok(step(h, 'approve-term', 'Approve Term', { termID }), 'approve-term');
      await ok(step(h, 'process-term', 'Process Term', { termID }), 'process-term');
      await waitForStatus(h, termID, ['Processed', 'Failed']);
      const bills = (await ok(h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID })), 'get-bills')).body.data.bills;
      assert.equal(bills[0].total, '3037.50', `the approved preview said 3037.50; the run billed ${bills[0].total}`);
    }
  });

  // The same, for a customer moved to another batch on 01/11/2026 (its history follows the move,
  // test/billRun/ratchetMovedSubscription.test.ts): June is a reading of the subscription it was
  // moved from, and the Validated term is the new subscription's (a reviewer: it stayed Validated).
  test("a reading of the subscription a customer was moved from sends the new one's Validated term back", async () => {
    const old = await customer(h, { accountNumber: 'R-2', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    await capture(h, RATCHET_HISTORY.map(([d, v]) => [old, 'DEMAND', d, v] as [number, string, string, string]));
    const moved = await ok(h.post('/billing/subscriptions/move-subscription', envelope('Update', 'Move Subscription', { subscriptionID: old, date: '01/11/2026', batchCode: 'B-R2' })), 'move-subscription');
    const now = Number(moved.headers.get('x-billrun-subscription-id'));
    await capture(h, [[now, 'DEMAND', '30/11/2026', '40.0']]);

    const termID = await makeTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R2', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    await ok(step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID }), 'load-subscriptions');
    const validated = (await ok(step(h, 'validate-term', 'Validate Term', { termID }), 'validate-term')).body.data;
    assert.equal(validated.previewBills.find((p: any) => p.subscriptionID === now).total, '3037.50');

    const june = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-06-30'`, [old]);
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(june.rows[0].reading_id), value: '70.0', note: 'misread' })), 'correct-reading');
    assert.equal((await termOf(h, { termID })).status, 'Loaded', "the moved customer's Validated term read June's 90.0: it must be validated again");
    const again = (await ok(step(h, 'validate-term', 'Validate Term', { termID }), 'validate-term')).body.data;
    assert.equal(again.previewBills.find((p: any) => p.subscriptionID === now).total, '2868.75');
  });

  // A reviewer: the ratchet's months are the customer's last bills, which on a template billed
  // every two months reach twice as far back as the calendar months the correction looked at.
  // A ratchet of 2 months (bills) on a two-monthly template, 75%, 45.00 a kVA:
  //   read 28/02 60.0, a check read 20/03 100.0, 30/04 55.0, 30/06 50.0, 31/08 40.0;
  //   billed January-February, March-April and May-June; July-August Validated:
  //   its window is the last 2 bills' periods, from 01/03: highest 100.0, 75 kVA x 45.00 = 3375.00.
  //   20/03 corrected to 58.0: highest 58.0, 43.5 kVA x 45.00 = 1957.50. 20/03 is before
  //   01/04 (the term's start less 2 + 1 calendar months), so the term stayed Validated.
  test('a reading in the window of the last bills, further back than the calendar months, sends the term back', async () => {
    await ok(
      h.post('/billing/services/make-service', {
        method: 'Create',
        action: 'Create Package',
        apiVersion: 'v2',
        service: ratchetedDemand(['B-Q'], {
          code: 'BIZQ',
          billingCycle: 2,
          components: [{ code: 'DEMAND', name: 'Demand charge', model: 'perUnit', input: 'DEMAND', rate: '45.00', ratchet: { percentage: '75', months: 2 } }],
        } as Partial<ServiceDefinition>),
      }),
      'make-service',
    );
    const q = await customer(h, { accountNumber: 'Q-1', serviceCode: 'BIZQ', batchCode: 'B-Q', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    const read: [string, string][] = [['28/02/2026', '60.0'], ['20/03/2026', '100.0'], ['30/04/2026', '55.0'], ['30/06/2026', '50.0'], ['31/08/2026', '40.0']];
    await capture(h, read.map(([d, v]) => [q, 'DEMAND', d, v] as [number, string, string, string]));
    const term = (id: number, start: string, end: string) => ({ serviceCode: 'BIZQ', batchCode: 'B-Q', billingPeriodID: id, startDate: start, endDate: end });
    await billTerm(h, term(202602, '01/01/2026', '28/02/2026'));
    await billTerm(h, term(202604, '01/03/2026', '30/04/2026'));
    await billTerm(h, term(202606, '01/05/2026', '30/06/2026'));
    const termID = await makeTerm(h, term(202608, '01/07/2026', '31/08/2026'));
    await ok(step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID }), 'load-subscriptions');
    const validated = (await ok(step(h, 'validate-term', 'Validate Term', { termID }), 'validate-term')).body.data;
    assert.equal(validated.previewBills.find((p: any) => p.subscriptionID === q).total, '3375.00');

    const check = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-03-20'`, [q]);
    await ok(h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(check.rows[0].reading_id), value: '58.0', note: 'misread' })), 'correct-reading');
    assert.equal((await termOf(h, { termID })).status, 'Loaded', "the term's ratchet read 20/03's 100.0: it must be validated again");
    const again = (await ok(step(h, 'validate-term', 'Validate Term', { termID }), 'validate-term')).body.data;
    assert.equal(again.previewBills.find((p: any) => p.subscriptionID === q).total, '1957.50');
  });
});
