// get-bills by subscriptionID (an outside check: a client holding a subscription had to find
// its account first). Post Subscription bills here; an account bill found by a subscription
// it groups is in test/billRun/postAccount.test.ts.
// By hand (the water tariff, test/fixtures/tariffs.ts): 25 m3 bills 2151.80, 5 m3 493.00.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { postAccountCustomer as customer, startRun, tariff } from '../terms/fixtures.ts';
import { billTerm } from '../billRun/publishedBills.ts';

const getBills = (h: Harness, data: Record<string, unknown>) =>
  h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data }, h.tokens.viewer);

describe('get-bills by subscription', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER')]));
  });
  after(() => close());

  test("the subscription's own bills, not its account's other subscriptions'", async () => {
    const a = await customer(h, 'SUB-A', [25, 5]);
    const { termID } = await billTerm(h, {});

    const first = await getBills(h, { subscriptionID: Number(a.subs[0]) });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(
      first.body.data.bills.map((b: any) => [b.subscriptionID, b.accountID, b.total]),
      [[Number(a.subs[0]), Number(a.accountId), '2151.80']],
    );
    const second = await getBills(h, { subscriptionID: Number(a.subs[1]), termID });
    assert.deepEqual(
      second.body.data.bills.map((b: any) => [b.subscriptionID, b.total]),
      [[Number(a.subs[1]), '493.00']],
    );
    // The account's bills are both; a subscription that is not there has none.
    assert.equal((await getBills(h, { accountID: Number(a.accountId) })).body.data.bills.length, 2);
    const missing = await getBills(h, { subscriptionID: 9_000_000 });
    assert.deepEqual([missing.status, missing.body.data.bills], [200, []]);
    // Not an id: the envelope of product.md, naming the field.
    const bad = await getBills(h, { subscriptionID: 'x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].path, 'data.subscriptionID');
  });
});
