// A Prepaid bill corrected after a later bill settled its advance, end to end through HTTP:
// the later bill is corrected with it (src/corrections/lockCorrection.ts). November's bill
// billed December in advance; the subscription was terminated on 10/12 and December's final
// bill credited the 21 unused days. November cancelled and rebilled with the data as it is
// now bills December in advance only to 10/12, so December's bill, which credited days of
// the cancelled advance, is cancelled and rebilled after it, crediting nothing. Before, it
// kept its credit: the 21 days given back twice.
// Amounts by hand from the water tariff, Prepaid (test/fixtures/tariffs.ts): standing 150.00 a
// month; water 10 m3 at 50 then 70; sewer 10% of water; VAT 16% of the three.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, startRun, subscriptions, tariff, type Sub } from '../terms/fixtures.ts';
import { correctionCalls, envelope } from './support.ts';

describe("a Prepaid bill corrected after a later bill settled its advance", () => {
  let h: Harness;
  let close: () => Promise<void>;
  let c: Sub;
  const { ok, postedTerm, billsOf, ledgerOk } = correctionCalls(() => h);
  const live = async () => (await billsOf({ accountID: Number(c.accountId) })).filter((b: any) => b.status === 'posted');
  const credits = (b: any) => b.lines.filter((l: any) => l.trace.prepaid?.basis === 'credit').map((l: any) => `${l.componentCode} ${l.amount}`);
  const sum = (bills: any[]) => bills.reduce((n, b) => n + Math.round(Number(b.total) * 100), 0) / 100;

  before(async () => {
    ({ h, close } = await startRun({}, [tariff('PRE', { chargingType: 'Prepaid', batches: ['ZONE-P'] })]));
    [c] = (await subscriptions(h, { n: 1, serviceCode: 'PRE', batchCode: 'ZONE-P', readings: [['2026-10-31', 100], ['2026-11-30', 125]] })) as [Sub];
  });
  after(() => close());

  test('cancel-and-rebill of November corrects December too: the unused days are given back once', async () => {
    const nov = await postedTerm({ serviceCode: 'PRE', batchCode: 'ZONE-P', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    await addReadings(h, [[c.subscriptionId, '2026-12-10', 130]]);
    await ok('/billing/subscriptions/terminate-subscription', envelope('Update', 'Terminate Subscription', { subscriptionID: Number(c.subscriptionId), endDate: '10/12/2026' }));
    const dec = await postedTerm({ serviceCode: 'PRE', batchCode: 'ZONE-P', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    const before = await live();
    // November 2325.80 with December's 150.00 + 24.00 in advance; December 319.00 in arrears
    // less 21 of the 31 days given back, -101.61 and -16.26: 201.13.
    assert.deepEqual(before.map((b: any) => [b.termID, b.total]), [[nov, '2325.80'], [dec, '201.13']]);
    assert.deepEqual(credits(before[1]), ['STANDING -101.61', 'VAT -16.26']);

    // A cancel without rebill of November would leave December crediting an advance no bill holds: refused.
    const refused = await h.post('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID: nov, reason: 'check', rebill: false }), h.tokens.biller);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.deepEqual([refused.body.error.code, refused.body.error.details[0].path], ['INVALID_STATE', 'data.termID']);
    assert.match(refused.body.message, new RegExp(`Bill ${before[1].billNumber} settled the advance of bill ${before[0].billNumber}`));
    assert.deepEqual((await live()).map((b: any) => b.billID), before.map((b: any) => b.billID));

    const done = await ok('/billing/terms/cancel-and-rebill', envelope('Update', 'Cancel And Rebill Term', { termID: nov, reason: 'terminated on 10/12' }));
    assert.deepEqual([done.cancelled, done.rebilled], [2, 2]);
    const after = await live();
    // November again, December in advance only to 10/12: 150.00 x 10/31 = 48.39, VAT 7.74;
    // December again, nothing to give back: 319.00. The same 2526.93 in all, as nothing else changed.
    assert.deepEqual(
      after.map((b: any) => [b.termID, b.total, b.correctsBillID]),
      [
        [nov, '2207.93', before[0].billID],
        [dec, '319.00', before[1].billID],
      ],
    );
    assert.deepEqual(credits(after[1]), []);
    assert.equal(sum(after), sum(before));
    await ledgerOk();
  });
});
