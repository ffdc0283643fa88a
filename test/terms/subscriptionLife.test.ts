// A subscription's life (suspended, moved, terminated, connected mid-term) through the
// REAL subscription and reading operations over HTTP, then the bill run over HTTP, with
// every bill worked out by hand. The November 2026 term has 30 days.
//
// The tariff (fixtures.ts): standing charge 150.00 flat (prorated by the days billed);
// water graduated 10 m3 at 50, up to 30 at 70, above at 90 (not prorated: consumption
// comes from the readings); sewer 10% of water; VAT 16% of the three.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { makeTemplate, makeTerm, step, termOf, waitForStatus } from './fixtures.ts';
import { readTerm } from '../../src/billRun/termStore.ts';
import { clearRoster, loadRosterSideBySide } from '../../src/billRun/roster.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

type Bill = { subscriptionID: number; periodStart: string; periodEnd: string; charges: string; tax: string; total: string; lines: any[] };

describe('subscriptions through their life, billed by the bill run', () => {
  let h: Harness;
  let worker: Runner;
  const ids: Record<string, number> = {};

  async function ok(path: string, body: unknown) {
    const r = await h.post(path, body, h.tokens.biller);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    return r;
  }
  const sub = (verb: string, action: string, data: Record<string, unknown>) => ok(`/billing/subscriptions/${verb}-subscription`, envelope('Update', action, data));
  const read = (subscriptionID: number, readingDate: string, value: number) =>
    ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID, inputCode: 'METER', readingDate, value }] }));

  /** An account with one subscription to WATER, its opening reading on its start date. */
  async function connect(name: string, o: { batchCode?: string; startDate?: string; opening?: number } = {}): Promise<number> {
    await ok('/billing/accounts/make-account', envelope('Create', 'Create Account', { accountNumber: `LIFE-${name}`, name: `Customer ${name}` }));
    const r = await ok(
      '/billing/subscriptions/make-subscription',
      envelope('Create', 'Create Subscription', {
        accountNumber: `LIFE-${name}`,
        serviceCode: 'WATER',
        batchCode: o.batchCode ?? 'ZONE-A',
        startDate: o.startDate ?? '31/10/2026',
        openingReadings: { METER: o.opening ?? 100 },
      }),
    );
    ids[name] = Number(r.headers.get('x-billrun-subscription-id'));
    return ids[name]!;
  }

  async function billsOf(termID: number): Promise<Map<number, Bill>> {
    const r = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return new Map((r.body.data.bills as Bill[]).map((b) => [b.subscriptionID, b]));
  }
  const line = (b: Bill, code: string) => b.lines.find((l) => l.componentCode === code);
  const amounts = (b: Bill) => b.lines.map((l) => [l.componentCode, l.amount]);

  before(async () => {
    h = await startHarness();
    worker = await startWorker(h.db, h.config, 2);
    await makeTemplate(h);

    // steady: connected all term, 100 -> 130 (30 m3), the control.
    await connect('steady');
    // pause: suspended from 11 November, resumed on 21 November: 11 to 20 are not billed.
    await connect('pause');
    await sub('suspend', 'Suspend Subscription', { subscriptionID: ids.pause, date: '11/11/2026', reason: 'away' });
    await sub('resume', 'Resume Subscription', { subscriptionID: ids.pause, date: '21/11/2026' });
    // away: suspended from 1 November, resumed on 1 December: no day of the term is billed.
    await connect('away');
    await sub('suspend', 'Suspend Subscription', { subscriptionID: ids.away, date: '01/11/2026' });
    await sub('resume', 'Resume Subscription', { subscriptionID: ids.away, date: '01/12/2026' });
    // mover: read on 15 November (the closing reading), moved to ZONE-B from 16 November.
    await connect('mover');
    await read(ids.mover!, '15/11/2026', 112);
    const moved = await sub('move', 'Move Subscription', { subscriptionID: ids.mover, date: '16/11/2026', batchCode: 'ZONE-B' });
    ids.moverB = Number(moved.headers.get('x-billrun-subscription-id'));
    // leaver: closing reading on 10 November, terminated that day.
    await connect('leaver');
    await read(ids.leaver!, '10/11/2026', 105);
    await sub('terminate', 'Terminate Subscription', { subscriptionID: ids.leaver, endDate: '10/11/2026', reason: 'moved away' });
    // newcomer: a new connection on 21 November, its opening reading 500 that day.
    await connect('newcomer', { startDate: '21/11/2026', opening: 500 });
    // drifter: read on 5 November, suspended from the 6th, moved to ZONE-B on the 16th while
    // suspended, resumed there on the 26th.
    await connect('drifter');
    await read(ids.drifter!, '05/11/2026', 103);
    await sub('suspend', 'Suspend Subscription', { subscriptionID: ids.drifter, date: '06/11/2026' });
    const drifted = await sub('move', 'Move Subscription', { subscriptionID: ids.drifter, date: '16/11/2026', batchCode: 'ZONE-B' });
    ids.drifterB = Number(drifted.headers.get('x-billrun-subscription-id'));
    await sub('resume', 'Resume Subscription', { subscriptionID: ids.drifterB, date: '26/11/2026' });
  });
  after(async () => {
    await worker.stop();
    await h.close();
  });

  test('the operations left the history the bill run reads', async () => {
    const r = await h.post('/billing/subscriptions/get-subscriptions', envelope('Retrieve', 'Retrieve Subscriptions', { subscriptionID: ids.drifterB }));
    const s = r.body.data.subscriptions[0];
    assert.equal(s.startDate, '16/11/2026');
    assert.equal(s.batchCode, 'ZONE-B');
    // moved while suspended: the new subscription's history starts suspended
    assert.deepEqual(
      s.events.map((e: any) => [e.kind, e.date]),
      [
        ['moved_in', '16/11/2026'],
        ['suspended', '16/11/2026'],
        ['resumed', '26/11/2026'],
      ],
    );
    const carried = await h.post('/billing/readings/get-readings', envelope('Retrieve', 'Retrieve Readings', { subscriptionID: ids.moverB }));
    assert.deepEqual(
      carried.body.data.readings.map((x: any) => [x.readingDate, x.value, x.source]),
      [['15/11/2026', '112', 'move']],
    );
  });

  test('ZONE-A: suspended days not billed, the all-term suspension not on the roster, the moved-out, terminated and new subscriptions billed their part', async () => {
    const termID = await makeTerm(h);
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    let t = await termOf(h, { termID });
    // steady, pause, mover, leaver, newcomer, drifter; not away
    assert.equal(t.counts.subscriptions, 6);
    const roster = await h.db.query('SELECT subscription_id::int AS id FROM term_subscription WHERE term_id = $1 ORDER BY 1', [termID]);
    assert.deepEqual(
      roster.rows.map((x) => x.id),
      [ids.steady, ids.pause, ids.mover, ids.leaver, ids.newcomer, ids.drifter],
    );
    // The plan loads a skipped roster in two halves of the batch's ids side by side
    // (loadRosterSideBySide, from 50,000 ids apart): split here at any size, the same roster.
    const term = (await readTerm(h.db, String(termID)))!;
    await clearRoster(h.db, term.term_id);
    assert.equal(await loadRosterSideBySide(h.db, term, 1), 6);
    const halves = await h.db.query('SELECT subscription_id::int AS id FROM term_subscription WHERE term_id = $1 ORDER BY 1', [termID]);
    assert.deepEqual(halves.rows, roster.rows);

    // The officer's term readings. A subscription that ended on 10 November cannot take a
    // reading of 30 November (it would bill what the next occupant uses).
    const late = await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: [{ subscriptionID: ids.leaver, inputCode: 'METER', readingDate: '30/11/2026', value: 140 }],
    });
    assert.equal(late.status, 400, JSON.stringify(late.body));
    assert.equal(late.body.error.details[0].path, 'data.readings[0].readingDate');
    assert.match(late.body.error.details[0].message, /after the subscription's end date 10\/11\/2026/);
    const captured = await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: [
        { subscriptionID: ids.steady, inputCode: 'METER', readingDate: '30/11/2026', value: 130 },
        { subscriptionID: ids.pause, inputCode: 'METER', readingDate: '30/11/2026', value: 120 },
        { subscriptionID: ids.newcomer, inputCode: 'METER', readingDate: '30/11/2026', value: 503 },
      ],
    });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    t = await termOf(h, { termID });
    // every roster subscription has a reading in its part of the term (the mover's, the
    // leaver's and the drifter's closing ones; the newcomer's opening one does not count)
    assert.equal(t.counts.readings, 6);

    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const v = validated.body.data;
    assert.deepEqual(
      v.exceptions.filter((e: any) => e.severity === 'error'),
      [],
    );
    assert.equal(v.preview.bills, 6);
    assert.equal(v.preview.failures, 0);
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    t = await waitForStatus(h, termID, ['Processed']);
    assert.equal(t.counts.bills, 6);
    assert.equal(t.counts.failures, 0);
    assert.deepEqual(t.totals, v.preview.totals);

    const bills = await billsOf(termID);
    assert.equal(bills.size, 6);
    assert.equal(bills.has(ids.away!), false);
    for (const b of bills.values()) {
      const preview = v.previewBills.find((p: any) => p.subscriptionID === b.subscriptionID);
      assert.deepEqual(
        b.lines.map((l: any) => ({ componentCode: l.componentCode, name: l.name, quantity: l.quantity, ...(l.rate ? { rate: l.rate } : {}), amount: l.amount, ...(l.prorated ? { prorated: l.prorated } : {}) })),
        preview.lines,
        `the preview of ${b.subscriptionID} is its bill`,
      );
    }

    // steady, 30 days, 30 m3: standing 150.00; water 10 x 50 + 20 x 70 = 1900.00; sewer
    // 190.00; VAT 16% of 2240.00 = 358.40.
    const steady = bills.get(ids.steady!)!;
    assert.deepEqual(amounts(steady), [['STANDING', '150.00'], ['WATER', '1900.00'], ['SEWER', '190.00'], ['VAT', '358.40']]);
    assert.equal(steady.total, '2598.40');

    // pause, suspended 11 to 20 November: 30 - 10 = 20 days billed. Standing 150 x 20/30 =
    // 100.00; water 100 -> 120, 20 m3 = 10 x 50 + 10 x 70 = 1200.00 (from the readings,
    // not prorated); sewer 120.00; VAT 16% of 1420.00 = 227.20.
    const pause = bills.get(ids.pause!)!;
    assert.deepEqual(amounts(pause), [['STANDING', '100.00'], ['WATER', '1200.00'], ['SEWER', '120.00'], ['VAT', '227.20']]);
    assert.deepEqual([pause.charges, pause.tax, pause.total], ['1420.00', '227.20', '1647.20']);
    assert.deepEqual([pause.periodStart, pause.periodEnd], ['01/11/2026', '30/11/2026']);
    const standing = line(pause, 'STANDING');
    assert.deepEqual(
      { ...standing.trace.proration, after: undefined },
      { activeDays: 20, termDays: 30, factor: '20/30', before: '150', after: undefined, suspendedDays: 10, suspended: [{ start: '2026-11-11', end: '2026-11-20' }] },
    );
    assert.match(standing.explanation, /prorated 20\/30 days \(10 day\(s\) suspended, not billed: 11\/11\/2026 to 20\/11\/2026\)/);

    // mover, 1 to 15 November in ZONE-A: standing 150 x 15/30 = 75.00; water 100 -> 112
    // (its closing reading), 12 m3 = 10 x 50 + 2 x 70 = 640.00; sewer 64.00; VAT 16% of
    // 779.00 = 124.64.
    const mover = bills.get(ids.mover!)!;
    assert.deepEqual(amounts(mover), [['STANDING', '75.00'], ['WATER', '640.00'], ['SEWER', '64.00'], ['VAT', '124.64']]);
    assert.equal(mover.total, '903.64');
    assert.deepEqual([mover.periodStart, mover.periodEnd], ['01/11/2026', '15/11/2026']);
    assert.deepEqual(
      [line(mover, 'WATER').trace.reading.previous, line(mover, 'WATER').trace.reading.current],
      [
        { date: '2026-10-31', value: '100' },
        { date: '2026-11-15', value: '112' },
      ],
    );

    // leaver, 1 to 10 November: standing 150 x 10/30 = 50.00; water 100 -> 105, 5 m3 =
    // 250.00; sewer 25.00; VAT 16% of 325.00 = 52.00.
    const leaver = bills.get(ids.leaver!)!;
    assert.deepEqual(amounts(leaver), [['STANDING', '50.00'], ['WATER', '250.00'], ['SEWER', '25.00'], ['VAT', '52.00']]);
    assert.equal(leaver.total, '377.00');
    assert.deepEqual([leaver.periodStart, leaver.periodEnd], ['01/11/2026', '10/11/2026']);

    // newcomer, 21 to 30 November: standing 150 x 10/30 = 50.00; water from its opening
    // reading, 500 -> 503, 3 m3 = 150.00; sewer 15.00; VAT 16% of 215.00 = 34.40.
    const newcomer = bills.get(ids.newcomer!)!;
    assert.deepEqual(amounts(newcomer), [['STANDING', '50.00'], ['WATER', '150.00'], ['SEWER', '15.00'], ['VAT', '34.40']]);
    assert.equal(newcomer.total, '249.40');
    assert.deepEqual([newcomer.periodStart, newcomer.periodEnd], ['21/11/2026', '30/11/2026']);
    assert.deepEqual(line(newcomer, 'WATER').trace.reading.previous, { date: '2026-11-21', value: '500' });

    // drifter in ZONE-A, connected 1 to 15, suspended 6 to 15: 5 days. Standing 150 x 5/30
    // = 25.00; water 100 -> 103 (5 November), 3 m3 = 150.00; sewer 15.00; VAT 16% of
    // 190.00 = 30.40.
    const drifter = bills.get(ids.drifter!)!;
    assert.deepEqual(amounts(drifter), [['STANDING', '25.00'], ['WATER', '150.00'], ['SEWER', '15.00'], ['VAT', '30.40']]);
    assert.equal(drifter.total, '220.40');

    // 2240 + 1420 + 779 + 325 + 215 + 190 = 5169.00; 358.40 + 227.20 + 124.64 + 52.00 + 34.40 + 30.40 = 827.04
    assert.deepEqual([t.totals.charges, t.totals.tax, t.totals.total], ['5169.00', '827.04', '5996.04']);
  });

  test('ZONE-B: the moved-in subscriptions billed from their move date, from the carried reading, by the run with skipped steps', async () => {
    const termID = await makeTerm(h, { batchCode: 'ZONE-B' });
    // steps 2 to 5 skipped: the run loads the roster and makes its own check of the readings
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const captured = await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: [
        { subscriptionID: ids.moverB, inputCode: 'METER', readingDate: '30/11/2026', value: 130 },
        { subscriptionID: ids.drifterB, inputCode: 'METER', readingDate: '30/11/2026', value: 106 },
      ],
    });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t.exceptions));
    assert.equal(t.counts.bills, 2);
    const bills = await billsOf(termID);

    // moverB, 16 to 30 November: standing 150 x 15/30 = 75.00; water 112 (carried, 15
    // November) -> 130, 18 m3 = 10 x 50 + 8 x 70 = 1060.00; sewer 106.00; VAT 16% of
    // 1241.00 = 198.56. With the ZONE-A bill, 12 + 18 = 30 m3: nothing billed twice.
    const moverB = bills.get(ids.moverB!)!;
    assert.deepEqual(amounts(moverB), [['STANDING', '75.00'], ['WATER', '1060.00'], ['SEWER', '106.00'], ['VAT', '198.56']]);
    assert.equal(moverB.total, '1439.56');
    assert.deepEqual([moverB.periodStart, moverB.periodEnd], ['16/11/2026', '30/11/2026']);
    assert.deepEqual(line(moverB, 'WATER').trace.reading.previous, { date: '2026-11-15', value: '112' });

    // drifterB, 16 to 30 November, suspended (carried over by the move) until the 26th:
    // 15 - 10 = 5 days. Standing 25.00; water 103 (carried, 5 November) -> 106, 3 m3 =
    // 150.00; sewer 15.00; VAT 30.40.
    const drifterB = bills.get(ids.drifterB!)!;
    assert.deepEqual(amounts(drifterB), [['STANDING', '25.00'], ['WATER', '150.00'], ['SEWER', '15.00'], ['VAT', '30.40']]);
    assert.deepEqual(line(drifterB, 'STANDING').trace.proration.suspended, [{ start: '2026-11-16', end: '2026-11-25' }]);
  });

  test('a new connection without a reading after its opening one is a MISSING_READING that names the opening reading', async () => {
    await connect('late', { batchCode: 'Z1', startDate: '21/11/2026', opening: 700 });
    const termID = await makeTerm(h, { batchCode: 'Z1' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Failed');
    assert.deepEqual(
      t.exceptions.map((e: any) => [e.subscriptionID, e.code, e.message]),
      [[ids.late, 'MISSING_READING', 'no reading of METER dated in the term after the one of 21/11/2026']],
    );
  });
});
