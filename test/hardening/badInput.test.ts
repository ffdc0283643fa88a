// Bad input, generated: for every business route in the OpenAPI document (so a new route
// is covered the day it lands), requests with wrong envelopes, wrong types, unknown and
// missing fields, hostile strings, deep nesting and malformed JSON. Every answer must be
// a 4xx in the envelope naming a field, never a 5xx, and no table may change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import fc from 'fast-check';
import { startHarness, type Harness } from '../support/harness.ts';
import { databaseDigest } from '../support/digest.ts';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; const?: unknown; enum?: unknown[]; anyOf?: Schema[] };
type Route = { path: string; body: Schema; fixed: Record<string, unknown> };

const RUNS = Number(process.env.BILLRUN_FUZZ_RUNS ?? 25);
const counts = { requests: 0, refused: 0, serverErrors: 0 };

const hostile = fc.oneof(
  fc.constantFrom("'; DROP TABLE account; --", '<script>alert(1)</script>', '../../etc/passwd', '\u0000', '%s%n', '31/02/2026', '9'.repeat(400), '-1e309', '{{7*7}}'),
  fc.string({ maxLength: 30 }),
);
const wrongValue = fc.oneof(hostile, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.constant(-1e308), fc.constant(1e308), fc.constant(Number.MAX_SAFE_INTEGER + 2));
// Bodies with these keys are refused earlier, as prototype poisoning (a test of its own below).
const noPoisonKeys = (v: unknown) => !/"(__proto__|constructor|prototype)"/.test(JSON.stringify(v));
const nested = (depth: number): unknown => (depth === 0 ? 'deep' : { a: nested(depth - 1) });

/** A value of the wrong JSON type for a schema, so it can never be valid. */
function wrongTypeFor(schema: Schema): fc.Arbitrary<unknown> {
  const types = new Set([schema.type ?? [], ...(schema.anyOf ?? []).map((s) => s.type ?? [])].flat());
  if (types.size === 0 && schema.const === undefined && !schema.enum) return fc.constant({ unexpected: true });
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!types.has('string')) candidates.push(hostile);
  if (!types.has('number') && !types.has('integer')) candidates.push(fc.oneof(fc.integer(), fc.double({ noNaN: true })));
  if (!types.has('object')) candidates.push(fc.constant({ nested: nested(40) }));
  if (!types.has('array')) candidates.push(fc.array(fc.string(), { maxLength: 3 }));
  if (!types.has('boolean')) candidates.push(fc.boolean());
  if (candidates.length === 0 || schema.const !== undefined || schema.enum) candidates.push(fc.constant('not-one-of-the-allowed-values-\u00e9'));
  return fc.oneof(...candidates);
}

function routesFrom(doc: any): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (!['/billing/', '/admin/', '/webhooks/'].some((p) => path.startsWith(p))) continue;
    const body: Schema | undefined = item.post?.requestBody?.content?.['application/json']?.schema;
    if (!body?.properties) continue;
    const fixed: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(body.properties)) {
      // The envelope's fixed values: method, action, apiVersion, operation.
      if (s.const !== undefined) fixed[k] = s.const;
      else if (s.enum?.length === 1 && ['method', 'action', 'apiVersion', 'operation'].includes(k)) fixed[k] = s.enum[0];
    }
    routes.push({ path, body, fixed });
  }
  return routes;
}

describe('bad input on every business route', () => {
  let h: Harness;
  let routes: Route[];
  before(async () => {
    h = await startHarness();
    routes = routesFrom((await h.request('GET', '/openapi.json')).body);
  });
  after(async () => {
    process.stdout.write(
      `# bad input: ${counts.requests} requests tried, 0 faults injected, ${counts.refused} records checked, ${counts.requests - counts.refused} failures (${routes.length} routes, ${counts.serverErrors} 5xx)\n`,
    );
    await h.close();
  });

  const send = async (path: string, init: { body?: unknown; raw?: string; contentType?: string }) => {
    counts.requests++;
    const r =
      init.raw !== undefined
        ? await h.request('POST', path, { token: h.tokens.admin, raw: init.raw, headers: { 'content-type': init.contentType ?? 'application/json' } })
        : await h.post(path, init.body);
    if (r.status >= 500) counts.serverErrors++;
    return r;
  };

  const assertRefused = (r: { status: number; body: any }, what: string, field?: string) => {
    assert.ok(r.status >= 400 && r.status < 500, `${what}: expected 4xx, got ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body?.success, false, what);
    assert.equal(r.body.statusCode, r.status, what);
    assert.equal(r.body.data, null, what);
    assert.match(r.body.error.code, /^[A-Z_]+$/, what);
    if (field !== undefined) {
      const paths: string[] = (r.body.error.details ?? []).map((d: { path: string }) => d.path);
      assert.ok(paths.some((p) => p === field || p.startsWith(field + '.') || p.startsWith(field + '[')), `${what}: details should name ${field}, got ${JSON.stringify(paths)}`);
    }
    counts.refused++;
  };

  test('the OpenAPI document lists the business routes', () => {
    assert.ok(routes.length >= 4, `routes: ${routes.map((r) => r.path).join(', ')}`);
  });

  test('wrong envelopes, wrong types, unknown fields, malformed JSON: 4xx naming the field, nothing changed', async () => {
    const before = await databaseDigest(h.db);
    for (const route of routes) {
      const props = Object.entries(route.body.properties ?? {});
      const payloadKeys = props.filter(([k]) => !(k in route.fixed)).map(([k]) => k);

      // A fixed envelope field with another value.
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(route.fixed)), wrongValue, async (key, value) => {
          if (value === route.fixed[key]) return;
          const r = await send(route.path, { body: { ...route.fixed, [key]: value } });
          assertRefused(r, `${route.path} ${key}=${JSON.stringify(value)}`, key);
        }),
        { numRuns: RUNS },
      );
      // A required field missing.
      for (const key of route.body.required ?? []) {
        const body: Record<string, unknown> = { ...route.fixed };
        delete body[key];
        assertRefused(await send(route.path, { body }), `${route.path} without ${key}`, key);
      }
      // An unknown field, with a hostile value.
      await fc.assert(
        fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in (route.body.properties ?? {})) && k !== '__proto__'), hostile, async (key, value) => {
          const r = await send(route.path, { body: { ...route.fixed, [key]: value } });
          assertRefused(r, `${route.path} unknown ${key}`, key);
        }),
        { numRuns: RUNS },
      );
      // Each payload field with a value of the wrong type.
      for (const key of payloadKeys) {
        await fc.assert(
          fc.asyncProperty(wrongTypeFor(route.body.properties![key]!), async (value) => {
            const r = await send(route.path, { body: { ...route.fixed, [key]: value } });
            assertRefused(r, `${route.path} ${key}=${JSON.stringify(value)?.slice(0, 80)}`, key);
          }),
          { numRuns: Math.max(5, Math.floor(RUNS / 2)) },
        );
      }
      // Random objects as the payload: unknown fields inside are refused.
      for (const key of payloadKeys.filter((k) => route.body.properties![k]!.type === 'object')) {
        await fc.assert(
          fc.asyncProperty(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).map((s) => `x_${s}`), fc.jsonValue({ maxDepth: 3 }).filter(noPoisonKeys), { minKeys: 1, maxKeys: 4 }), async (value) => {
            const r = await send(route.path, { body: { ...route.fixed, [key]: value } });
            assertRefused(r, `${route.path} ${key}=${JSON.stringify(value).slice(0, 80)}`, key);
          }),
          { numRuns: Math.max(5, Math.floor(RUNS / 2)) },
        );
      }
      // Malformed JSON and non-objects.
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constantFrom('{', '{"method":', '[1,2', 'null', '"text"', '12', 'true', '{"a":1}}', '\u0000', '{"method":"Create",}'),
            fc.string({ maxLength: 20 }).filter((s) => {
              try {
                const v = JSON.parse(s);
                return typeof v !== 'object' || v === null || Array.isArray(v);
              } catch {
                return true;
              }
            }),
          ),
          async (raw) => {
            const r = await send(route.path, { raw });
            assertRefused(r, `${route.path} raw ${JSON.stringify(raw)}`);
          },
        ),
        { numRuns: Math.max(5, Math.floor(RUNS / 2)) },
      );
      // A body past the size limit.
      assertRefused(await send(route.path, { raw: JSON.stringify({ ...route.fixed, pad: 'x'.repeat(h.config.bodyLimitBytes) }) }), `${route.path} oversize`);
    }
    assert.deepEqual(await databaseDigest(h.db), before, 'no table changed');
    assert.equal(counts.serverErrors, 0);
  });

  test('prototype poisoning in a body is refused as malformed JSON', async () => {
    for (const route of routes) {
      const raw = `{"method":"x","__proto__":{"polluted":true},"data":{"constructor":{"prototype":{"polluted":true}}}}`;
      const r = await send(route.path, { raw });
      assertRefused(r, `${route.path} __proto__`);
      assert.equal(r.body.error.code, 'MALFORMED_JSON');
      // Valid JSON: the answer says what is refused, not that the JSON is broken.
      assert.match(r.body.error.details[0].message, /__proto__/);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  // 6,000 nested brackets were answered as a "__proto__" key (an outside client).
  test('a body nested too deeply is MALFORMED_JSON saying so', async () => {
    const raw = `{"method":"Retrieve","action":"Retrieve Terms","apiVersion":"v2","operation":"schedule","data":{"x":${'['.repeat(6000)}${']'.repeat(6000)}}}`;
    const r = await send('/billing/terms/get-terms', { raw });
    assertRefused(r, 'nested');
    assert.deepEqual([r.body.error.code, r.body.error.details], ['MALFORMED_JSON', [{ path: 'body', message: 'is nested too deeply' }]]);
  });
});

/** One HTTP exchange over a raw socket, for requests fetch refuses to send (control bytes, broken framing). */
async function rawExchange(url: string, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const u = new URL(url);
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    // The server may reset the connection once it has answered a request it could not read.
    socket.on('error', (err) => (chunks.length > 0 ? resolve(Buffer.concat(chunks)) : reject(err)));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    socket.write(request);
  });
  const text = bytes.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  assert.ok(headEnd > 0, `an HTTP answer, got ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let rest = text.slice(headEnd + 4);
  if (headers['content-length'] !== undefined) rest = rest.slice(0, Number(headers['content-length']));
  let body: unknown = rest;
  try {
    body = rest === '' ? undefined : JSON.parse(rest);
  } catch {}
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

// Issue 9, defects 3 to 6: what a client library, a proxy or an attacker sends that the
// generated cases above do not: bodies-less requests with a JSON content type, text/plain,
// bytes the HTTP parser refuses before any route runs, and text that is not what it looks like.
describe('requests as clients and attackers send them', () => {
  let h: Harness;
  const listBody = JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' });
  const account = (data: Record<string, unknown>) => ({ method: 'Create', action: 'Create Account', apiVersion: 'v2', data });
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const assertEnvelope = (r: { status: number; body: any }, what: string, status?: number, code?: string) => {
    assert.ok(r.status >= 400 && r.status < 500, `${what}: expected 4xx, got ${r.status} ${JSON.stringify(r.body)}`);
    if (status !== undefined) assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body?.success, false, `${what}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.statusCode, r.status, what);
    assert.equal(r.body.data, null, what);
    assert.match(r.body.error.code, /^[A-Z_]+$/, what);
    if (code !== undefined) assert.equal(r.body.error.code, code, what);
  };
  const assertSandboxError = (r: { status: number; body: any }, what: string, status?: number) => {
    assert.ok(r.status >= 400 && r.status < 500, `${what}: expected 4xx, got ${r.status} ${JSON.stringify(r.body)}`);
    if (status !== undefined) assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(Object.keys(r.body ?? {}).sort(), ['code', 'message'], `${what}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.code, /^[A-Z_]+$/, what);
  };
  const raw = (lines: string[], body = '') => lines.join('\r\n') + '\r\n\r\n' + body;

  test('defect 3: a request without a body is read as having none, whatever its Content-Type', async () => {
    const bearer = `Bearer ${h.tokens.admin}`;
    const json = { 'content-type': 'application/json' };
    const made = await h.request('POST', '/sandbox/plants', { token: bearer, body: { name: 'fern' } });
    assert.equal(made.status, 201);
    const list = await h.request('GET', '/sandbox/plants', { token: bearer, headers: json });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const one = await h.request('GET', `/sandbox/plants/${made.body.id}`, { token: bearer, headers: json });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    const gone = await h.request('DELETE', `/sandbox/plants/${made.body.id}`, { token: bearer, headers: json });
    assert.equal(gone.status, 204, JSON.stringify(gone.body));
    // With an explicit Content-Length: 0, as axios and Postman send it.
    const again = await h.request('POST', '/sandbox/plants', { token: bearer, body: { name: 'moss' } });
    const port = new URL(h.url).port;
    const zero = await rawExchange(
      h.url,
      raw([`DELETE /sandbox/plants/${again.body.id} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Authorization: ${bearer}`, 'Content-Type: application/json', 'Content-Length: 0', 'Connection: close']),
    );
    assert.equal(zero.status, 204, JSON.stringify(zero.body));
    const getZero = await rawExchange(h.url, raw(['GET /sandbox/plants HTTP/1.1', `Host: 127.0.0.1:${port}`, `Authorization: ${bearer}`, 'Content-Type: application/json', 'Content-Length: 0', 'Connection: close']));
    assert.equal(getZero.status, 200, JSON.stringify(getZero.body));
    // A business POST still needs its envelope.
    const empty = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: '', headers: json });
    assertEnvelope(empty, 'empty business POST', 400, 'MALFORMED_JSON');
    const none = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin });
    assertEnvelope(none, 'business POST without body or type', 400, 'MALFORMED_JSON');
  });

  test('defect 4: text/plain is 415 UNSUPPORTED_MEDIA_TYPE like the other wrong types', async () => {
    const r = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: listBody, headers: { 'content-type': 'text/plain' } });
    assertEnvelope(r, 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE');
    const charset = await h.request('POST', '/billing/services/get-services', { token: h.tokens.admin, raw: listBody, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    assertEnvelope(charset, 'text/plain; charset', 415, 'UNSUPPORTED_MEDIA_TYPE');
    const sandbox = await h.request('POST', '/sandbox/plants', { token: `Bearer ${h.tokens.admin}`, raw: '{"name":"fern"}', headers: { 'content-type': 'text/plain' } });
    assertSandboxError(sandbox, 'sandbox text/plain', 415);
    assert.equal(sandbox.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('defect 5: what the HTTP parser or Fastify refuse before routing answers in the envelope (the sandbox in its shape)', async () => {
    const port = new URL(h.url).port;
    const host = `Host: 127.0.0.1:${port}`;
    // fetch refuses to send a control byte in a header, as a browser would; a raw client does not.
    await assert.rejects(fetch(h.url + '/billing/services/get-services', { method: 'POST', headers: { authorization: 'abc\u0001def' }, body: listBody }));
    const post = (path: string, headers: string[], body = listBody) =>
      rawExchange(h.url, raw([`POST ${path} HTTP/1.1`, host, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', ...headers], body));
    const business: [string, Promise<{ status: number; body: any }>][] = [
      ['control byte in Authorization', post('/billing/services/get-services', ['Authorization: abc\u0001def'])],
      ['control byte in Authorization after a valid token', post('/billing/services/get-services', [`Authorization: ${h.tokens.admin}\u0001`])],
      ['space in a header name', post('/billing/services/get-services', [`Authorization: ${h.tokens.admin}`, 'Bad Header: x'])],
      ['a header past the size limit', post('/billing/services/get-services', [`Authorization: ${h.tokens.admin}`, `X-Pad: ${'x'.repeat(20_000)}`])],
      ['a bad percent-encoding in the path', post('/billing/services/get-services%E0%A4%A', [`Authorization: ${h.tokens.admin}`])],
      ['Content-Length that is not a number', rawExchange(h.url, raw(['POST /billing/services/get-services HTTP/1.1', host, `Authorization: ${h.tokens.admin}`, 'Content-Length: ten', 'Connection: close'], listBody))],
      ['a request line that is not HTTP', rawExchange(h.url, 'HELLO /billing/services/get-services\r\n\r\n')],
    ];
    for (const [what, answer] of business) {
      const r = await answer;
      assertEnvelope(r, what);
    }
    const header = await post('/billing/services/get-services', [`Authorization: ${h.tokens.admin}`, `X-Pad: ${'x'.repeat(20_000)}`]);
    assert.equal(header.status, 431);
    const get = (path: string, headers: string[]) => rawExchange(h.url, raw([`GET ${path} HTTP/1.1`, host, 'Connection: close', ...headers]));
    const sandbox: [string, Promise<{ status: number; body: any }>][] = [
      ['sandbox: control byte in Authorization', get('/sandbox/plants', ['Authorization: Bearer abc\u0001def'])],
      ['sandbox: space in a header name', get('/sandbox/plants', [`Authorization: Bearer ${h.tokens.admin}`, 'Bad Header: x'])],
      ['sandbox: a bad percent-encoding in the path', get('/sandbox/plants/%E0%A4%A', [`Authorization: Bearer ${h.tokens.admin}`])],
    ];
    for (const [what, answer] of sandbox) assertSandboxError(await answer, what);
    // No Host in HTTP/1.1: Node answered a bare 400 with no body itself (an outside check).
    const hostless = (path: string, auth: string) =>
      rawExchange(h.url, raw([`POST ${path} HTTP/1.1`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(listBody)}`, 'Connection: close', auth], listBody));
    const noHost = await hostless('/billing/services/get-services', `Authorization: ${h.tokens.admin}`);
    assertEnvelope(noHost, 'no Host header', 400, 'MALFORMED_REQUEST');
    assert.deepEqual(noHost.body.error.details, [{ path: 'Host', message: 'is missing' }]);
    assert.match(noHost.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
    assertSandboxError(await rawExchange(h.url, raw(['GET /sandbox/plants HTTP/1.1', 'Connection: close', `Authorization: Bearer ${h.tokens.admin}`])), 'sandbox: no Host header', 400);
    // HTTP/1.0 has no Host to require.
    const old = await rawExchange(h.url, raw(['POST /billing/services/get-services HTTP/1.0', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(listBody)}`, `Authorization: ${h.tokens.admin}`], listBody));
    assert.equal(old.status, 200, JSON.stringify(old.body));
    // Refused before routing, still with the request id every answer carries (the OpenAPI document says so; a fuzzer saw none).
    for (const r of [await get('/sandbox/plants/%ud800', []), await post('/billing/services/get-services%E0%A4%A', [`Authorization: ${h.tokens.admin}`])]) {
      assert.match(r.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(r.headers));
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('defect 6: invalid UTF-8 is refused naming the field, never stored as U+FFFD', async () => {
    const start = Buffer.from(JSON.stringify(account({ accountNumber: 'UTF-1', name: 'X' })).replace('"X"', '"'));
    const body = Buffer.concat([start, Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}}')]);
    const r = await fetch(h.url + '/billing/accounts/make-account', { method: 'POST', headers: { authorization: h.tokens.admin, 'content-type': 'application/json' }, body });
    const answer = { status: r.status, body: (await r.json()) as any };
    assertEnvelope(answer, 'invalid UTF-8', 400);
    assert.ok(['VALIDATION_FAILED', 'MALFORMED_JSON'].includes(answer.body.error.code));
    assert.deepEqual(answer.body.error.details.map((d: { path: string }) => d.path), ['data.name'], JSON.stringify(answer.body));
    // A lone surrogate written as an escape is not text either: PostgreSQL would store U+FFFD.
    const surrogate = await h.request('POST', '/billing/accounts/make-account', {
      token: h.tokens.admin,
      raw: JSON.stringify(account({ accountNumber: 'UTF-2', name: 'X' })).replace('"X"', '"a\\ud800b"'),
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelope(surrogate, 'lone surrogate', 400);
    assert.deepEqual(surrogate.body.error.details.map((d: { path: string }) => d.path), ['data.name']);
    const stored = await h.db.query(`SELECT 1 FROM account WHERE account_number LIKE 'UTF-%'`);
    assert.equal(stored.rowCount, 0, 'nothing stored');
  });

  test('a NUL character (\\u0000) in any text or field name is refused naming the field, never a 500 from the database', async () => {
    // The fuzz above sends \u0000 only where a field is not a string: a template's name, a
    // bill's cancel reason, a payment's description took it, and PostgreSQL refused it (500).
    const service = (name: string) => ({
      method: 'Create',
      action: 'Create Package',
      apiVersion: 'v2',
      service: { code: 'NUL', name, serviceType: 'Sale', chargingType: 'Postpaid', postType: 'Post Subscription', billingCycle: 1, dueDateOffset: 14, components: [{ code: 'FEE', name: 'Fee', model: 'flat', amount: '1.00' }], batches: ['NULZ'] },
    });
    const before = await databaseDigest(h.db);
    const named = await h.request('POST', '/billing/services/make-service', { token: h.tokens.admin, body: service('Wa\u0000ter') });
    assertEnvelope(named, 'NUL in a name', 400, 'VALIDATION_FAILED');
    assert.deepEqual(named.body.error.details, [{ path: 'service.name', message: 'holds a NUL character (\\u0000), which text cannot hold' }]);
    const key = await h.request('POST', '/billing/accounts/make-account', { token: h.tokens.admin, body: account({ accountNumber: 'NUL-1', name: 'X', ['x\u0000y']: 1 }) });
    assertEnvelope(key, 'NUL in a field name', 400, 'VALIDATION_FAILED');
    assert.match(key.body.error.details[0].message, /field name that holds a NUL character/);
    assert.deepEqual(await databaseDigest(h.db), before, 'nothing written');
    // Text that only mentions the escape is text.
    const mention = await h.request('POST', '/billing/services/make-service', { token: h.tokens.admin, body: service('Water \\u0000') });
    assert.equal(mention.status, 200, JSON.stringify(mention.body));
  });

  test('a field of several shapes (text or a number; an object or null) names what is wrong once, not once per shape', async () => {
    // The schema is checked before the account is looked up: no account is needed.
    const pay = (amount: unknown) =>
      h.request('POST', '/billing/payments/make-payment', {
        token: h.tokens.admin,
        body: { method: 'Create', action: 'Create Payment', apiVersion: 'v2', data: { accountNumber: 'SHAPES-1', amount, reference: `SHAPES-${String(amount)}`, channel: 'bank' } },
      });
    const negative = await pay('-5');
    assertEnvelope(negative, 'a negative amount', 400, 'VALIDATION_FAILED');
    assert.equal(negative.body.error.details.length, 1, JSON.stringify(negative.body.error.details));
    assert.equal(negative.body.error.details[0].path, 'data.amount');
    const wrongType = await pay(true);
    assertEnvelope(wrongType, 'an amount that is neither', 400, 'VALIDATION_FAILED');
    assert.deepEqual(wrongType.body.error.details, [{ path: 'data.amount', message: 'must be string or number' }]);
    // A template with a bad field, through make-service (the schema refuses it before anything is read).
    const shapes = (extra: Record<string, unknown>) =>
      h.request('POST', '/billing/services/make-service', {
        token: h.tokens.admin,
        body: {
          method: 'Create',
          action: 'Create Package',
          apiVersion: 'v2',
          service: {
            code: 'SHAPES', name: 'Shapes', serviceType: 'Sale', chargingType: 'Postpaid', postType: 'Post Subscription', billingCycle: 1, dueDateOffset: 14,
            components: [{ code: 'FEE', name: 'Fee', model: 'flat', amount: '1.00' }], batches: ['SHAPESZ'], ...extra,
          },
        },
      });
    // A late charge (an object, or null) with a bad graceDays: that field alone, not also "must be null".
    const late = await shapes({ lateCharge: { graceDays: 400, flat: '5.00' } });
    assertEnvelope(late, 'a late charge with a bad graceDays', 400, 'VALIDATION_FAILED');
    assert.deepEqual(late.body.error.details.map((d: { path: string }) => d.path), ['service.lateCharge.graceDays'], JSON.stringify(late.body.error.details));
    // A word not among a choice of words: one detail naming them, not one per word and a summary.
    const period = await shapes({
      meteredInputs: [{ code: 'WATER', label: 'Water', unit: 'kL', decimals: 0 }],
      components: [{ code: 'W', name: 'Water', model: 'graduated', input: 'WATER', tiers: [{ upTo: null, rate: '1' }], tierProration: { period: 'reading', basisDays: 365, decimals: 0, rounding: 'halfUp' } }],
    });
    assertEnvelope(period, 'a tier proration period that is neither word', 400, 'VALIDATION_FAILED');
    assert.deepEqual(period.body.error.details, [{ path: 'service.components[0].tierProration.period', message: 'must be one of "term", "readingPeriod"' }]);
  });

  test('defect 6: invisible and bidirectional characters are refused in codes and identifiers; names keep any script', async () => {
    const sneaky = ['A\u200bB', '\u202eABC', 'AB\u202c', '\ufeffAB', 'A\u2060B', 'A\u2066B\u2069', 'A\u200dB', 'A\u00adB', 'A\u0085B', 'A\u2028B'];
    for (const accountNumber of sneaky) {
      const r = await h.post('/billing/accounts/make-account', account({ accountNumber, name: 'Jane' }));
      assertEnvelope(r, `accountNumber ${JSON.stringify(accountNumber)}`, 400, 'VALIDATION_FAILED');
      assert.deepEqual(r.body.error.details.map((d: { path: string }) => d.path), ['data.accountNumber']);
      // In words: the rule's regex holds the invisible characters themselves, which read as blanks.
      assert.match(r.body.error.details[0].message, /^must be visible characters: no control, zero-width or bidirectional characters/);
      const imported = await h.post('/billing/imports/make-import', { method: 'Create', action: 'Create Import', apiVersion: 'v2', data: { kind: 'accounts', rows: [{ accountNumber, name: 'Jane' }] } });
      assertEnvelope(imported, `imported accountNumber ${JSON.stringify(accountNumber)}`, 400, 'VALIDATION_FAILED');
      assert.ok(imported.body.error.details.some((d: { path: string }) => d.path === 'data.rows[0].accountNumber'), JSON.stringify(imported.body));
      const reference = await h.post('/billing/payments/make-payment', {
        method: 'Create',
        action: 'Create Payment',
        apiVersion: 'v2',
        data: { accountNumber: 'NOBODY', amount: '1.00', paymentDate: '01/01/2026', reference: accountNumber, channel: 'bank' },
      });
      assertEnvelope(reference, `payment reference ${JSON.stringify(accountNumber)}`, 400, 'VALIDATION_FAILED');
      assert.ok(reference.body.error.details.some((d: { path: string }) => d.path === 'data.reference'), JSON.stringify(reference.body));
      const batch = await h.post('/billing/batches/make-batch', { method: 'Create', action: 'Create Batch', apiVersion: 'v2', data: { batchCode: accountNumber, label: 'x' } });
      assertEnvelope(batch, `batchCode ${JSON.stringify(accountNumber)}`, 400, 'VALIDATION_FAILED');
    }
    const stored = await h.db.query(`SELECT account_number FROM account WHERE app_code = $1`, [h.appCode]);
    assert.equal(stored.rowCount, 0, `nothing stored: ${JSON.stringify(stored.rows)}`);
    // Ordinary Unicode stays welcome where people write names.
    for (const [n, name] of ['Zoë Øyvind', '山田 太郎', 'محمد علي', 'Ἀριστοτέλης', 'Ñandú-Ĳssel'].entries()) {
      const r = await h.post('/billing/accounts/make-account', account({ accountNumber: `NAME-${n}`, name }));
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
      const back = await h.db.query<{ name: string }>(`SELECT name FROM account WHERE app_code = $1 AND account_number = $2`, [h.appCode, `NAME-${n}`]);
      assert.equal(back.rows[0]?.name, name);
    }
  });
});

// An outside check: a client that closed its connection halfway through its body was logged
// as a failure of the server (level 50, with a stack): its ECONNRESET read as the database's.
describe('a client gone before its body has arrived', () => {
  const log: string[] = [];
  let h: Harness;
  before(async () => {
    h = await startHarness({ logLevel: 'info' }, undefined, { logStream: { write: (line) => void log.push(line) } });
  });
  after(() => h.close());

  test('is logged at info as a refused request, never as a failure', async () => {
    const body = JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' });
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(new URL(h.url).port), '127.0.0.1');
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.write(
        ['POST /billing/services/get-services HTTP/1.1', `Host: 127.0.0.1`, 'Content-Type: application/json', 'Content-Length: 500', `Authorization: ${h.tokens.admin}`].join('\r\n') + '\r\n\r\n' + body,
        (err) => (err ? reject(err) : setTimeout(() => socket.destroy(), 300)),
      );
    });
    // The server hears the close and answers into nothing: wait for its log line.
    for (let i = 0; i < 50 && !log.some((l) => l.includes('"request refused"') && l.includes('MALFORMED_REQUEST')); i++) await new Promise((r) => setTimeout(r, 100));
    const lines = log.map((l) => JSON.parse(l) as { level: number; msg: string; code?: string });
    assert.ok(lines.some((l) => l.level === 30 && l.msg === 'request refused' && l.code === 'MALFORMED_REQUEST'), log.join('\n'));
    assert.deepEqual(lines.filter((l) => l.level >= 50), []);
  });
});

// An outside check: a CSV upload refused half-way (a record past its 1 MiB limit) was answered
// on a connection kept alive with the rest of the body unread: the client's next request on it
// waited 73 s and failed, and a stop of the server waited for it.
describe('an upload refused before its body has all arrived', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('is answered in the envelope and its connection closed at once', async () => {
    const body = Buffer.from('accountNumber,name\nRZ-1,' + 'a'.repeat(2_000_000) + '\n');
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = net.connect(Number(new URL(h.url).port), '127.0.0.1');
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the connection was still open after 10 s; received: ${received.slice(0, 300)}`));
      }, 10_000);
      socket.on('data', (d) => (received += d.toString('latin1')));
      // The server closing mid-upload breaks the client's writes: what counts is what it answered.
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.write(
        ['POST /billing/imports/upload-import?kind=accounts HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: text/csv', `Content-Length: ${body.length}`, `Authorization: ${h.tokens.admin}`].join('\r\n') + '\r\n\r\n',
      );
      let at = 0;
      const more = () => {
        while (at < body.length && !socket.destroyed) {
          const chunk = body.subarray(at, at + 65536);
          at += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', more);
        }
      };
      more();
    });
    assert.ok(Date.now() - started < 10_000);
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(json.error.code, 'VALIDATION_FAILED');
    assert.match(json.error.details[0].message, /Max Record Size/);
  });
});
