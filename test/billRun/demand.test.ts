// A demand register end to end through HTTP (docs/rating.md, "A demand register"): a small
// business's electricity, energy 0.1120 a kWh and a demand charge of 12.50 a kW on the
// month's highest demand. Readings captured through the API (a demand lower than last
// month's is taken), two months billed and posted, validate-term's estimate and warnings,
// get-readings, the bill's document. Worked by hand:
//   November: 12,400 kWh x 0.1120 = 1388.80; 52.4 kW x 12.50 = 655.00; total 2043.80
//   December:  9,000 kWh x 0.1120 = 1008.00; 38.0 kW x 12.50 = 475.00; total 1483.00
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import { fetchFile, hasPoppler, pdfText } from '../documents/support.ts';
import { businessElectricity } from '../fixtures/tariffs.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

const plan = businessElectricity(['B-BIZ']);

describe('a demand register, through capture, validation, two bill runs and the document', () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  const capture = (subscriptionID: string, inputCode: string, readingDate: string, value: string) =>
    h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(subscriptionID), inputCode, readingDate, value, kind: 'actual' }] }));

  test('each month bills the demand read, lower than the month before or not, beside the energy used', async () => {
    await makeTemplate(h, plan);
    // Three customers: the first read every month; the second not read in December (estimated);
    // the third's December demand more than three times November's (a warning).
    const subs = await subscriptions(h, { n: 3, serviceCode: 'BIZ', batchCode: 'B-BIZ' });
    for (const s of subs) {
      // The opening readings: the energy register's count and the demand register reset to 0.
      await addReadings(h, [[s.subscriptionId, '2026-01-31', 0]], h.appCode, 'ENERGY');
      await addReadings(h, [[s.subscriptionId, '2026-01-31', 0]], h.appCode, 'DEMAND');
    }
    // Nine months of history (February to October): energy up 10,000 kWh and a demand of 40 to 48 kW each month.
    for (let m = 2; m <= 10; m++) {
      const end = new Date(Date.UTC(2026, m, 0)).toISOString().slice(0, 10);
      for (const s of subs) {
        await addReadings(h, [[s.subscriptionId, end, (m - 1) * 5000]], h.appCode, 'ENERGY');
        await addReadings(h, [[s.subscriptionId, end, 40 + m - 2]], h.appCode, 'DEMAND');
      }
    }
    // October ended at 45,000 kWh and 48 kW. November: 57,400 kWh and 52.4 kW, through the API.
    for (const s of subs) {
      assert.equal((await capture(s.subscriptionId, 'ENERGY', '30/11/2026', '57400')).status, 200);
      const d = await capture(s.subscriptionId, 'DEMAND', '30/11/2026', '52.4');
      assert.equal(d.status, 200, JSON.stringify(d.body));
      assert.equal(d.headers.get('x-billrun-consumption-kinds'), 'maximum');
    }
    const nov = await makeTerm(h, { serviceCode: 'BIZ', batchCode: 'B-BIZ', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: nov })).status, 200);
    assert.equal((await waitForStatus(h, nov, ['Processed', 'Failed'])).status, 'Processed');
    const novBills = (await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID: nov }), h.tokens.viewer)).body.data.bills;
    for (const b of novBills) {
      const byCode = Object.fromEntries(b.lines.map((l: any) => [l.componentCode, l]));
      // 57,400 - 45,000 = 12,400 kWh x 0.1120 = 1388.80
      assert.equal(byCode.ENERGY.amount, '1388.80');
      assert.equal(byCode.DEMAND.quantity, '52.4');
      assert.equal(byCode.DEMAND.amount, '655.00');
      assert.equal(b.total, '2043.80');
      assert.match(byCode.DEMAND.explanation, /DEMAND read 52\.4 on 30\/11\/2026, the highest since the reading of 31\/10\/2026 \(a maximum demand register\): 52\.4 billed/);
    }
    assert.equal((await step(h, 'post-term', 'Post Term', { termID: nov })).status, 200);
    await waitForStatus(h, nov, ['Posted']);

    // December: the first customer reads 38.0 kW, lower than November's 52.4: taken, not refused.
    assert.equal((await capture(subs[0]!.subscriptionId, 'ENERGY', '31/12/2026', '66400')).status, 200);
    const lower = await capture(subs[0]!.subscriptionId, 'DEMAND', '31/12/2026', '38.0');
    assert.equal(lower.status, 200, JSON.stringify(lower.body));
    // A cumulative meter still refuses going backwards.
    const backwards = await capture(subs[1]!.subscriptionId, 'ENERGY', '31/12/2026', '50000');
    assert.equal(backwards.status, 400);
    assert.equal((await capture(subs[1]!.subscriptionId, 'ENERGY', '31/12/2026', '66400')).status, 200);
    assert.equal((await capture(subs[2]!.subscriptionId, 'ENERGY', '31/12/2026', '66400')).status, 200);
    assert.equal((await capture(subs[2]!.subscriptionId, 'DEMAND', '31/12/2026', '160')).status, 200);

    const dec = await makeTerm(h, { serviceCode: 'BIZ', batchCode: 'B-BIZ', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    const loaded = await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID: dec });
    assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
    // The second customer's demand is missing; estimated on request from last month's, 52.4.
    const validated = await step(h, 'validate-term', 'Validate Term', { termID: dec, estimateMissing: true });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const exceptions = validated.body.data.exceptions ?? [];
    assert.deepEqual(exceptions.filter((e: any) => e.severity === 'error'), [], JSON.stringify(exceptions));
    // 160 kW after 52.4: more than three times the month before (157.2), with nine months of history.
    assert.deepEqual(
      exceptions.map((e: any) => [e.subscriptionID, e.code, e.message]),
      [[Number(subs[2]!.subscriptionId), 'UNUSUAL_CONSUMPTION', "DEMAND: a demand of 160 is more than 3 times above the period's before, 52.4"]],
    );
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID: dec })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: dec })).status, 200);
    assert.equal((await waitForStatus(h, dec, ['Processed', 'Failed'])).status, 'Processed');
    const decBills = (await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID: dec }), h.tokens.viewer)).body.data.bills;
    const billOf = (i: number) => decBills.find((b: any) => String(b.subscriptionID) === subs[i]!.subscriptionId);
    const amounts = (i: number) => Object.fromEntries(billOf(i).lines.map((l: any) => [l.componentCode, l.amount]));
    // 66,400 - 57,400 = 9,000 kWh x 0.1120 = 1008.00; 38.0 x 12.50 = 475.00
    assert.deepEqual(amounts(0), { ENERGY: '1008.00', DEMAND: '475.00' });
    assert.equal(billOf(0).total, '1483.00');
    // Estimated at November's 52.4 kW: 655.00, and the bill says so.
    assert.deepEqual(amounts(1), { ENERGY: '1008.00', DEMAND: '655.00' });
    const estimatedLine = billOf(1).lines.find((l: any) => l.componentCode === 'DEMAND');
    assert.equal(estimatedLine.trace.reading.estimated, true);
    assert.match(estimatedLine.explanation, /DEMAND estimated at 52\.4 on 31\/12\/2026/);
    assert.equal(billOf(1).estimated, true);
    assert.deepEqual(amounts(2), { ENERGY: '1008.00', DEMAND: '2000.00' });
    assert.equal(billOf(0).estimated, false);

    // get-readings: each demand reading is its period's demand.
    const history = await h.post('/billing/readings/get-readings', envelope('Retrieve', 'Retrieve Readings', { subscriptionID: Number(subs[0]!.subscriptionId), inputCode: 'DEMAND' }));
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const last = history.body.data.readings.at(-1);
    assert.deepEqual([last.value, last.consumption, last.consumptionKind], ['38', '38', 'maximum']);

    // The document: the demand row says it is the highest demand, and the history's consumption is the energy alone.
    if (hasPoppler) {
      assert.equal((await step(h, 'post-term', 'Post Term', { termID: dec })).status, 200);
      await waitForStatus(h, dec, ['Posted']);
      const deadline = Date.now() + 60_000;
      let pdf = await fetchFile(h, '/billing/documents/get-bill-document', envelope('Retrieve', 'Retrieve Bill Document', { billID: billOf(0).billID }));
      while (pdf.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 300));
        pdf = await fetchFile(h, '/billing/documents/get-bill-document', envelope('Retrieve', 'Retrieve Bill Document', { billID: billOf(0).billID }));
      }
      assert.equal(pdf.status, 200);
      const text = pdfText(pdf.bytes).replace(/\s+/g, ' ');
      assert.match(text, /Maximum demand reset on 30\/11\/2026 38\.0 on 31\/12\/2026 38\.0 kW highest demand/);
      assert.match(text, /Energy 57400 on 30\/11\/2026 66400 on 31\/12\/2026 9000 kWh/);
      // November's bill in the history: 12,400 kWh, not 12,400 + 52.4.
      assert.match(text, /01\/11\/2026 to 30\/11\/2026 12400 kWh 2043\.80/);
    }
  });

  test('a later version cannot make a meter read otherwise: a new kind of meter takes a code of its own', async () => {
    const update = (service: unknown) => h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service });
    const asRunningTotal = { ...plan, meteredInputs: [plan.meteredInputs![0], { ...plan.meteredInputs![1], register: 'cumulative' }] };
    const r = await update(asRunningTotal);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body.error.details.map((d: any) => d.path), ['service.meteredInputs[1].register']);
    assert.match(r.body.error.details[0].message, /meter DEMAND reads the highest demand in version 1/);
    const versions = await h.db.query(`SELECT count(*)::int AS n FROM service_version v JOIN service s USING (service_id) WHERE s.service_code = 'BIZ' AND s.app_code = $1`, [h.appCode]);
    assert.equal(versions.rows[0].n, 1, 'no version was written');
    // The other way round, too; a new code is taken.
    const energyAsDemand = { ...plan, meteredInputs: [{ ...plan.meteredInputs![0], register: 'maximum' }, plan.meteredInputs![1]] };
    assert.deepEqual((await update(energyAsDemand)).body.error.details.map((d: any) => d.path), ['service.meteredInputs[0].register']);
    const kva = { ...plan, meteredInputs: [...plan.meteredInputs!, { code: 'KVA', label: 'Apparent demand', unit: 'kVA', decimals: 1, register: 'maximum' }] };
    assert.equal((await update(kva)).status, 200);
  });

  test('a demand register that rolls over is refused when the template is made', async () => {
    const bad = { ...plan, code: 'BIZ2', batches: ['B-BIZ2'], meteredInputs: [plan.meteredInputs![0], { ...plan.meteredInputs![1], rolloverAt: 1000 }] };
    const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: bad });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.ok(JSON.stringify(r.body).includes('meteredInputs[1].rolloverAt'), JSON.stringify(r.body));
  });
});
