import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertError, env, makeAccount, makeSubscription, makeTemplate, subscriptionData, waterTemplate } from './fixtures.ts';

const make = (data: unknown) => env('Create', 'Create Subscription', data);
const list = (data?: unknown) => env('Retrieve', 'Retrieve Subscriptions', data);
const change = (verb: string, action: string, data: unknown) => [`/billing/subscriptions/${verb}-subscription`, env('Update', action, data)] as const;

describe('subscriptions', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
    await makeTemplate(h, waterTemplate('WATER-COM', ['ZONE-A', 'ZONE-C']));
    await makeTemplate(h, waterTemplate('OLD', ['ZONE-A']));
    await h.post('/billing/services/archive-service', { method: 'Update', action: 'Archive Package', apiVersion: 'v2', serviceCode: 'OLD', archiveStatus: 1 });
    await h.post('/billing/batches/make-batch', env('Create', 'Create Batch', { batchCode: 'LONELY' }));
    await makeAccount(h, 'S-100');
  });
  after(() => h.close());

  test('make-subscription records typed inputs and opening readings; get-subscriptions reads it with its history', async () => {
    const id = await makeSubscription(h, 'S-100', {
      connectionInputs: { METER_NO: 'MX-1', SIZE: '15', FITTED: '2024-12-20', SEWER: false },
      unmeteredInputs: { ROOMS: 4 },
      openingReadings: { METER: '1234.5' },
      readingDate: '31/12/2024',
      startDate: '31/12/2024',
      endDate: '31/12/2030',
    });
    const r = await h.post('/billing/subscriptions/get-subscriptions', list({ subscriptionID: id }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const s = r.body.data.subscriptions[0];
    assert.equal(s.accountNumber, 'S-100');
    assert.equal(s.serviceCode, 'WATER');
    assert.equal(s.batchCode, 'ZONE-A');
    assert.deepEqual(s.connectionInputs, { METER_NO: 'MX-1', SIZE: 15, FITTED: '20/12/2024', SEWER: false });
    assert.deepEqual(s.unmeteredInputs, { ROOMS: '4' });
    assert.equal(s.startDate, '31/12/2024');
    assert.equal(s.endDate, '31/12/2030');
    assert.equal(s.status, 'active');
    assert.deepEqual(s.events, []);
    const readings = await h.post('/billing/readings/get-readings', env('Retrieve', 'Retrieve Readings', { subscriptionID: id }));
    assert.equal(readings.body.data.readings[0].value, '1234.5');
    assert.equal(readings.body.data.readings[0].source, 'opening');
  });

  test('inputs are checked against the template; template, batch and account are checked', async () => {
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ connectionInputs: {} }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.METER_NO'],
      [{ connectionInputs: { METER_NO: 12 } }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.METER_NO'],
      [{ connectionInputs: { METER_NO: 'M', SIZE: 'big' } }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.SIZE'],
      [{ connectionInputs: { METER_NO: 'M', FITTED: '30/02/2024' } }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.FITTED'],
      [{ connectionInputs: { METER_NO: 'M', SEWER: 'yes' } }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.SEWER'],
      [{ connectionInputs: { METER_NO: 'M', COLOUR: 'red' } }, 400, 'VALIDATION_FAILED', 'data.connectionInputs.COLOUR'],
      [{ unmeteredInputs: {} }, 400, 'VALIDATION_FAILED', 'data.unmeteredInputs.ROOMS'],
      [{ unmeteredInputs: { ROOMS: -1 } }, 400, 'VALIDATION_FAILED', 'data.unmeteredInputs.ROOMS'],
      // No bill could be rated from these: refused here, on the field, not at every bill after (an attacker's finding).
      [{ unmeteredInputs: { ROOMS: 1e20 } }, 400, 'VALIDATION_FAILED', 'data.unmeteredInputs.ROOMS'],
      [{ unmeteredInputs: { ROOMS: '2.0000000000001' } }, 400, 'VALIDATION_FAILED', 'data.unmeteredInputs.ROOMS'],
      [{ openingReadings: { GAS: 1 } }, 400, 'VALIDATION_FAILED', 'data.openingReadings.GAS'],
      [{ openingReadings: { METER: '10000' } }, 400, 'VALIDATION_FAILED', 'data.openingReadings.METER'],
      [{ endDate: '01/12/2024' }, 400, 'VALIDATION_FAILED', 'data.endDate'],
      [{ startDate: '2025-13-01' }, 400, 'VALIDATION_FAILED', 'data.startDate'],
      [{ batchCode: 'ZONE-C' }, 400, 'VALIDATION_FAILED', 'data.batchCode'],
      [{ batchCode: 'LONELY' }, 400, 'VALIDATION_FAILED', 'data.batchCode'],
      [{ batchCode: 'NOWHERE' }, 404, 'NOT_FOUND', 'data.batchCode'],
      [{ serviceCode: 'GAS' }, 404, 'NOT_FOUND', 'data.serviceCode'],
      [{ serviceCode: 'OLD' }, 409, 'INVALID_STATE', 'data.serviceCode'],
      [{ accountNumber: 'NOBODY' }, 404, 'NOT_FOUND', 'data.accountNumber'],
    ];
    for (const [extra, status, code, path] of cases) {
      const r = await h.post('/billing/subscriptions/make-subscription', make(subscriptionData('S-100', extra)), h.tokens.biller);
      assertError(r, status, code, path);
    }
    const batch = await h.post('/billing/subscriptions/make-subscription', make(subscriptionData('S-100', { batchCode: 'ZONE-C' })));
    assert.match(batch.body.error.details[0].message, /not one of pricing template WATER's batches \(ZONE-A, ZONE-B\)/);
    assertError(await h.post('/billing/subscriptions/make-subscription', make(subscriptionData('S-100')), h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await h.post('/billing/subscriptions/make-subscription', make(subscriptionData('S-100')), h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.accountNumber');
  });

  test('suspend, resume, terminate: each move checked, each kept in the history', async () => {
    const id = await makeSubscription(h, 'S-100');
    const post = (verb: string, action: string, data: unknown, token = h.tokens.biller) => h.post(...change(verb, action, data), token);
    assertError(await post('resume', 'Resume Subscription', { subscriptionID: id, date: '01/02/2025' }), 409, 'INVALID_STATE', 'data.subscriptionID');
    assertError(await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '01/12/2024' }), 400, 'VALIDATION_FAILED', 'data.date');
    assert.equal((await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '01/02/2025', reason: 'unpaid' })).status, 200);
    assertError(await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '02/02/2025' }), 409, 'INVALID_STATE');
    const sus = await h.post('/billing/subscriptions/get-subscriptions', list({ status: 'suspended' }));
    assert.deepEqual(sus.body.data.subscriptions.map((s: { subscriptionID: number }) => s.subscriptionID), [id]);
    assertError(await post('resume', 'Resume Subscription', { subscriptionID: id, date: '31/01/2025' }), 400, 'VALIDATION_FAILED', 'data.date');
    assert.equal((await post('resume', 'Resume Subscription', { subscriptionID: id, date: '01/03/2025' })).status, 200);
    assertError(await post('terminate', 'Terminate Subscription', { subscriptionID: id, endDate: '01/12/2024' }), 400, 'VALIDATION_FAILED', 'data.endDate');
    assert.equal((await post('terminate', 'Terminate Subscription', { subscriptionID: id, endDate: '30/06/2025' })).status, 200);
    assertError(await post('terminate', 'Terminate Subscription', { subscriptionID: id, endDate: '30/07/2025' }), 409, 'INVALID_STATE');
    assertError(await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '01/04/2025' }), 409, 'INVALID_STATE');
    assertError(await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '01/04/2025' }, h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await post('suspend', 'Suspend Subscription', { subscriptionID: id, date: '01/04/2025' }, h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.subscriptionID');
    const s = (await h.post('/billing/subscriptions/get-subscriptions', list({ subscriptionID: id }))).body.data.subscriptions[0];
    assert.equal(s.status, 'terminated');
    assert.equal(s.endDate, '30/06/2025');
    assert.deepEqual(s.events.map((e: { kind: string; date: string }) => [e.kind, e.date]), [
      ['suspended', '01/02/2025'],
      ['resumed', '01/03/2025'],
      ['terminated', '30/06/2025'],
    ]);
    assert.deepEqual(s.events[0].detail, { reason: 'unpaid' });

    // An end on 31/12/9999 (how some systems write "never"): the day after it answered 500.
    const forever = await makeSubscription(h, 'S-100', { connectionInputs: { METER_NO: 'M-S-100-9' } });
    assert.equal((await post('terminate', 'Terminate Subscription', { subscriptionID: forever, endDate: '31/12/9999' })).status, 200);
    // Opening readings are readings: none dated after today (a fuzzer's was dated 31/12/9999), on the field given.
    const made = (extra: Record<string, unknown>) => h.post('/billing/subscriptions/make-subscription', env('Create', 'Create Subscription', subscriptionData('S-100', { openingReadings: { METER: '10' }, ...extra })), h.tokens.biller);
    assertError(await made({ readingDate: '31/12/9999' }), 400, 'VALIDATION_FAILED', 'data.readingDate');
    assertError(await made({ startDate: '01/01/2999' }), 400, 'VALIDATION_FAILED', 'data.startDate');
  });

  test('move to another template and batch from a date: the old one ends the day before, readings carry over', async () => {
    await makeAccount(h, 'S-MOVE');
    const id = await makeSubscription(h, 'S-MOVE', { openingReadings: { METER: 100 } });
    const cap = await h.post('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: [{ subscriptionID: id, inputCode: 'METER', readingDate: '31/01/2025', value: 130 }] }), h.tokens.biller);
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    const move = (data: unknown) => h.post(...change('move', 'Move Subscription', data), h.tokens.biller);
    assertError(await move({ subscriptionID: id, date: '01/02/2025' }), 400, 'VALIDATION_FAILED', 'data');
    assertError(await move({ subscriptionID: id, date: '31/01/2025', serviceCode: 'WATER-COM', batchCode: 'ZONE-C' }), 400, 'VALIDATION_FAILED', 'data.date');
    assertError(await move({ subscriptionID: id, date: '01/02/2025', serviceCode: 'WATER-COM', batchCode: 'ZONE-B' }), 400, 'VALIDATION_FAILED', 'data.batchCode');
    assertError(await move({ subscriptionID: id, date: '01/02/2025', serviceCode: 'OLD' }), 409, 'INVALID_STATE', 'data.serviceCode');
    const r = await move({ subscriptionID: id, date: '01/02/2025', serviceCode: 'WATER-COM', batchCode: 'ZONE-C' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const newId = Number(r.headers.get('x-billrun-subscription-id'));
    const both = (await h.post('/billing/subscriptions/get-subscriptions', list({ accountNumber: 'S-MOVE' }))).body.data.subscriptions;
    const [old, next] = both;
    assert.equal(old.subscriptionID, id);
    assert.equal(old.status, 'terminated');
    assert.equal(old.endDate, '31/01/2025');
    assert.equal(old.movedToSubscriptionID, newId);
    assert.equal(next.subscriptionID, newId);
    assert.equal(next.serviceCode, 'WATER-COM');
    assert.equal(next.batchCode, 'ZONE-C');
    assert.equal(next.startDate, '01/02/2025');
    assert.equal(next.status, 'active');
    assert.equal(next.movedFromSubscriptionID, id);
    assert.deepEqual(next.connectionInputs, old.connectionInputs);
    const readings = (await h.post('/billing/readings/get-readings', env('Retrieve', 'Retrieve Readings', { subscriptionID: newId }))).body.data.readings;
    assert.deepEqual(readings.map((x: { value: string; source: string }) => [x.value, x.source]), [['130', 'move']]);
    assertError(await move({ subscriptionID: id, date: '01/03/2025', batchCode: 'ZONE-B' }), 409, 'INVALID_STATE');
  });

  test('update-subscription replaces inputs, checked; lists filter by account, batch, template and status', async () => {
    await makeAccount(h, 'S-LIST');
    const a = await makeSubscription(h, 'S-LIST');
    const b = await makeSubscription(h, 'S-LIST', { serviceCode: 'WATER-COM', batchCode: 'ZONE-C' });
    const upd = (data: unknown) => h.post(...change('update', 'Update Subscription', data), h.tokens.biller);
    assertError(await upd({ subscriptionID: a, date: '01/02/2025', connectionInputs: { SIZE: 20 } }), 400, 'VALIDATION_FAILED', 'data.connectionInputs.METER_NO');
    assert.equal((await upd({ subscriptionID: a, date: '01/02/2025', connectionInputs: { METER_NO: 'NEW', SIZE: 20 } })).status, 200);
    const huge = await upd({ subscriptionID: a, date: '01/02/2025', unmeteredInputs: { ROOMS: 1e20 } });
    assertError(huge, 400, 'VALIDATION_FAILED', 'data.unmeteredInputs.ROOMS');
    assert.match(huge.body.error.details[0].message, /out of range \(at most 15 digits before the point\)/);
    const ids = async (data: unknown) => (await h.post('/billing/subscriptions/get-subscriptions', list(data))).body.data.subscriptions.map((s: { subscriptionID: number }) => s.subscriptionID);
    assert.deepEqual(await ids({ accountNumber: 'S-LIST' }), [a, b]);
    assert.deepEqual(await ids({ accountNumber: 'S-LIST', batchCode: 'ZONE-C' }), [b]);
    assert.deepEqual(await ids({ accountNumber: 'S-LIST', serviceCode: 'WATER' }), [a]);
    assert.deepEqual(await ids({ accountNumber: 'S-LIST', status: 'terminated' }), []);
    const one = (await h.post('/billing/subscriptions/get-subscriptions', list({ subscriptionID: a }))).body.data.subscriptions[0];
    assert.deepEqual(one.connectionInputs, { METER_NO: 'NEW', SIZE: 20 });
    assert.equal(one.events[0].kind, 'inputs_changed');
    const paged = await h.post('/billing/subscriptions/get-subscriptions', list({ limit: 1, offset: 1, accountNumber: 'S-LIST' }));
    assert.deepEqual(paged.body.data.paging, { limit: 1, offset: 1, total: 2 });
    assertError(await h.post('/billing/subscriptions/get-subscriptions', list({ subscriptionID: a }), h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.subscriptionID');
    assertError(await h.post('/billing/subscriptions/get-subscriptions', list({ status: 'paused' })), 400, 'VALIDATION_FAILED', 'data.status');
  });
});
