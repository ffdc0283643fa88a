// Issue 9, defect 11: the calendar was not checked. A reading dated after the app's today
// was accepted by every way in, a term was processed before its end without a word, and
// a due date before the bills' date passed silently. The harness pins the database's
// today to TEST_TODAY (31/01/2027); the app's clock is migration 007's billrun_today.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, TEST_TODAY, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, step, subscriptions, type Sub } from '../terms/fixtures.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const TODAY = '31/01/2027';
const TOMORROW = '01/02/2027';

describe('the calendar: future readings, terms before their end, due dates passed', () => {
  let h: Harness;
  let subs: Sub[];
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
    subs = await subscriptions(h, { n: 3, batchCode: 'Z4', readings: [['2026-12-31', 100]] });
    assert.equal(TEST_TODAY, '2027-01-31');
  });
  after(async () => h.close());

  const reading = (s: Sub, readingDate: string, value: number) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate, value });
  const refusedAt = (r: { status: number; body: any }, path: string) => {
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    const d = r.body.error.details.find((x: { path: string }) => x.path === path);
    assert.ok(d, `${path} in ${JSON.stringify(r.body.error.details)}`);
    assert.match(d.message, /after today \(31\/01\/2027 in the app's time zone\)/);
  };

  test('capture-readings, correct-reading and a readings import refuse a reading dated after today; today itself is fine', async () => {
    const capture = (rows: unknown[]) => h.post('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: rows }), h.tokens.biller);
    refusedAt(await capture([reading(subs[0]!, '15/01/2027', 120), reading(subs[0]!, TOMORROW, 130)]), 'data.readings[1].readingDate');
    refusedAt(await capture([reading(subs[0]!, '2027-02-01', 130)]), 'data.readings[0].readingDate');
    const ok = await capture([reading(subs[0]!, TODAY, 130)]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const id = Number(ok.headers.get('x-billrun-reading-ids'));
    refusedAt(await h.post('/billing/readings/correct-reading', env('Update', 'Correct Reading', { readingID: id, value: 131, readingDate: TOMORROW }), h.tokens.biller), 'data.readingDate');

    const json = await h.post('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'readings', rows: [reading(subs[1]!, TOMORROW, 140)] }), h.tokens.biller);
    refusedAt(json, 'data.rows[0].readingDate');
    const csv = await h.request('POST', '/billing/imports/upload-import?kind=readings', {
      token: h.tokens.biller,
      raw: `subscriptionID,inputCode,readingDate,value\n${subs[1]!.subscriptionId},METER,${TOMORROW},140\n`,
      headers: { 'content-type': 'text/csv' },
    });
    refusedAt(csv, 'rows[2].readingDate');
    const stored = await h.db.query(`SELECT 1 FROM reading WHERE subscription_id = ANY($1::bigint[]) AND reading_date > $2`, [subs.map((s) => s.subscriptionId), TEST_TODAY]);
    assert.equal(stored.rowCount, 0);
  });

  test("a term's capture-readings refuses a future reading; validate-term warns of a term not ended; process-term bills it all the same", async () => {
    const termID = await makeTerm(h, { batchCode: 'Z4', billingPeriodID: 202702, startDate: '01/02/2027', endDate: '28/02/2027' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    refusedAt(await step(h, 'capture-readings', 'Capture Term Readings', { termID, readings: [reading(subs[2]!, '05/02/2027', 150)] }), 'data.readings[0].readingDate');
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.deepEqual(v.body.data.warnings.map((w: { code: string; path: string }) => [w.code, w.path]), [['TERM_NOT_ENDED', 'data.termID']]);
    assert.match(v.body.data.warnings[0].message, /ends on 28\/02\/2027, after today \(31\/01\/2027\)/);
    // Warned, not refused (docs/bill-run.md): billing a leaving customer early is sometimes meant.
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
  });

  test('validate-term warns when the due date is before today, the date a run now gives the bills', async () => {
    const termID = await makeTerm(h, { batchCode: 'Z4', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026', dueDate: '14/01/2027' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.deepEqual(v.body.data.warnings.map((w: { code: string }) => w.code), ['DUE_DATE_PASSED']);
    assert.match(v.body.data.warnings[0].message, /due on 14\/01\/2027, before today \(31\/01\/2027\)/);
  });

  test("without a pin, the app's today is the date in its own time zone", async () => {
    const c = await h.db.connect();
    try {
      await c.query("SET billrun.today = ''");
      const r = await c.query<{ ok: boolean }>(
        `SELECT bool_and(billrun_today(z) = (now() AT TIME ZONE z)::date) AS ok FROM unnest(ARRAY['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Africa/Nairobi']) z`,
      );
      assert.equal(r.rows[0]!.ok, true);
    } finally {
      await c.query('RESET billrun.today');
      c.release();
    }
  });
});
