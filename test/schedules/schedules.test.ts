// Bill-cycle schedules end to end through HTTP with a real worker: a test app's clock moved
// to the first of February makes February's term by itself, moved to the first of March
// loads and validates it (and makes March's); with autoProcess the term is approved and
// processed to bills; a run repeated makes nothing twice; a paused schedule does nothing;
// what each run did is read back through get-schedule-runs. Today is pinned to 31/01/2027
// (test/support/harness.ts); app A is in Africa/Nairobi.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, subscriptions, tariff, termOf, waitForStatus } from '../terms/fixtures.ts';
import { eventually } from '../documents/support.ts';
import { queueNewDays } from '../../src/schedules/store.ts';
import { SCHEDULE_TASKS } from '../../src/schedules/tasks.ts';

const body = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });

describe('bill-cycle schedules', () => {
  let h: Harness;
  let close: () => Promise<void>;
  const make = (data: Record<string, unknown>, token?: string) => h.post('/billing/schedules/make-schedule', body('Create', 'Create Schedule', data), token);
  const list = async (data: Record<string, unknown> = {}) => {
    const r = await h.post('/billing/schedules/get-schedules', body('Retrieve', 'Retrieve Schedules', data), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.schedules as any[];
  };
  /** The schedule a make-schedule answer names in its header, as get-schedules shows it. */
  const made = async (r: { headers: Headers }) => {
    const id = Number(r.headers.get('x-billrun-schedule-id'));
    assert.ok(id > 0, `make-schedule named no schedule`);
    const [schedule] = await list({ scheduleID: id });
    return schedule;
  };
  const runs = async (data: Record<string, unknown> = {}) => {
    const r = await h.post('/billing/schedules/get-schedule-runs', body('Retrieve', 'Retrieve Schedule Runs', data), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.runs as any[];
  };
  /** Moves the app's clock forward by whole days (the pinned today moves with it) and checks the day it shows. */
  const setClock = async (days: number, today: string) => {
    const r = await h.post('/admin/set-clock', body('Update', 'Set Clock', { days }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const app = await h.post('/admin/get-app', body('Retrieve', 'Retrieve App'));
    assert.equal(app.body.data.app.clock.today, today);
  };
  /** Waits until the app's run of `iso` has finished after `since`. */
  const finished = (iso: string, since: Date) =>
    eventually(async () => {
      const d = await h.db.query(`SELECT 1 FROM bill_schedule_day WHERE app_code = $1 AND run_date = $2 AND finished_at > $3`, [h.appCode, iso, since]);
      return d.rowCount === 1 ? true : undefined;
    }, `the schedules' run of ${iso} finished`, 60_000);
  /** run-schedules through HTTP, then waits for the job. */
  const runNow = async (expect: string) => {
    const since = (await h.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
    const r = await h.post('/billing/schedules/run-schedules', body('Create', 'Run Schedules'), h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, {});
    assert.equal(r.headers.get('x-billrun-run-date'), expect);
    const [d, m, y] = expect.split('/');
    await finished(`${y}-${m}-${d}`, since);
  };
  const terms = async (batchCode: string) => {
    const r = await h.post('/billing/terms/get-terms', { ...body('Retrieve', 'Retrieve Terms', { serviceCode: 'WATER', batchCode }), operation: 'schedule' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.data.terms as any[]).sort((a, b) => a.billingPeriodID - b.billingPeriodID);
  };

  before(async () => {
    ({ h, close } = await startRun({}, [tariff(), tariff('YEARLY', { billingCycle: 5 })]));
    const r = await h.post('/admin/update-app', body('Update', 'Update App', { testApp: true }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // Three customers in ZONE-A (waits for approval), two in ZONE-B (processed by the schedule).
    await subscriptions(h, { n: 3, batchCode: 'ZONE-A', prefix: 'SA', readings: [['2027-01-31', 100], ['2027-02-28', 112]] });
    await subscriptions(h, { n: 2, batchCode: 'ZONE-B', prefix: 'SB', readings: [['2027-01-31', 50], ['2027-02-28', 60]] });
  });
  after(() => close());

  let manual: any;
  let auto: any;

  test('made by a biller for a template and batch; bad input refused with the field named, nothing made', async () => {
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ serviceCode: 'NOPE', batchCode: 'ZONE-A', startDate: '01/02/2027' }, 404, 'NOT_FOUND', 'data.serviceCode'],
      [{ serviceCode: 'WATER', batchCode: 'NOPE', startDate: '01/02/2027' }, 404, 'NOT_FOUND', 'data.batchCode'],
      [{ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '30/02/2027' }, 400, 'VALIDATION_FAILED', 'data.startDate'],
      [{ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '2027-02-01' }, 400, 'VALIDATION_FAILED', 'data.startDate'],
      [{ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '31/12/9999' }, 400, 'VALIDATION_FAILED', 'data.startDate'], // a fuzzer's: its first period ended in the year 10000
      [{ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/02/2027', cycle: 2 }, 400, 'VALIDATION_FAILED', 'data.cycle'],
    ];
    for (const [data, status, code, path] of cases) {
      const r = await make(data);
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.equal(r.body.error.code, code);
      assert.ok(JSON.stringify(r.body.error.details).includes(path), JSON.stringify(r.body.error));
    }
    const byViewer = await make({ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/02/2027' }, h.tokens.viewer);
    assert.equal(byViewer.status, 403);
    assert.equal((await h.db.query('SELECT 1 FROM bill_schedule')).rowCount, 0);

    const a = await make({ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/02/2027' }, h.tokens.biller);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    // product.md: a create answers data {} and the new id in a header.
    assert.deepEqual(a.body.data, {});
    manual = await made(a);
    assert.equal(manual.cycle, 'Monthly');
    assert.equal(manual.cycleMonths, 1);
    assert.equal(manual.autoProcess, false);
    assert.equal(manual.status, 'active');
    assert.equal(manual.createdBy, 'biller@a.test');
    assert.deepEqual(manual.nextPeriod, { billingPeriodID: 202702, startDate: '01/02/2027', endDate: '28/02/2027' });
    const again = await make({ serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/03/2027' });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.error.code, 'CONFLICT');

    const b = await make({ serviceCode: 'WATER', batchCode: 'ZONE-B', startDate: '01/02/2027', autoProcess: true });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    auto = await made(b);
    // A yearly template: its cycle is read from the template. Started in the past (the 29th
    // of February 2024), its first term is the one of the year holding today: 2026 has no
    // 29 February, so that year starts on the 28th and ends the day before 28/02/2027.
    const yearly = await make({ serviceCode: 'YEARLY', batchCode: 'Z1', startDate: '29/02/2024' });
    assert.equal(yearly.status, 200, JSON.stringify(yearly.body));
    const yearlyMade = await made(yearly);
    assert.equal(yearlyMade.cycle, 'Yearly');
    assert.deepEqual(yearlyMade.nextPeriod, { billingPeriodID: 202602, startDate: '28/02/2026', endDate: '27/02/2027' });

    assert.deepEqual((await list({ status: 'active' })).map((s) => s.scheduleID), [manual.scheduleID, auto.scheduleID, yearlyMade.scheduleID]);
    assert.deepEqual((await list({ batchCode: 'ZONE-B' })).map((s) => s.scheduleID), [auto.scheduleID]);
  });

  test("on 31/01 February has not begun: the run makes only the yearly schedule's term", async () => {
    await runNow('31/01/2027');
    assert.deepEqual(await terms('ZONE-A'), []);
    const yearly = await h.post('/billing/terms/get-terms', { ...body('Retrieve', 'Retrieve Terms', { serviceCode: 'YEARLY' }), operation: 'schedule' });
    assert.deepEqual(
      yearly.body.data.terms.map((t: any) => [t.billingPeriodID, t.startDate, t.endDate, t.status]),
      [[202602, '28/02/2026', '27/02/2027', 'Draft']],
    );
  });

  test("the clock moved to 1 February: February's terms are made, once however often the run goes", async () => {
    await setClock(1, '01/02/2027');
    await runNow('01/02/2027');
    await runNow('01/02/2027');
    const a = await terms('ZONE-A');
    assert.deepEqual(
      a.map((t) => [t.billingPeriodID, t.startDate, t.endDate, t.status, t.createdBy]),
      [[202702, '01/02/2027', '28/02/2027', 'Draft', `schedule:${manual.scheduleID}`]],
    );
    assert.equal((await terms('ZONE-B')).length, 1);
    const made = await runs({ scheduleID: manual.scheduleID });
    assert.deepEqual(
      made.map((r) => [r.runDate, r.step, r.outcome, r.billingPeriodID, r.termID]),
      [['01/02/2027', 'make-term', 'done', 202702, a[0].termID]],
    );
    assert.match(made[0].message, /made the term of 01\/02\/2027 to 28\/02\/2027/);
    assert.deepEqual((await list({ scheduleID: manual.scheduleID }))[0].nextPeriod, { billingPeriodID: 202703, startDate: '01/03/2027', endDate: '31/03/2027' });
  });

  test('the clock moved to 1 March (hourly tick): February is loaded and validated and waits; with autoProcess it is billed', async () => {
    await setClock(28, '01/03/2027');
    const since = (await h.db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
    // The crontab's tick: every app with an active schedule whose day has begun gets its run, once.
    assert.equal(await queueNewDays(h.db, SCHEDULE_TASKS.run), 1);
    assert.equal(await queueNewDays(h.db, SCHEDULE_TASKS.run), 0);
    await finished('2027-03-01', since);

    const [feb, mar] = await terms('ZONE-A');
    assert.equal(feb.status, 'Validated');
    assert.equal(feb.counts.subscriptions, 3);
    assert.equal(feb.counts.readings, 3);
    assert.equal(feb.modifiedBy, `schedule:${manual.scheduleID}`);
    assert.deepEqual([mar.billingPeriodID, mar.startDate, mar.endDate, mar.status], [202703, '01/03/2027', '31/03/2027', 'Draft']);
    const log = (await runs({ scheduleID: manual.scheduleID })).reverse();
    assert.deepEqual(
      log.map((r) => [r.runDate, r.step, r.outcome, r.billingPeriodID]),
      [
        ['01/02/2027', 'make-term', 'done', 202702],
        ['01/03/2027', 'make-term', 'done', 202703],
        ['01/03/2027', 'load-subscriptions', 'done', 202702],
        ['01/03/2027', 'validate-term', 'done', 202702],
        ['01/03/2027', 'close', 'done', 202702],
      ],
    );
    assert.match(log[2].message, /loaded 3 subscription\(s\), 3 with a reading/);
    assert.match(log[3].message, /3 bill\(s\) previewed, 0 failure\(s\)/);
    assert.match(log[4].message, /waits for approval/);

    const [febB] = await terms('ZONE-B');
    const done = await waitForStatus(h, febB.termID, ['Processed', 'Posted'], 60_000);
    assert.equal(done.counts.bills, 2);
    assert.equal(done.counts.failures, 0);
    const bills = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bill WHERE term_id = $1', [febB.termID]);
    assert.equal(bills.rows[0]!.n, 2);
    assert.deepEqual(
      (await runs({ scheduleID: auto.scheduleID })).reverse().map((r) => r.step),
      ['make-term', 'make-term', 'load-subscriptions', 'validate-term', 'approve-term', 'process-term', 'close'],
    );
    // The yearly term ended on 27/02: validated too; the next, from 28/02/2027, made.
    const yearly = await h.post('/billing/terms/get-terms', { ...body('Retrieve', 'Retrieve Terms', { serviceCode: 'YEARLY' }), operation: 'schedule' });
    assert.deepEqual(yearly.body.data.terms.map((t: any) => [t.billingPeriodID, t.status]).sort(), [[202602, 'Validated'], [202702, 'Draft']]);

    // Run the day again: nothing new.
    const before = (await runs()).length;
    await runNow('01/03/2027');
    assert.equal((await runs()).length, before);
    assert.equal((await terms('ZONE-A')).length, 2);
  });

  test('paused, a schedule does nothing; resumed, it goes on from the period of the day', async () => {
    const pausedByViewer = await h.post('/billing/schedules/pause-schedule', body('Update', 'Pause Schedule', { scheduleID: manual.scheduleID }), h.tokens.viewer);
    assert.equal(pausedByViewer.status, 403);
    const p = await h.post('/billing/schedules/pause-schedule', body('Update', 'Pause Schedule', { scheduleID: manual.scheduleID }), h.tokens.biller);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.data.schedule.status, 'paused');
    const twice = await h.post('/billing/schedules/pause-schedule', body('Update', 'Pause Schedule', { scheduleID: manual.scheduleID }));
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, 'INVALID_STATE');
    const missing = await h.post('/billing/schedules/pause-schedule', body('Update', 'Pause Schedule', { scheduleID: 999999 }));
    assert.equal(missing.status, 404);
    const otherApp = await h.post('/billing/schedules/get-schedule-runs', body('Retrieve', 'Retrieve Schedule Runs', { scheduleID: manual.scheduleID }), h.tokens.otherAdmin);
    assert.equal(otherApp.status, 404, "another app's schedule is not found");

    await setClock(62, '02/05/2027');
    const before = (await runs({ scheduleID: manual.scheduleID })).length;
    await runNow('02/05/2027');
    assert.equal((await runs({ scheduleID: manual.scheduleID })).length, before, 'paused: nothing done');
    assert.equal((await terms('ZONE-A')).length, 2);

    const r = await h.post('/billing/schedules/resume-schedule', body('Update', 'Resume Schedule', { scheduleID: manual.scheduleID }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.schedule.status, 'active');
    // April began and ended while paused: no term for it; May's is next.
    assert.deepEqual(r.body.data.schedule.nextPeriod, { billingPeriodID: 202705, startDate: '01/05/2027', endDate: '31/05/2027' });
    await runNow('02/05/2027');
    const a = await terms('ZONE-A');
    assert.deepEqual(
      a.map((t) => [t.billingPeriodID, t.status]),
      [[202702, 'Validated'], [202703, 'Validated'], [202705, 'Draft']],
    );
    const errors = await runs({ outcome: 'error' });
    assert.deepEqual(errors, []);
  });

  test('a step refused is recorded with its error code; the schedule waits at that period', async () => {
    // June's billing period taken by a term made by hand with other dates: the schedule cannot make its own.
    const hand = await h.post(
      '/billing/terms/make-term',
      { ...body('Create', 'Create Bill Term', { serviceCode: 'WATER', batchCode: 'ZONE-A', billingPeriodID: 202706, startDate: '01/06/2027', endDate: '15/06/2027' }), operation: 'schedule' },
      h.tokens.biller,
    );
    assert.equal(hand.status, 200, JSON.stringify(hand.body));
    await setClock(30, '01/06/2027');
    await runNow('01/06/2027');
    const [err] = await runs({ scheduleID: manual.scheduleID, outcome: 'error' });
    assert.equal(err.step, 'make-term');
    assert.equal(err.billingPeriodID, 202706);
    assert.equal(err.errorCode, 'CONFLICT');
    assert.match(err.message, /01\/06\/2027 to 30\/06\/2027 could not be made/);
    // May's term was closed all the same, and the schedule still waits at June.
    const may = (await terms('ZONE-A')).find((t) => t.billingPeriodID === 202705);
    assert.equal(may.status, 'Validated');
    assert.equal((await list({ scheduleID: manual.scheduleID }))[0].nextPeriod.billingPeriodID, 202706);
    assert.ok(await termOf(h, { billingPeriodID: 202706, serviceCode: 'WATER', batchCode: 'ZONE-A' }));
  });
});
