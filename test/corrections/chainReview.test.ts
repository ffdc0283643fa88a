// A reviewer's cases of this session's meter chain, moves' carried readings and retries of
// posted terms (2026-11-27), each written as a test that failed before its fix: a third
// month made the first's correction fail; a retry of a posted term billed again a bill
// cancelled without a rebill, announced its old bills again and could be cancelled midway; a
// correction moving a bill's end reading into the next month billed it twice; a closing
// reading carried into a term approved with the old copy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { correctionCalls, envelope, month2026 as month } from './support.ts';

describe('review: meter chain, carry, retry on Posted', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff(), tariff('WATER2', { batches: ['Z5'] }), tariff('WATER3', { batches: ['M1', 'M2'] })]));
  });
  after(() => close());
  const { ok, postedTerm, correctReading, capture, liveWater, billOf } = correctionCalls(() => h);

  /** Validated, approved, processed (failures allowed) and posted. */
  async function postedWithFailures(data: Record<string, unknown>) {
    const termID = await makeTerm(h, data);
    for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) {
      const r = await step(h, n, a, { termID });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await waitForStatus(h, termID, ['Processed']);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    return termID;
  }

  test('D1: a correction with a follower, when a third month is billed: the rebill must not fail LATER_BILL_OVERLAP', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z1', readings: [['2026-07-31', 100], ['2026-08-31', 120], ['2026-09-30', 140], ['2026-10-31', 160]] });
    const aug = await postedTerm(month('Z1', 8));
    const sep = await postedTerm(month('Z1', 9));
    const oct = await postedTerm(month('Z1', 10));
    await correctReading(s!, '2026-08-31', '115');
    const r = await h.post('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(s!, aug)).billID, reason: 'misread' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(await liveWater(s!), [[aug, '15'], [sep, '25'], [oct, '20']]);
  });

  test('D1b: rebill-estimates of two estimated months, with a later month billed after the cascade: refused LATER_BILL_OVERLAP', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z2', readings: [['2026-07-31', 100]] });
    const est = (date: string, value: number, kind: string) =>
      ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(s!.subscriptionId), inputCode: 'METER', readingDate: date, value, kind }] }));
    await est('31/08/2026', 110, 'estimated');
    await est('30/09/2026', 120, 'estimated');
    const aug = await postedTerm(month('Z2', 8));
    const sep = await postedTerm(month('Z2', 9));
    await est('31/10/2026', 160, 'actual');
    const oct = await postedTerm(month('Z2', 10));
    await est('30/11/2026', 170, 'estimated');
    const nov = await postedTerm(month('Z2', 11));
    const r = await h.post('/billing/bills/rebill-estimates', envelope('Update', 'Rebill Estimates', { subscriptionID: Number(s!.subscriptionId), reason: 'actual of 30/09' }), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    void [aug, sep, oct, nov];
  });

  test('D2: retry-failures on a Posted term bills again a bill cancelled without a rebill', async () => {
    const [a, b] = await subscriptions(h, { n: 2, serviceCode: 'WATER2', batchCode: 'Z5', readingsOf: (i) => (i === 0 ? [['2026-07-31', 100], ['2026-08-31', 120]] : [['2026-07-31', 100]]) });
    const aug = await postedWithFailures({ serviceCode: 'WATER2', ...month('Z5', 8) });
    await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(a!, aug)).billID, reason: 'not to be billed', rebill: false }));
    assert.deepEqual(await liveWater(a!), []);
    await capture(b!, '31/08/2026', 130);
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: aug })).status, 200);
    await waitForStatus(h, aug, ['Posted']);
    assert.deepEqual(await liveWater(b!), [[aug, '30']]);
    assert.deepEqual(await liveWater(a!), [], 'the bill cancelled without a rebill came back');
  });

  test('D3: the reading a bill ended at, corrected to a date in the next month: the next month must not bill it again', async () => {
    const [s] = await subscriptions(h, { n: 1, batchCode: 'Z3', readings: [['2026-07-31', 100], ['2026-08-31', 120], ['2026-09-30', 140]] });
    const aug = await postedTerm(month('Z3', 8));
    const r = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = '2026-08-31'`, [s!.subscriptionId]);
    await ok('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(r.rows[0].reading_id), value: '120', readingDate: '01/09/2026', note: 'read on 1/9' }));
    const sep = await postedTerm(month('Z3', 9));
    // 100 to 140 is 40 m3: August billed 20, so September must bill 20.
    assert.deepEqual(await liveWater(s!), [[aug, '20'], [sep, '20']]);
  });

  test('D4: a closing reading recorded while the new subscription\'s term is Approved: carried into a frozen term, billed twice', async () => {
    const [old] = await subscriptions(h, { n: 1, serviceCode: 'WATER3', batchCode: 'M1', readings: [['2026-07-31', 100]] });
    const mv = await h.post('/billing/subscriptions/move-subscription', envelope('Update', 'Move Subscription', { subscriptionID: Number(old!.subscriptionId), date: '15/08/2026', batchCode: 'M2' }), h.tokens.biller);
    assert.equal(mv.status, 200, JSON.stringify(mv.body));
    const moved = { subscriptionId: mv.headers.get('x-billrun-subscription-id')!, accountId: old!.accountId };
    await capture(moved, '31/08/2026', 200);
    const m2 = await makeTerm(h, { serviceCode: 'WATER3', ...month('M2', 8) });
    for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term']] as const) assert.equal((await step(h, n, a, { termID: m2 })).status, 200);
    // correct-reading of the copy itself is refused now (the term reads it as at approval) ...
    const copy = await h.db.query(`SELECT reading_id FROM reading WHERE subscription_id = $1 AND source = 'move'`, [moved.subscriptionId]);
    const direct = await h.post('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(copy.rows[0].reading_id), value: '150', readingDate: '14/08/2026' }), h.tokens.biller);
    assert.equal(direct.status, 409);
    // ... and so is the closing reading that would carry into it.
    const closing = () => h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(old!.subscriptionId), inputCode: 'METER', readingDate: '14/08/2026', value: 150 }] }), h.tokens.biller);
    const refused = await closing();
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.message, new RegExp(`whose term ${m2} is Approved`));
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: m2 })).status, 200);
    await waitForStatus(h, m2, ['Processed']);
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: m2 })).status, 200);
    // Billed, the new one keeps its start; the old one's closing reading is taken, and its
    // bill waits for the new one's to be rebilled from it.
    assert.equal((await closing()).status, 200);
    const m1 = await postedWithFailures({ serviceCode: 'WATER3', ...month('M1', 8) });
    const failed = (await ok('/billing/terms/get-failures', { ...envelope('Retrieve', 'Retrieve Term Failures', { termID: m1 }), operation: 'schedule' })).failures as any[];
    assert.deepEqual(failed.map((f) => [f.subscriptionID, f.code]), [[Number(old!.subscriptionId), 'LATER_BILL_OVERLAP']]);
    await ok('/billing/bills/cancel-bill', envelope('Update', 'Cancel Bill', { billID: (await billOf(moved, m2)).billID, reason: 'closing reading of 14/08' }));
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: m1 })).status, 200);
    await waitForStatus(h, m1, ['Posted']);
    // 100 to 200 is 100 m3 in all.
    assert.deepEqual([await liveWater(old!), await liveWater(moved)], [[[m1, '50']], [[m2, '50']]]);
  });

  test('D5: retry-failures on a Posted term announces bill.posted again for every bill posted before', async () => {
    await h.db.query(`INSERT INTO webhook_endpoint (app_code, url, event_types, secret, created_by, modified_by) VALUES ($1, 'http://127.0.0.1:9/x', '{bill.posted}', 'whsec_x', 't', 't')`, [h.appCode]);
    const [a, b] = await subscriptions(h, { n: 2, batchCode: 'Z4', readingsOf: (i) => (i === 0 ? [['2026-07-31', 100], ['2026-08-31', 120]] : [['2026-07-31', 100]]) });
    const aug = await postedWithFailures(month('Z4', 8));
    await capture(b!, '31/08/2026', 130);
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID: aug })).status, 200);
    await waitForStatus(h, aug, ['Posted']);
    const ev = await h.db.query(`SELECT e.source_id::text AS bill, count(*)::int AS n FROM event e JOIN bill b ON b.bill_id = e.source_id WHERE e.type = 'bill.posted' AND b.term_id = $1 GROUP BY 1 ORDER BY 1`, [aug]);
    assert.deepEqual(ev.rows.map((r) => r.n), [1, 1], JSON.stringify(ev.rows));
    void a;
  });
});

import { startHarness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { makeTemplate } from '../terms/fixtures.ts';

describe('review: a Posted term in its retry round', () => {
  test('D6: cancel-term takes a Posted term while its retry is Scheduled (its posted bills stay in the ledger)', async () => {
    const h = await startHarness({});
    let worker = await startWorker(h.db, h.config, 2);
    try {
      await makeTemplate(h, tariff());
      const [, b] = await subscriptions(h, { n: 2, batchCode: 'Z1', readingsOf: (i) => (i === 0 ? [['2026-07-31', 100], ['2026-08-31', 120]] : [['2026-07-31', 100]]) });
      const termID = await makeTerm(h, { batchCode: 'Z1', billingPeriodID: 202608, startDate: '01/08/2026', endDate: '31/08/2026' });
      for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) assert.equal((await step(h, n, a, { termID })).status, 200);
      await waitForStatus(h, termID, ['Processed']);
      assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
      await worker.stop();
      await h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(b!.subscriptionId), inputCode: 'METER', readingDate: '31/08/2026', value: 130 }] }), h.tokens.biller);
      assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID })).status, 200);
      const c = await step(h, 'cancel-term', 'Cancel Term', { termID });
      const t = await h.db.query(`SELECT t.status, (SELECT count(*)::int FROM bill WHERE term_id = t.term_id AND status = 'posted') AS posted FROM term t WHERE term_id = $1`, [termID]);
      assert.notEqual(c.status, 200, `cancel-term answered ${c.status}; term now ${JSON.stringify(t.rows[0])}`);
      worker = await startWorker(h.db, h.config, 2);
    } finally {
      await worker.stop().catch(() => {});
      await h.close();
    }
  });
});
