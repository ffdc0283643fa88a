// A meter whose consumption is converted before it is priced (docs/rating.md, "A meter's
// conversion"), end to end through HTTP: a gas template read in ccf and billed in therms, made
// with make-service and read back, a term run by the worker, the bill read with get-bills and
// its document as a customer receives it. Worked by hand: 5050 on 31/10 and 5123 on 30/11/2026,
// 73 ccf x 1.037 = 75.701 -> 76 therms; delivery 76 x 1.2345 = 93.822 -> 93.82; customer charge
// 15.00; total 108.82. The factor folded into the rate (1.2801765 a ccf) would bill 93.45.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, startRun, step, subscriptions, waitForStatus } from '../terms/fixtures.ts';
import { eventually, fetchFile, needsPoppler, pdfText } from '../documents/support.ts';
import type { ServiceDefinition } from '../../src/templates/schemas.ts';

const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

const gas = {
  code: 'GAS',
  name: 'Residential gas',
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 14,
  values: [{ code: 'THERM', label: 'Therm factor', value: '1.037' }],
  meteredInputs: [{ code: 'METER', label: 'Gas meter', unit: 'ccf', decimals: 0, conversion: { factor: { value: 'THERM' }, unit: 'therm', decimals: 0 } }],
  components: [
    { code: 'CUSTOMER', name: 'Customer charge', model: 'flat', amount: '15.00' },
    { code: 'DELIVERY', name: 'Delivery', model: 'perUnit', input: 'METER', rate: '1.2345' },
  ],
  batches: ['ROUTE-1'],
} as ServiceDefinition;

describe("a meter's conversion, through a bill run", () => {
  let h: Harness;
  let close: () => Promise<void>;

  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  test('73 ccf read is 76 therms billed: the line, its trace, its explanation and the document say so', async () => {
    await makeTemplate(h, gas);
    const read = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'GAS' }, h.tokens.viewer);
    assert.deepEqual(read.body.data.services[0].meteredInputs[0].conversion, { factor: { value: 'THERM' }, unit: 'therm', decimals: 0 });

    const subs = await subscriptions(h, { n: 1, serviceCode: 'GAS', batchCode: 'ROUTE-1', readings: [['2026-10-31', 5050], ['2026-11-30', 5123]] });
    const termID = await makeTerm(h, { serviceCode: 'GAS', batchCode: 'ROUTE-1', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t));
    const r = await h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID }), h.tokens.viewer);
    const bill = r.body.data.bills.find((b: any) => String(b.subscriptionID) === subs[0]!.subscriptionId);
    const delivery = bill.lines.find((l: any) => l.componentCode === 'DELIVERY');
    assert.deepEqual([delivery.quantity, delivery.unit, delivery.amount], ['76', 'therm', '93.82']);
    assert.equal(bill.total, '108.82');
    assert.equal(delivery.trace.reading.consumption, '73');
    assert.deepEqual(delivery.trace.reading.conversion, { factor: '1.037', unit: 'therm', decimals: 0, rounding: 'halfUp', quantity: '76' });
    assert.match(delivery.explanation, /73 used, x 1\.037 = 75\.701, 76 therm \(rounded halfUp to 0 decimal\(s\)\)/);

    if (needsPoppler()) return;
    const pdf = await eventually(async () => {
      const f = await fetchFile(h, '/billing/documents/get-bill-document', envelope('Retrieve', 'Retrieve Bill Document', { billID: bill.billID }));
      return f.status === 200 ? f : undefined;
    }, 'the bill document');
    const text = pdfText(pdf.bytes).replace(/\s+/g, ' ');
    assert.match(text, /73 ccf \(76 therm billed\)/);
  });

  test('a factor at zero is refused on its field, and no template is made', async () => {
    const bad = { ...gas, code: 'GAS0', batches: ['ROUTE-0'], values: [{ code: 'THERM', label: 'Therm factor', value: '0' }] };
    const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: bad });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.ok(r.body.error.details.some((d: any) => d.path === 'service.meteredInputs[0].conversion.factor.value'), JSON.stringify(r.body.error.details));
    const asText = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...gas, code: 'GAS1', meteredInputs: [{ ...gas.meteredInputs![0], conversion: { factor: '1.037', unit: '', decimals: 0 } }] } });
    assert.equal(asText.status, 400, JSON.stringify(asText.body));
    assert.ok(asText.body.error.details.some((d: any) => d.path.startsWith('service.meteredInputs[0].conversion.unit')), JSON.stringify(asText.body.error.details));
    const listed = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }, h.tokens.viewer);
    assert.ok(!listed.body.data.services.some((s: any) => s.serviceCode === 'GAS0' || s.serviceCode === 'GAS1'));
  });
});
