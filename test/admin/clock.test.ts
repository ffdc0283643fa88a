// A test app's clock, end to end over HTTP with a real worker: refused on a live app, only
// forward, the app's today (bill dates, readings) follows it, a scheduled run is brought
// forward and started once the clock passes its sheduleTime, and another app's clock and
// dates do not move.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, termOf, waitForStatus } from '../terms/fixtures.ts';

const body = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });

/** A local yyyy-mm-ddThh:mm:ss moved by whole days (calendar arithmetic, no time zone). */
const plusDays = (local: string, days: number) => new Date(Date.parse(local + 'Z') + days * 86_400_000).toISOString().slice(0, 19);

describe("a test app's clock", () => {
  let h: Harness;
  let close: () => Promise<void>;
  const getApp = (token?: string) => h.post('/admin/get-app', body('Retrieve', 'Retrieve App'), token);
  const setClock = (data: Record<string, unknown>, token?: string) => h.post('/admin/set-clock', body('Update', 'Set Clock', data), token);
  const update = (data: Record<string, unknown>, token?: string) => h.post('/admin/update-app', body('Update', 'Update App', data), token);
  const clock = async (token?: string) => (await getApp(token)).body.data.app.clock as { now: string; today: string; aheadSeconds: number };
  const planJob = async (termID: number) =>
    (
      await h.db.query<{ run_at: Date; late: boolean }>(`SELECT run_at, run_at <= now() AS late FROM graphile_worker.jobs WHERE key = $1`, [`term:${termID}:plan`])
    ).rows[0];

  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
  });
  after(() => close());

  test('a live app runs on real time: its clock cannot be set', async () => {
    const before = await getApp();
    for (const data of [{ days: 3 }, { now: plusDays(before.body.data.app.clock.now, 3) }]) {
      const r = await setClock(data);
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'INVALID_STATE');
      assert.match(r.body.message, /live app always runs on real time/);
    }
    assert.equal((await clock()).aheadSeconds, 0);
    assert.equal((await h.db.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n, 0);
  });

  test('a test app moves forward only; today follows, for it alone', async () => {
    assert.equal((await update({ testApp: true })).status, 200);
    const start = await clock();
    assert.deepEqual([start.today, start.aheadSeconds], ['31/01/2027', 0]);
    const both = await setClock({ days: 1, now: plusDays(start.now, 1) });
    assert.equal(both.status, 400);
    const neither = await setClock({});
    assert.equal(neither.status, 400);
    const impossible = await setClock({ now: '2027-02-30T10:00:00' });
    assert.equal(impossible.status, 400);
    assert.equal(impossible.body.error.details[0].path, 'data.now');

    const r = await setClock({ days: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const moved = await clock();
    assert.equal(moved.today, '10/02/2027');
    assert.ok(Math.abs(moved.aheadSeconds - 10 * 86400) <= 2, String(moved.aheadSeconds));
    // The time zone's today on the clock: ledger reads (ageing counts days to it) follow too.
    const back = await setClock({ now: plusDays(start.now, 5) });
    assert.equal(back.status, 400);
    assert.match(back.body.error.details[0].message, /only moves forward/);
    // The now it shows may be set again: not a step back (shown to the second). Unless a
    // second ticked over between the read and the set (a loaded machine): then read again.
    let same = 0;
    for (let i = 0; i < 5 && same !== 200; i++) same = (await setClock({ now: (await clock()).now })).status;
    assert.equal(same, 200);
    assert.equal((await clock()).today, '10/02/2027');

    // A reading dated on the app's new today is accepted; on the day after, refused.
    const [sub] = await subscriptions(h, { n: 1, prefix: 'CLK', batchCode: 'ZONE-B', readings: [['2026-12-31', 10]] });
    const reading = (date: string, value: string) =>
      h.post('/billing/readings/capture-readings', body('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(sub!.subscriptionId), inputCode: 'METER', readingDate: date, value }] }));
    assert.equal((await reading('10/02/2027', '20')).status, 200);
    const future = await reading('11/02/2027', '30');
    assert.equal(future.status, 400, JSON.stringify(future.body));

    // App B (live) stays on real time and the pinned today.
    const b = await clock(h.tokens.otherAdmin);
    assert.deepEqual([b.today, b.aheadSeconds], ['31/01/2027', 0]);
    // A test app whose clock is ahead cannot go live.
    const live = await update({ testApp: false });
    assert.equal(live.status, 409);
    assert.equal(live.body.error.details[0].path, 'data.testApp');
    const entries = (await h.post('/admin/get-audit-log', body('Retrieve', 'Retrieve Audit Log', { action: 'app.clock' }))).body.data.entries;
    assert.equal(entries.length, 2);
    assert.equal(entries[1].before.clockAheadSeconds, 0);
    assert.ok(Math.abs(entries[1].after.clockAheadSeconds - 10 * 86400) <= 2, JSON.stringify(entries[1]));
    assert.equal(entries[1].after.now.slice(0, 10), plusDays(start.now, 10).slice(0, 10));
    assert.deepEqual((await h.post('/admin/get-audit-log', body('Retrieve', 'Retrieve Audit Log', {}), h.tokens.otherAdmin)).body.data.entries, []);
  });

  test('a scheduled run is brought forward with the clock and starts once the clock passes its sheduleTime; its bills are dated on the clock', async () => {
    await subscriptions(h, { n: 3, prefix: 'RUN', readings: [['2026-10-31', 100], ['2026-11-30', 112]] });
    const termID = await makeTerm(h);
    const now = (await clock()).now;
    const sheduleTime = plusDays(now, 3);
    const p = await step(h, 'process-term', 'Process Term', { termID, sheduleTime });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal((await termOf(h, { termID })).status, 'Scheduled');
    const first = (await planJob(termID))!;
    // Three days on the app's clock is three days of real time from now.
    assert.ok(Math.abs(first.run_at.getTime() - Date.now() - 3 * 86_400_000) < 60_000, first.run_at.toISOString());

    // One day on: the run comes a day nearer in real time, and waits.
    assert.equal((await setClock({ days: 1 })).status, 200);
    const second = (await planJob(termID))!;
    assert.ok(Math.abs(first.run_at.getTime() - second.run_at.getTime() - 86_400_000) < 5_000, `${first.run_at.toISOString()} → ${second.run_at.toISOString()}`);
    assert.equal((await termOf(h, { termID })).status, 'Scheduled');

    // Past the sheduleTime: the run starts now.
    assert.equal((await setClock({ now: plusDays(now, 4) })).status, 200);
    const done = await waitForStatus(h, termID, ['Processed'], 60_000);
    assert.deepEqual([done.counts.bills, done.counts.failures], [3, 0]);
    const today = (await clock()).today;
    assert.equal(today, '14/02/2027');
    const bills = await h.post('/billing/bills/get-bills', body('Retrieve', 'Retrieve Bills', { termID }));
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    assert.equal(bills.body.data.bills.length, 3);
    for (const b of bills.body.data.bills) assert.equal(b.billDate, today);
    const entry = (await h.post('/admin/get-audit-log', body('Retrieve', 'Retrieve Audit Log', { action: 'app.clock', limit: 1 }))).body.data.entries[0];
    assert.deepEqual(entry.after.runsBroughtForward, [termID]);

    // A run scheduled without a sheduleTime is scheduled at the app's now, and runs at once.
    const next = await makeTerm(h, { billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026', batchCode: 'ZONE-B' });
    const appNow = (await clock()).now;
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: next })).status, 200);
    const scheduled = await termOf(h, { termID: next });
    assert.ok(scheduled.job.sheduleTime >= appNow && scheduled.job.sheduleTime.slice(0, 10) === appNow.slice(0, 10), `${scheduled.job.sheduleTime} vs ${appNow}`);
    await waitForStatus(h, next, ['Processed', 'Failed'], 60_000);

    // Bills exist: currency and minor units are now fixed.
    const cur = await update({ currency: 'USD' });
    assert.equal(cur.status, 409);
    assert.equal(cur.body.error.details[0].path, 'data.currency');
  });
  // Last: the clock never moves back. A fuzzer moved one to the year 10402, and dates came back as 10102-12-08.
  test("the clock stops at the calendar's last day", async () => {
    // Far on, then a step past the last day (by the app's today: the tests pin a today ahead of the real one).
    assert.equal((await setClock({ now: '9999-09-01T00:00:00' })).status, 200);
    const last = await clock();
    for (const days of [365, 36500]) {
      const r = await setClock({ days });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.details[0].path, 'data.days');
      assert.match(r.body.error.details[0].message, /past 31\/12\/9999/);
    }
    assert.equal((await clock()).today, last.today);
    assert.match(last.today, /^\d{2}\/\d{2}\/9999$/);
  });
});
