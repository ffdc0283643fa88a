import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertError, env, makeAccount, makeSubscription, makeTemplate } from '../subscriptions/fixtures.ts';

const make = (data: unknown) => env('Create', 'Create Batch', data);
const list = (data?: unknown) => env('Retrieve', 'Retrieve Batches', data);

describe('batches', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('make-batch answers the empty envelope with the id in a header; get-batches lists it', async () => {
    const r = await h.post('/billing/batches/make-batch', make({ batchCode: 'ROUTE-7', label: 'Route 7, north' }));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, {});
    assert.equal(r.body.error, null);
    const id = Number(r.headers.get('x-billrun-batch-id'));
    assert.ok(id > 0);
    const got = await h.post('/billing/batches/get-batches', list({ batchCode: 'ROUTE-7' }), h.tokens.viewer);
    assert.equal(got.status, 200);
    const [b] = got.body.data.batches;
    assert.equal(got.body.data.batches.length, 1);
    assert.deepEqual({ ...b, createdAt: undefined }, {
      batchID: id,
      appCode: h.appCode,
      batchCode: 'ROUTE-7',
      label: 'Route 7, north',
      serviceCodes: [],
      subscriptionCount: 0,
      createdAt: undefined,
      createdBy: 'admin@a.test',
    });
    assert.match(b.createdAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  test('a batch code named in a template exists from then on, with the template and its subscriptions counted', async () => {
    await makeTemplate(h);
    const all = await h.post('/billing/batches/get-batches', list());
    const codes = all.body.data.batches.map((b: { batchCode: string }) => b.batchCode);
    assert.ok(codes.includes('ZONE-A') && codes.includes('ZONE-B'));
    await makeAccount(h, 'B-1');
    await makeSubscription(h, 'B-1');
    const a = await h.post('/billing/batches/get-batches', list({ batchCode: 'ZONE-A' }));
    assert.deepEqual(a.body.data.batches[0].serviceCodes, ['WATER']);
    assert.equal(a.body.data.batches[0].subscriptionCount, 1);
  });

  test('refusals: a second code is a CONFLICT, a bad code is VALIDATION_FAILED, a viewer or biller may not make one', async () => {
    await h.post('/billing/batches/make-batch', make({ batchCode: 'DUP' }));
    assertError(await h.post('/billing/batches/make-batch', make({ batchCode: 'DUP' })), 409, 'CONFLICT', 'data.batchCode');
    assertError(await h.post('/billing/batches/make-batch', make({ batchCode: 'has space' })), 400, 'VALIDATION_FAILED', 'data.batchCode');
    assertError(await h.post('/billing/batches/make-batch', make({ batchCode: 'X', colour: 1 })), 400, 'VALIDATION_FAILED', 'data.colour');
    assertError(await h.post('/billing/batches/make-batch', make({ batchCode: 'V' }), h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await h.post('/billing/batches/make-batch', make({ batchCode: 'V' }), h.tokens.biller), 403, 'FORBIDDEN');
    assertError(await h.post('/billing/batches/get-batches', list({ batchCode: 'NOPE' })), 404, 'NOT_FOUND', 'data.batchCode');
  });

  test('update-batch changes the label; another app sees none of these batches', async () => {
    await h.post('/billing/batches/make-batch', make({ batchCode: 'REN' }));
    const u = await h.post('/billing/batches/update-batch', env('Update', 'Update Batch', { batchCode: 'REN', label: 'Renamed' }));
    assert.equal(u.status, 200);
    const got = await h.post('/billing/batches/get-batches', list({ batchCode: 'REN' }));
    assert.equal(got.body.data.batches[0].label, 'Renamed');
    assertError(await h.post('/billing/batches/get-batches', list({ batchCode: 'REN' }), h.tokens.otherAdmin), 404, 'NOT_FOUND');
    assertError(await h.post('/billing/batches/update-batch', env('Update', 'Update Batch', { batchCode: 'REN', label: 'x' }), h.tokens.otherAdmin), 404, 'NOT_FOUND');
    const other = await h.post('/billing/batches/get-batches', list(), h.tokens.otherAdmin);
    assert.deepEqual(other.body.data.batches, []);
  });
});
