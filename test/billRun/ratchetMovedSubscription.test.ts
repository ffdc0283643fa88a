// A reviewer's finding (a demand ratchet): the history is read by subscription_id only
// (rateRoster.ts, withRatchetHighs). A move (move-subscription: another batch or template,
// the same account and meter, docs/accounts.md "Move") makes a new subscription that has one
// reading before its start, the copy of the old one's last (source 'move'). Its ratchet then
// reads that copy and nothing else of the meter's months: the customer's peak read on the
// same meter two months earlier is gone, and the ratchet is whatever the carried reading
// was. Moving a customer to another reading route (a batch change) cuts its bill.
// (Either the meter's history follows the move, or none does; the code takes one reading of
// it, the copy, which is neither.)
//
// Worked by hand (the ratchet of test/billRun/contractDemand.test.ts):
//   demand 45.00 a kVA, at least 75% of the highest demand of the 11 months before.
//   Read monthly since January on B-R: June 90.0, October 50.0. Moved to batch B-R2 on
//   01/11/2026 (the 31/10 reading 50.0 carried). November 40.0.
//   Not moved: 75% of 90 = 67.5 kVA x 45.00 = 3037.50.
//   Moved: the same customer, meter and template: 3037.50 expected.
//   What it bills: the history is the carried 50.0 alone: 75% of 50 = 37.5 < 40: 40 x 45 = 1800.00.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun } from '../terms/fixtures.ts';
import { billTerm, capture, customer, envelope, ok } from './publishedBills.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { ratchetedDemand, RATCHET_HISTORY } from '../fixtures/tariffs.ts';

const ratcheted = (): ServiceDefinition => ratchetedDemand(['B-R', 'B-R2']);

describe('a ratchet on a subscription moved to another batch', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test("the customer's demand history on the meter still holds the bill after the move", async () => {
    await ok(h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: ratcheted() }), 'make-service');
    const history = RATCHET_HISTORY;
    const months = history.map(([d]) => d);
    const values = history.map(([, v]) => v);
    // The reference: the same readings, not moved.
    const stay = await customer(h, { accountNumber: 'R-1', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    const old = await customer(h, { accountNumber: 'R-2', serviceCode: 'BIZR', batchCode: 'B-R', startDate: '01/01/2026', openingReadings: { DEMAND: 0 } });
    for (const sub of [stay, old]) await capture(h, months.map((d, i) => [sub, 'DEMAND', d, values[i]!] as [number, string, string, string]));
    const moved = await ok(h.post('/billing/subscriptions/move-subscription', envelope('Update', 'Move Subscription', { subscriptionID: old, date: '01/11/2026', batchCode: 'B-R2' })), 'move-subscription');
    const now = Number(moved.headers.get('x-billrun-subscription-id'));
    await capture(h, [
      [stay, 'DEMAND', '30/11/2026', '40.0'],
      [now, 'DEMAND', '30/11/2026', '40.0'],
    ]);

    const a = await billTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const stayed = a.bills.find((x: any) => x.subscriptionID === stay);
    assert.equal(stayed.total, '3037.50');
    const b = await billTerm(h, { serviceCode: 'BIZR', batchCode: 'B-R2', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    const line = b.bills.find((x: any) => x.subscriptionID === now).lines[0];
    // fails: 40.0 kVA, 1800.00; trace.ratchet.highest is the carried {date: 2026-10-31, value: 50}
    assert.deepEqual([line.quantity, line.amount], ['67.5', '3037.50'], JSON.stringify(line.trace.ratchet));
  });
});
