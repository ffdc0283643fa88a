import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTermBody } from '../terms/fixtures.ts';

const listBody = { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' };

function assertFailure(r: { status: number; body: any }, status: number, code: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.equal(r.body.statusCode, status);
  assert.equal(r.body.data, null);
  assert.equal(r.body.error.code, code);
  assert.equal(typeof r.body.message, 'string');
  assert.ok(!JSON.stringify(r.body).includes('    at '), 'no stack trace');
}

describe('envelopes and errors', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ bodyLimitBytes: 4096 }, (app) => {
      app.post('/billing/test/crash', async () => {
        throw new Error('secret internal detail');
      });
    });
  });
  after(() => h.close());

  test('malformed JSON is MALFORMED_JSON', async () => {
    const r = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: '{"method":', headers: { 'content-type': 'application/json' } });
    assertFailure(r, 400, 'MALFORMED_JSON');
  });

  // A fuzzer's payment of 0.300000000000000000000000000004 was recorded as 0.30, and a
  // reference 9007199254740993 kept as 9007199254740992: JSON.parse had changed them.
  test('a number JSON.parse would change is refused on its field; one it keeps is taken', async () => {
    const post = (raw: string) => h.request('POST', '/billing/terms/get-terms', { token: h.tokens.admin, raw, headers: { 'content-type': 'application/json' } });
    const body = (data: string) => `{"method":"Retrieve","action":"Retrieve Terms","apiVersion":"v2","operation":"schedule","data":${data}}`;
    for (const [data, path] of [
      ['{"termID":9007199254740993}', 'data.termID'],
      ['{"termID":1,"x":[1, 0.300000000000000000000000000004]}', 'data.x[1]'],
      ['{"termID":123456789012345678901234567890}', 'data.termID'],
    ] as const) {
      const r = await post(body(data));
      assertFailure(r, 400, 'VALIDATION_FAILED');
      assert.deepEqual(r.body.error.details, [{ path, message: 'has more digits than a JSON number keeps exactly: send it as a string' }]);
    }
    // Written with more zeros, or as an exponent, the number is still the same.
    for (const data of ['{"termID":1.000000000000000000}', '{"termID":10000000000000000e-16}', '{"termID":9007199254740992}']) {
      const r = await post(body(data));
      assert.notEqual(r.body.error?.details?.[0]?.message, 'has more digits than a JSON number keeps exactly: send it as a string', data);
    }
  });

  // JSON.parse keeps the last of two same-named fields: a gateway reading the first would pass one value and billrun act on another (a fuzzer).
  test('a field written twice in one object is refused on its path; the same name in two objects, or inside a string, is not', async () => {
    const post = (raw: string) => h.request('POST', '/billing/terms/get-terms', { token: h.tokens.admin, raw, headers: { 'content-type': 'application/json' } });
    const head = '"method":"Retrieve","action":"Retrieve Terms","apiVersion":"v2","operation":"schedule"';
    for (const [raw, paths] of [
      [`{${head},"data":{"termID":1},"data":{"termID":2}}`, ['data']],
      [`{${head},"data":{"termID":1,"termID":2}}`, ['data.termID']],
      [`{${head},"data":{"x":[{"a":1},{"a":1,"a":2}],"termID":1}}`, ['data.x[1].a']],
      [`{${head},"data":{"t\u0065rmID":1,"termID":2}}`, ['data.termID']],
    ] as const) {
      const r = await post(raw);
      assertFailure(r, 400, 'VALIDATION_FAILED');
      assert.deepEqual(r.body.error.details, paths.map((path) => ({ path, message: 'is given twice in one object' })), raw);
    }
    // A name in two objects, and a value that looks like a field, are as before.
    for (const raw of [`{${head},"data":{"termID":1}}`, `{${head},"data":{"label":"\"termID\": 2","termID":1}}`, `{${head},"data":{"x":[{"a":1},{"a":2}],"termID":1}}`]) {
      const r = await post(raw);
      assert.notEqual(r.body.error?.details?.[0]?.message, 'is given twice in one object', raw);
    }
  });

  // A fuzzer's gzip body was "not valid JSON", a plain one labelled gzip was taken, and latin1 was read as UTF-8.
  test('a compressed body, or one in another character set, is UNSUPPORTED_MEDIA_TYPE on its header', async () => {
    const body = JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' });
    for (const [headers, path] of [
      [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'Content-Encoding'],
      [{ 'content-type': 'application/json; charset=latin1' }, 'Content-Type'],
    ] as const) {
      const r = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: body, headers });
      assertFailure(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.deepEqual(r.body.error.details.map((d: any) => d.path), [path]);
    }
    for (const headers of [{ 'content-type': 'application/json; charset=UTF-8' }, { 'content-type': 'application/json', 'content-encoding': 'identity' }] as Record<string, string>[]) {
      assert.equal((await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: body, headers })).status, 200);
    }
  });

  test('a wrong content type is UNSUPPORTED_MEDIA_TYPE', async () => {
    const r = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: 'method=Retrieve', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertFailure(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a body over the limit is PAYLOAD_TOO_LARGE', async () => {
    const r = await h.post('/billing/services/get-services', { ...listBody, serviceCode: 'x'.repeat(10_000) });
    assertFailure(r, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('an empty body is refused in the envelope', async () => {
    const r = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.success, false);
  });

  test('an unknown route under /billing is ROUTE_NOT_FOUND in the envelope', async () => {
    const r = await h.post('/billing/nothing/here', listBody);
    assertFailure(r, 404, 'ROUTE_NOT_FOUND');
    const g = await h.request('GET', '/billing/services/get-services', { token: h.tokens.admin });
    assertFailure(g, 404, 'ROUTE_NOT_FOUND');
  });

  test('wrong method, action and apiVersion name the field', async () => {
    const m = await h.post('/billing/services/get-services', { ...listBody, method: 'Create' });
    assertFailure(m, 400, 'VALIDATION_FAILED');
    assert.deepEqual(m.body.error.details.map((d: any) => d.path), ['method']);
    const a = await h.post('/billing/services/get-services', { ...listBody, action: 'Retrieve Everything' });
    assertFailure(a, 400, 'VALIDATION_FAILED');
    assert.deepEqual(a.body.error.details.map((d: any) => d.path), ['action']);
    const v = await h.post('/billing/services/get-services', { ...listBody, apiVersion: 'v1' });
    assertFailure(v, 400, 'UNSUPPORTED_API_VERSION');
    assert.equal(v.body.error.details[0].path, 'apiVersion');
    const missing = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages' });
    assertFailure(missing, 400, 'VALIDATION_FAILED');
    assert.equal(missing.body.error.details[0].path, 'apiVersion');
    const notObject = await h.post('/billing/services/get-services', [1, 2]);
    assertFailure(notObject, 400, 'VALIDATION_FAILED');
  });

  test('a crash is INTERNAL with no detail or stack in the answer', async () => {
    const r = await h.post('/billing/test/crash', listBody);
    assertFailure(r, 500, 'INTERNAL');
    assert.ok(!JSON.stringify(r.body).includes('secret internal detail'));
  });

  test('every answer carries a request id', async () => {
    const r = await h.post('/billing/services/get-services', listBody);
    assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const mine = await h.post('/billing/services/get-services', listBody, h.tokens.admin, { 'x-request-id': 'trace-me-1' });
    assert.equal(mine.headers.get('x-request-id'), 'trace-me-1');
  });

  // Issue 9, defect 2: the replay lost X-Billrun-Account-Id / X-Billrun-Term-Id, and a
  // client that lost the first answer had no other way to learn the new record's id.
  test('an Idempotency-Key replay answers exactly as the first time, headers included', async () => {
    await makeTemplate(h);
    const cases: [string, unknown, string][] = [
      ['/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'IDEM-1', name: 'Jane' } }, 'x-billrun-account-id'],
      ['/billing/terms/make-term', makeTermBody({ billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' }), 'x-billrun-term-id'],
    ];
    for (const [path, body, idHeader] of cases) {
      const key = { 'idempotency-key': `replay-${path}` };
      const first = await h.post(path, body, h.tokens.admin, key);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.match(first.headers.get(idHeader) ?? '', /^[0-9]+$/, `${path}: first answer has ${idHeader}`);
      const replay = await h.post(path, body, h.tokens.admin, key);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.status, first.status);
      assert.deepEqual(replay.body, first.body);
      assert.equal(replay.headers.get(idHeader), first.headers.get(idHeader), `${path}: the replay has ${idHeader}`);
    }
    // A refusal is replayed with its headers too (the import's id travels on failure).
    const bad = { method: 'Create', action: 'Create Import', apiVersion: 'v2', data: { kind: 'accounts', rows: [{ accountNumber: 'IDEM-1', name: 'again' }] } };
    const key = { 'idempotency-key': 'replay-refused-import' };
    const first = await h.post('/billing/imports/make-import', bad, h.tokens.admin, key);
    assert.equal(first.status, 400, JSON.stringify(first.body));
    const replay = await h.post('/billing/imports/make-import', bad, h.tokens.admin, key);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.status, 400);
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('x-billrun-import-id'), first.headers.get('x-billrun-import-id'));
  });

  test('health, readiness, OpenAPI and the reference page', async () => {
    assert.equal((await h.request('GET', '/healthz')).status, 200);
    const ready = await h.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    const doc = await h.request('GET', '/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, '3.1.0');
    for (const p of ['/billing/services/make-service', '/billing/services/get-services', '/auth/login', '/sandbox/plants', '/sandbox/plants/{id}']) {
      assert.ok(doc.body.paths[p], `OpenAPI has ${p}`);
    }
    const page = await h.request('GET', '/docs/');
    assert.equal(page.status, 200);
    assert.match(String(page.body), /<html/i);
  });
});
