// Bad input, generated: for every business route in the OpenAPI document (so a new route
// is covered the day it lands), requests with wrong envelopes, wrong types, unknown and
// missing fields, hostile strings, deep nesting and malformed JSON. Every answer must be
// a 4xx in the envelope naming a field, never a 5xx, and no table may change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
    if (!path.startsWith('/billing/')) continue;
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
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
