// Issue 12 part 1 through HTTP: a tariff change in the middle of a term. The template is
// updated with effectiveFrom 16/04/2018 after the April term was made; the term's bills
// have two segments, the preview equals the bills, and each line names its version.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, startRun, step, subscriptions, tariff, waitForStatus } from '../terms/fixtures.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { doubledWater } from '../fixtures/tariffs.ts';

// Version 2: the standing charge and every water rate doubled.
const doubled = () => doubledWater(tariff());
const update = (h: Harness, service: ServiceDefinition, effectiveFrom?: string) =>
  h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service, ...(effectiveFrom === undefined ? {} : { effectiveFrom }) });
const versions = (h: Harness) =>
  h.post('/billing/services/get-service-versions', { method: 'Retrieve', action: 'Retrieve Package Versions', apiVersion: 'v2', serviceCode: 'WATER' });
const bills = (h: Harness, termID: number) => h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });

describe('a tariff change in the middle of a term', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({ billRunChunkSize: 2 }, [tariff()]));
  });
  after(() => close());

  test('update-service refuses a date that is not one, and changes nothing', async () => {
    const r = await update(h, doubled(), '31/02/2018');
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    assert.equal(r.body.error.details[0].path, 'effectiveFrom');
    assert.equal((await versions(h)).body.data.paging.total, 1);
  });

  test('bills in two segments, one per version; the preview equals the bills; lines name version and dates', async () => {
    const [a, b] = await subscriptions(h, {
      n: 2,
      batchCode: 'Z1',
      // a: 30 m3 in April, shared by days; b: a reading on the change date, 10 m3 before it and 20 after
      readingsOf: (i) => (i === 0 ? [['2018-03-31', 100], ['2018-04-30', 130]] : [['2018-03-31', 100], ['2018-04-16', 110], ['2018-04-30', 130]]),
    });
    // The term is made with version 1; the change is saved afterwards, dated inside it.
    const termID = await makeTerm(h, { batchCode: 'Z1', billingPeriodID: 201804, startDate: '01/04/2018', endDate: '30/04/2018' });
    const u = await update(h, doubled(), '16/04/2018');
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal(u.headers.get('x-billrun-service-version'), '2');
    const listed = (await versions(h)).body.data.versions.map((v: any) => [v.version, v.effectiveFrom, v.effectiveFromGiven]);
    assert.deepEqual(listed, [
      [2, '16/04/2018', true],
      [1, null, false],
    ]);

    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const preview = v.body.data.previewBills as any[];
    const pa = preview.find((p) => p.subscriptionID === Number(a!.subscriptionId));
    assert.deepEqual(pa.segments, [
      { version: 1, startDate: '01/04/2018', endDate: '15/04/2018', days: 15 },
      { version: 2, startDate: '16/04/2018', endDate: '30/04/2018', days: 15 },
    ]);
    // a: 30 m3 by days, 15 each side; tier bounds 10 and 30 become 5 and 15 in each segment.
    // v1: standing 150 x 15/30 = 75.00; water 5 x 50 + 10 x 70 = 950.00; sewer 95.00; VAT 16% of 1120 = 179.20
    // v2: standing 300 x 15/30 = 150.00; water 5 x 100 + 10 x 140 = 1900.00; sewer 190.00; VAT 16% of 2240 = 358.40
    assert.deepEqual(
      pa.lines.map((l: any) => [l.version, l.segment, l.componentCode, l.quantity, l.amount]),
      [
        [1, '01/04/2018 to 15/04/2018', 'STANDING', '1', '75.00'],
        [1, '01/04/2018 to 15/04/2018', 'WATER', '15', '950.00'],
        [1, '01/04/2018 to 15/04/2018', 'SEWER', '950.00', '95.00'],
        [1, '01/04/2018 to 15/04/2018', 'VAT', '1120.00', '179.20'],
        [2, '16/04/2018 to 30/04/2018', 'STANDING', '1', '150.00'],
        [2, '16/04/2018 to 30/04/2018', 'WATER', '15', '1900.00'],
        [2, '16/04/2018 to 30/04/2018', 'SEWER', '1900.00', '190.00'],
        [2, '16/04/2018 to 30/04/2018', 'VAT', '2240.00', '358.40'],
      ],
    );
    assert.deepEqual([pa.charges, pa.tax, pa.total], ['3360.00', '537.60', '3897.60']);
    // b: by the reading of 16/04: 10 m3 then 20 m3.
    // v1: 75.00; 5 x 50 + 5 x 70 = 600.00; 60.00; 16% of 735 = 117.60
    // v2: 150.00; 5 x 100 + 10 x 140 + 5 x 180 = 2800.00; 280.00; 16% of 3230 = 516.80
    const pb = preview.find((p) => p.subscriptionID === Number(b!.subscriptionId));
    assert.deepEqual(
      pb.lines.map((l: any) => l.amount),
      ['75.00', '600.00', '60.00', '117.60', '150.00', '2800.00', '280.00', '516.80'],
    );
    assert.equal(pb.total, '4599.40');

    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    const made = (await bills(h, termID)).body.data.bills as any[];
    assert.equal(made.length, 2);
    for (const bill of made) {
      const p = preview.find((x) => x.subscriptionID === bill.subscriptionID);
      assert.deepEqual(
        [bill.charges, bill.tax, bill.total, bill.lines.map((l: any) => [l.componentCode, l.quantity, l.amount])],
        [p.charges, p.tax, p.total, p.lines.map((l: any) => [l.componentCode, l.quantity, l.amount])],
      );
    }
    const ba = made.find((x) => x.subscriptionID === Number(a!.subscriptionId));
    assert.deepEqual(ba.lines[1].trace.segment, { version: 1, start: '2018-04-01', end: '2018-04-15', days: 15, consumption: { input: 'METER', quantity: '15', by: 'days' } });
    assert.match(ba.lines[1].explanation, /^Water: version 1, 01\/04\/2018 to 15\/04\/2018 \(15 day\(s\) billed\), 15 of the consumption shared by days; /);
    assert.match(ba.lines[4].explanation, /^Standing charge: version 2, 16\/04\/2018 to 30\/04\/2018 \(15 day\(s\) billed\); flat 300; prorated 15\/30 days: 300 to 150; /);
    const bb = made.find((x) => x.subscriptionID === Number(b!.subscriptionId));
    assert.match(bb.lines[5].explanation, /version 2, 16\/04\/2018 to 30\/04\/2018 \(15 day\(s\) billed\), 20 of the consumption by the reading of 16\/04\/2018 \(110\)/);
    // verify-bill re-rates each from what it was made from, segments and the change-date reading included.
    for (const bill of made) {
      const v = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: bill.billID } });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.body.data.matches, true, JSON.stringify(v.body.data));
    }
    // The bill's document shows each meter's reading once, not once a segment (it read as 60 m3 used).
    const { loadDocumentData } = await import('../../src/documents/billContext.ts');
    const [docB] = await loadDocumentData(h.db, h.appCode, [String(bb.billID)]);
    assert.deepEqual(
      docB!.data.bill.readings.map((r) => [r.previousValue, r.currentValue, r.consumption]),
      [['100', '130', '30']],
    );

    // A date reaching the billed term is refused, and nothing is saved.
    const late = await update(h, doubled(), '20/04/2018');
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.error.code, 'CONFLICT');
    assert.equal(late.body.error.details[0].path, 'effectiveFrom');
    assert.equal((await versions(h)).body.data.paging.total, 2);
    // After its end, it is taken.
    assert.equal((await update(h, doubled(), '01/05/2018')).status, 200);
  });

  test('a version saved without a date corrects the one in force today, from the same day, and reaches only later terms', async () => {
    // Today (31/01/2027) the version in force is 3 (from 01/05/2018): version 4 takes its date.
    // The same definition again is no version (templates.md); a changed one is.
    assert.equal((await update(h, doubled())).headers.get('x-billrun-service-version'), '3');
    const u = await update(h, { ...doubled(), description: 'corrected' });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    const listed = (await versions(h)).body.data.versions.map((v: any) => [v.version, v.effectiveFrom, v.effectiveFromGiven]);
    assert.deepEqual(listed[0], [4, '01/05/2018', false]);
  });

  test('a version dated after a term sets neither its due date nor its batches; the version in force on its last day does', async () => {
    // Today is 31/01/2027; version 5 from 01/03/2027 moves the due date to 60 days after the end and bills another batch only.
    const v5 = await update(h, { ...doubled(), dueDateOffset: 60, batches: ['LATER'] }, '01/03/2027');
    assert.equal(v5.status, 200, JSON.stringify(v5.body));
    const terms = (termID: number) => h.post('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
    // October 2026: version 4 is in force, with the template's 14 days and batch Z1.
    const october = await makeTerm(h, { batchCode: 'Z1', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    assert.equal((await terms(october)).body.data.terms[0].dueDate, '14/11/2026');
    // March 2027: version 5's offset, and its batches.
    const march = await makeTerm(h, { batchCode: 'LATER', billingPeriodID: 202703, startDate: '01/03/2027', endDate: '31/03/2027' });
    assert.equal((await terms(march)).body.data.terms[0].dueDate, '30/05/2027');
    const refused = await h.post('/billing/terms/make-term', { method: 'Create', action: 'Create Bill Term', apiVersion: 'v2', operation: 'schedule', data: { serviceCode: 'WATER', batchCode: 'Z1', billingPeriodID: 202703, startDate: '01/03/2027', endDate: '31/03/2027' } });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(refused.body.error.details, [{ path: 'data.batchCode', message: "is not one of the template's batches" }]);
  });

  test('a version dated inside a validated term sends it back to Loaded: it is approved only on a preview of its tariff', async () => {
    await subscriptions(h, { n: 1, batchCode: 'Z2', readingsOf: () => [['2026-05-31', 100], ['2026-06-30', 130]] });
    const termID = await makeTerm(h, { batchCode: 'Z2', billingPeriodID: 202606, startDate: '01/06/2026', endDate: '30/06/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const first = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.previewBills[0].segments, undefined);
    assert.equal((await update(h, doubled(), '16/06/2026')).status, 200);
    const terms = await h.post('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
    assert.equal(terms.body.data.terms[0].status, 'Loaded');
    const approve = await step(h, 'approve-term', 'Approve Term', { termID });
    assert.equal(approve.status, 409, JSON.stringify(approve.body));
    const again = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.deepEqual(
      again.body.data.previewBills[0].segments.map((s: any) => [s.version, s.startDate]),
      [
        [4, '01/06/2026'],
        [6, '16/06/2026'],
      ],
    );
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    // Approved: a version dated inside it is refused, with what would undo the approval.
    const late = await update(h, doubled(), '20/06/2026');
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.match(JSON.stringify(late.body), /which is Approved: .* or cancel the term first\./);
  });

  // Electricity joins the water template from 16/12/2026 (a version dated inside December's
  // term, with a second meter). The term's bills are rated in two segments, the second
  // pricing ELEC: validate-term asks for its readings (MISSING_READING on readings.ELEC, with
  // the day to date them) and the run's check would fail the term without them. The term's
  // own capture-readings refuses them: "is not a metered input of the term's template", as
  // it reads only the first version's meters (runContext's tariff). Neither the console's fix
  // row nor its reading sheet (which lists ELEC, the newest version's) can then be sent.
  test("a meter that a version dated inside the term adds is read through the term's capture-readings", async () => {
    await makeTemplate(h, tariff('TWO', { batches: ['ZONE-T'] }));
    const [sub] = await subscriptions(h, { n: 1, serviceCode: 'TWO', batchCode: 'ZONE-T', readingsOf: () => [['2026-11-30', 100], ['2026-12-31', 130]] });
    const termID = await makeTerm(h, { serviceCode: 'TWO', batchCode: 'ZONE-T', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    const withPower = tariff('TWO', { batches: ['ZONE-T'] });
    withPower.meteredInputs = [...withPower.meteredInputs!, { code: 'ELEC', label: 'Electricity meter', unit: 'kWh', decimals: 0 }];
    withPower.components = [...withPower.components!, { code: 'POWER', name: 'Electricity', model: 'perUnit', input: 'ELEC', rate: '20' }];
    assert.equal((await update(h, withPower, '16/12/2026')).status, 200);
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.deepEqual(
      v.body.data.exceptions.map((e: any) => [e.subscriptionID, e.code, e.path]),
      [[Number(sub!.subscriptionId), 'MISSING_READING', 'readings.ELEC']],
    );
    const captured = await step(h, 'capture-readings', 'Capture Term Readings', {
      termID,
      readings: [
        { subscriptionID: Number(sub!.subscriptionId), inputCode: 'ELEC', readingDate: '16/12/2026', value: '5000' },
        { subscriptionID: Number(sub!.subscriptionId), inputCode: 'ELEC', readingDate: '31/12/2026', value: '5300' },
      ],
    });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    const recorded = await h.db.query("SELECT count(*)::int AS n FROM reading WHERE subscription_id = $1 AND input_code = 'ELEC'", [sub!.subscriptionId]);
    assert.equal(recorded.rows[0].n, 2);
  });
});
