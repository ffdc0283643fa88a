// A meter's consumption billed as a chain (src/billRun/meterChain.ts), end to end through
// HTTP with a worker: a reading recorded late inside a billed month, or a correction of the
// reading a bill ended at, must not leave consumption billed by no bill or by two. Before
// 2026-11-27 the next month simply started from the new reading (an attacker's walk: 5 m3
// of a late read never billed), and a rebill ended where the next bill did not start.
// The shared water tariff (test/fixtures/tariffs.ts): water in tiers, quantities in m3.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { correctionCalls, envelope, month2026 as month } from './support.ts';

describe("a meter's consumption billed once across months", () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, [tariff(), tariff('WATER2', { batches: ['Z5'] }), tariff('WATER3', { batches: ['M1', 'M2', 'M3'] })]));
  });
  after(() => close());

  const { ok, postedTerm, billsOf, ledgerOk, correctReading, capture, liveWater, billOf } = correctionCalls(() => h);

  /** Makes, loads and runs a term; answers it once Processed, with its failures. */
  async function processed(data: Record<string, unknown>) {
    const termID = await makeTerm(h, data);
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    for (const [name, action] of [['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) {
      const r = await step(h, name, action, { termID });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await waitForStatus(h, termID, ['Processed']);
    const failures = (await ok('/billing/terms/get-failures', { ...envelope('Retrieve', 'Retrieve Term Failures', { termID }), operation: 'schedule' })).failures as any[];
    return { termID, failures, exceptions: validated.body.data.exceptions as any[] };
  }

  /** The water line's trace readings of the subscription's live bill in the term: [previous date, value], [current date, value]. */
  const readingsOf = async (s: Sub, termID: number) => {
    const t = (await billOf(s, termID)).lines.find((l: any) => l.componentCode === 'WATER').trace.reading;
    return [[t.previous.date, t.previous.value], [t.current.date, t.current.value]];
  };

  test('a reading recorded late inside a billed month: the next month starts where that bill ended; a rebill of it later takes the next month with it', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z1', readings: [['2026-07-31', 100], ['2026-08-25', 120]] });
    const aug = await postedTerm(month('Z1', 8));
    assert.deepEqual(await liveWater(s!), [[aug, '20']]);
    // Read on 28/08 and recorded after August was billed to the reading of 25/08.
    await capture(s!, '28/08/2026', 125);
    await capture(s!, '30/09/2026', 140);
    const sep = await processed(month('Z1', 9));
    assert.deepEqual(sep.failures, []);
    // 120 to 140, not 125 to 140: the 5 m3 between were billed by no bill (an attacker's walk).
    assert.deepEqual(await liveWater(s!), [[aug, '20'], [sep.termID, '20']]);
    assert.deepEqual(await readingsOf(s!, sep.termID), [['2026-08-25', '120'], ['2026-09-30', '140']]);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: sep.termID })).status, 200);
    // verify-bill rates it again from what it recorded, the reading it started from included.
    const verified = await ok('/billing/bills/verify-bill', envelope('Retrieve', 'Verify Bill', { billID: (await billOf(s!, sep.termID)).billID }), h.tokens.viewer);
    assert.equal(verified.matches, true, JSON.stringify(verified));

    // Rebilled, August ends at the reading of 28/08, and September follows it from there.
    const done = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s!, aug)).billID, reason: 'late reading of 28/08' }));
    assert.deepEqual([done.cancelled, done.rebilled], [2, 2]);
    assert.deepEqual(await liveWater(s!), [[aug, '25'], [sep.termID, '15']]);
    await ledgerOk();
  });

  test('the reading a posted bill ended at, corrected: the next month starts from it as billed, and the rebill of the month corrects both', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z2', readings: [['2026-07-31', 100], ['2026-08-31', 120], ['2026-09-30', 140]] });
    const aug = await postedTerm(month('Z2', 8));
    await correctReading(s!, '2026-08-31', '115');
    const sep = await processed(month('Z2', 9));
    // From 115, 5 m3 would have been billed twice.
    assert.deepEqual(await liveWater(s!), [[aug, '20'], [sep.termID, '20']]);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: sep.termID })).status, 200);
    const done = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s!, aug)).billID, reason: 'misread' }));
    assert.deepEqual([done.cancelled, done.rebilled], [2, 2]);
    assert.deepEqual(await liveWater(s!), [[aug, '15'], [sep.termID, '25']]);
    await ledgerOk();
  });

  test('a month spent suspended with the meter read meanwhile: the month after it bills from where the last bill ended', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'ZONE-B', readings: [['2026-07-31', 100], ['2026-08-31', 120]] });
    const aug = await postedTerm(month('ZONE-B', 8));
    const change = (op: string, action: string, date: string) =>
      ok(`/billing/subscriptions/${op}`, envelope('Update', action, { subscriptionID: Number(s!.subscriptionId), date }));
    await change('suspend-subscription', 'Suspend Subscription', '01/09/2026');
    await change('resume-subscription', 'Resume Subscription', '01/10/2026');
    await capture(s!, '30/09/2026', 150);
    await capture(s!, '31/10/2026', 170);
    const sep = await postedTerm(month('ZONE-B', 9));
    const oct = await postedTerm(month('ZONE-B', 10));
    // Not on September's roster; October bills 120 to 170 (before: 150 to 170, 30 m3 billed by no bill).
    assert.deepEqual(await liveWater(s!), [[aug, '20'], [oct, '50']]);
    assert.equal((await billsOf({ termID: sep })).length, 0);
  });

  test('a month billed after the next one billed its consumption: refused, naming the later bill, until that bill is rebilled', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'ZONE-A', readings: [['2026-07-31', 100], ['2026-09-30', 140]] });
    const sep = await postedTerm(month('ZONE-A', 9));
    assert.deepEqual(await liveWater(s!), [[sep, '40']]);
    await capture(s!, '31/08/2026', 120);
    const aug = await processed(month('ZONE-A', 8));
    const sepBill = await billOf(s!, sep);
    assert.deepEqual(aug.failures.map((f) => [f.subscriptionID, f.code]), [[Number(s!.subscriptionId), 'LATER_BILL_OVERLAP']]);
    assert.match(
      aug.failures[0].reason,
      new RegExp(
        `bill ${sepBill.billNumber} \\(billID ${sepBill.billID}\\) of the later term ${sep} \\(01/09/2026 to 30/09/2026\\) bills METER from 100 \\(reading of 31/07/2026\\), ` +
          `and this term would bill it up to 120 \\(reading of 31/08/2026\\)`,
      ),
    );
    assert.deepEqual(aug.failures[0].details.map((d: any) => d.path), ['readings.METER']);
    // validate-term said so before the run.
    assert.equal(aug.exceptions.find((e) => e.subscriptionID === Number(s!.subscriptionId))?.code, 'LATER_BILL_OVERLAP');
    // As the failure says: September rebilled from the reading of 31/08, then August retried.
    await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: sepBill.billID, reason: 'August billed late' }));
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: aug.termID })).status, 200);
    const t = await waitForStatus(h, aug.termID, ['Processed']);
    assert.equal(t.counts.failures, 0);
    assert.deepEqual(await liveWater(s!), [[sep, '20'], [aug.termID, '20']].sort((x, y) => (x[0] as number) - (y[0] as number)));
    await ledgerOk();
  });

  test('a subscription that failed in a term posted with it is billed by retry-failures, and its bill is posted with the term', async () => {
    // An attacker's walk: retry-failures answered 409 on a Posted term, and the next month
    // started from the reading that would have fixed the failure: 81.00 billed by no bill.
    const [a, b] = await subscriptions(h, { n: 2, serviceCode: 'WATER2', batchCode: 'Z5', readingsOf: (i) => (i === 0 ? [['2026-07-31', 100], ['2026-08-25', 120]] : [['2026-07-31', 100]]) });
    const { termID: aug, failures } = await processed({ serviceCode: 'WATER2', ...month('Z5', 8) });
    assert.deepEqual(failures.map((f) => [f.subscriptionID, f.code]), [[Number(b!.subscriptionId), 'MISSING_READING']]);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: aug })).status, 200);
    assert.deepEqual(await liveWater(b!), []);
    await capture(b!, '31/08/2026', 130);
    // Read late for a, before the retry: the retry's watermark is above it, a's bill is not.
    await capture(a!, '28/08/2026', 125);
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: aug })).status, 200);
    const t = await waitForStatus(h, aug, ['Posted']);
    assert.deepEqual([t.counts.bills, t.counts.failures], [2, 0]);
    assert.deepEqual(await liveWater(b!), [[aug, '30']]);
    assert.equal((await billOf(b!, aug)).status, 'posted');
    assert.deepEqual(await liveWater(a!), [[aug, '20']]);
    // Nothing left to retry.
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: aug })).status, 409);
    // September starts a where its August bill ended, 120, not at the late 125.
    await capture(a!, '30/09/2026', 140);
    await capture(b!, '30/09/2026', 150);
    const sep = await postedTerm({ serviceCode: 'WATER2', ...month('Z5', 9) });
    assert.deepEqual(await liveWater(a!), [[aug, '20'], [sep, '20']]);
    assert.deepEqual(await liveWater(b!), [[aug, '30'], [sep, '20']]);
    await ledgerOk();
  });

  // An attacker's walk: the reading a move carries over was a copy frozen at the move.
  test("a move's carried reading follows the old subscription's closing reading, recorded after the move, or corrected after both were billed", async () => {
    const move = async (s: Sub, batchCode = 'M2') => {
      const r = await h.post('/billing/subscriptions/move-subscription', envelope('Update', 'Move Subscription', { subscriptionID: Number(s.subscriptionId), date: '15/08/2026', batchCode }), h.tokens.biller);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { subscriptionId: r.headers.get('x-billrun-subscription-id')!, accountId: s.accountId };
    };
    const [late, estimated, corrected] = await subscriptions(h, { n: 3, serviceCode: 'WATER3', batchCode: 'M1', readings: [['2026-07-31', 100]] });
    // The closing reading recorded after the move: 100 to 150 on the old one, 150 to 200 on the new one (before: the new one billed 100 to 200).
    const lateNew = await move(late!);
    await capture(late!, '14/08/2026', 150);
    await capture(lateNew, '31/08/2026', 200);
    // Through the readings import too: the carry follows once the file is in.
    const [imported] = await subscriptions(h, { n: 1, serviceCode: 'WATER3', batchCode: 'M1', readings: [['2026-07-31', 100]] });
    const importedNew = await move(imported!, 'M3');
    const upload = await h.request('POST', '/billing/imports/upload-import?kind=readings', {
      token: h.tokens.biller,
      raw: `subscriptionID,inputCode,readingDate,value\n${imported!.subscriptionId},METER,14/08/2026,150\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const carried = async (s: Sub) =>
      (await h.db.query(`SELECT to_char(reading_date, 'YYYY-MM-DD') AS date, trim_scale(value)::text AS value FROM reading r WHERE subscription_id = $1 AND source = 'move' AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)`, [s.subscriptionId])).rows;
    assert.deepEqual(await carried(importedNew), [{ date: '2026-08-14', value: '150' }]);
    // An estimated closing reading is carried as an estimate: the actual reading below it on the new one is taken.
    await h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(estimated!.subscriptionId), inputCode: 'METER', readingDate: '14/08/2026', value: 150, kind: 'estimated' }] }), h.tokens.biller);
    const estimatedNew = await move(estimated!, 'M3');
    await capture(estimatedNew, '31/08/2026', 140);
    assert.deepEqual((await h.db.query(`SELECT kind, trim_scale(value)::text AS value FROM reading WHERE subscription_id = $1 AND source = 'move'`, [estimatedNew.subscriptionId])).rows, [{ kind: 'estimated', value: '150' }]);
    // Closed before the move, billed, then corrected: both bills rebilled, each from the corrected reading.
    await capture(corrected!, '14/08/2026', 150);
    const correctedNew = await move(corrected!);
    await capture(correctedNew, '31/08/2026', 200);
    const m1 = await postedTerm({ serviceCode: 'WATER3', ...month('M1', 8) });
    const m2 = await postedTerm({ serviceCode: 'WATER3', ...month('M2', 8) });
    assert.deepEqual([await liveWater(late!), await liveWater(lateNew)], [[[m1, '50']], [[m2, '50']]]);
    assert.deepEqual(await readingsOf(lateNew, m2), [['2026-08-14', '150'], ['2026-08-31', '200']]);
    await correctReading(corrected!, '2026-08-14', '140');
    // The old one first is refused: the new one's bill still starts from 150.
    const early = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(corrected!, m1)).billID, reason: 'closing reading misread' }), h.tokens.biller);
    assert.equal(early.status, 400, JSON.stringify(early.body));
    assert.match(early.body.error.details[0].message, /LATER_BILL_OVERLAP: subscription \d+, moved from this one, has bill \d+/);
    for (const [s, term] of [[correctedNew, m2], [corrected!, m1]] as const) {
      await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s, term)).billID, reason: 'closing reading misread' }));
    }
    // 100 to 140, then 140 to 200 (before: 40 and 50, 10 billed by no bill).
    assert.deepEqual([await liveWater(corrected!), await liveWater(correctedNew)], [[[m1, '40']], [[m2, '60']]]);
    await ledgerOk();
  });

  test("a bill rebilled after the next month was billed: the next month's bill is cancelled and rebilled with it, from where the rebill ends", async () => {
    const [s, other] = await subscriptions(h, { n: 2, batchCode: 'Z3', readings: [['2026-07-31', 100], ['2026-08-31', 120], ['2026-09-30', 140]] });
    const aug = await postedTerm(month('Z3', 8));
    const sep = await postedTerm(month('Z3', 9));
    assert.deepEqual(await liveWater(s!), [[aug, '20'], [sep, '20']]);
    await correctReading(s!, '2026-08-31', '115');
    const billID = (await billOf(s!, aug)).billID;
    const sepBill = await billOf(s!, sep);
    // The dry run shows both; the other subscription's September, whose start did not move, is not touched.
    const dry = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID, reason: 'misread', dryRun: true }));
    assert.deepEqual(
      dry.creditNotes.map((c: any) => c.billID),
      [billID, sepBill.billID],
    );
    const done = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID, reason: 'misread' }));
    assert.deepEqual([done.cancelled, done.rebilled], [2, 2]);
    // 100 to 140: 15 in August, 25 in September (before, September kept its 20: 5 m3 billed by no bill).
    assert.deepEqual(await liveWater(s!), [[aug, '15'], [sep, '25']]);
    assert.deepEqual(await liveWater(other!), [[aug, '20'], [sep, '20']]);
    await ledgerOk();

    // Cancelled without a rebill, nothing is billed again, so no start moves: the later bill stays.
    await correctReading(other!, '2026-08-31', '118');
    const alone = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(other!, aug)).billID, reason: 'withdrawn service', rebill: false }));
    assert.deepEqual([alone.cancelled, alone.rebilled], [1, 0]);
    assert.deepEqual(await liveWater(other!), [[sep, '20']]);
    await ledgerOk();
  });

  test('a late reading inside a month already followed by a billed month: a rebill of the first takes the second with it', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z4', readings: [['2026-07-31', 100], ['2026-08-25', 120], ['2026-09-30', 140]] });
    const aug = await postedTerm(month('Z4', 8));
    const sep = await postedTerm(month('Z4', 9));
    await capture(s!, '28/08/2026', 125);
    // Both bills still chain at 120: nothing is lost while neither is rebilled. Rebilling
    // August alone would end it at 125 while September starts at 120.
    const done = await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s!, aug)).billID, reason: 'late reading of 28/08' }));
    assert.deepEqual([done.cancelled, done.rebilled], [2, 2]);
    assert.deepEqual(await liveWater(s!), [[aug, '25'], [sep, '15']]);
    await ledgerOk();
  });
});
