// Bad values that only an otherwise valid request reaches: each route's valid example
// (examples.ts) with one field changed at a time to an impossible date, a negative or
// huge number, an amount with too many digits, a string or an array past its limit.
// Each must be refused with a 4xx naming that field, and change nothing. Strings that
// look like SQL or script go into every text field: refused (naming the field) where
// the field's pattern does not admit them, otherwise taken as plain text, never run.
// The sandbox gets its own bad input. badInput.test.ts covers wrong types, envelopes,
// unknown fields and malformed JSON on every route.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, type Answer, type Harness } from '../support/harness.ts';
import { databaseDigest } from '../support/digest.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { EXAMPLES, leaves, pathText, setupRecords, withValue, type Refs } from './examples.ts';
import { suiteCounts } from './counts.ts';

const counts = suiteCounts('bad values');

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  pattern?: string;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  enum?: unknown[];
  const?: unknown;
};

/** The schema of the value at path inside a request body schema. */
function schemaAt(root: Schema, path: (string | number)[]): Schema | undefined {
  let s: Schema | undefined = root;
  for (const k of path) {
    if (!s) return undefined;
    const options: Schema[] = s.anyOf ?? [s];
    s = typeof k === 'number' ? options.find((o) => o.items)?.items : options.find((o) => o.properties?.[k])?.properties?.[k];
  }
  return s;
}

// Every import, refused ones too, is recorded in import_job outside its transaction, on
// purpose (docs/accounts.md: its progress and its errors can be read): not a change of data.
const withoutImportLog = (d: Record<string, string>) => Object.fromEntries(Object.entries(d).filter(([t]) => t !== 'public.import_job'));

const options = (s: Schema) => s.anyOf ?? [s];
const typesOf = (s: Schema) => new Set(options(s).flatMap((o) => (o.type === undefined ? [] : [o.type].flat())));

/** Whether the schema alone admits this string (pattern, length, enum). */
function admitsString(s: Schema, v: string): boolean {
  return options(s).some((o) => {
    if (o.enum) return o.enum.includes(v);
    if (o.const !== undefined) return o.const === v;
    if (o.type !== 'string') return false;
    if (o.maxLength !== undefined && [...v].length > o.maxLength) return false;
    if (o.minLength !== undefined && [...v].length < o.minLength) return false;
    return o.pattern === undefined || new RegExp(o.pattern, 'u').test(v);
  });
}

const IMPOSSIBLE_DATES = ['31/02/2026', '29/02/2025', '31/04/2026', '31/11/2026', '00/01/2026', '32/01/2026', '15/13/2026', '15/00/2026', '2026-02-30', '2026-13-01', '0000-00-00', '01/01/0000', '31/12/1899', '0000-01-01'];
// Years PostgreSQL has not (0000) or the calendar does not take (before 1900), as dates.
const IMPOSSIBLE_TIMES = ['0000-01-01T00:00:00', '1899-12-31T23:59:59', '10000-01-01T00:00:00', '2026-02-30T10:00:00', '2025-02-29T00:00:00', '2026-11-01T24:00:01', '2026-11-01T10:60:00', '2026-11-01T10:00:61', '2026-13-01T10:00:00'];
const BAD_INTEGERS = [-1, -2147483649, 1.5, 2 ** 53 + 2, 1e308, -1e308];
const BAD_AMOUNTS = [-5, '-5', 0, '0', '0.00', '10.001', '12.3456789', '1234567890123456789', 1e308, '1e5', 'NaN', 'Infinity', '-0.01'];
// Meter readings: negative, past the meter's roll-over (100000), more decimals than its 0, not numbers.
const BAD_READINGS = [-1, '-1', '-0.5', '100000', '100001', 1e308, '1e400', '99999999999999999999999', '12.5', 'NaN', ''];
const HOSTILE = ["'; DROP TABLE account; --", "1' OR '1'='1", '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '${7*7}{{7*7}}', "Robert'); DELETE FROM bill;--"];

describe('bad values in otherwise valid requests', () => {
  let h: Harness;
  let refs: Refs;
  let bodies: Record<string, Schema>;
  before(async () => {
    h = await startHarness();
    const worker: Runner = await startWorker(h.db, h.config, 1);
    refs = await setupRecords(h, h.tokens.admin, 'A', async (termID) => {
      for (let i = 0; i < 300; i++) {
        if ((await h.db.query('SELECT status FROM term WHERE term_id = $1', [termID])).rows[0]?.status === 'Processed') return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the term was not processed');
    });
    // The worker's heartbeat is a table too: stopped, so that a digest moves only with requests.
    await worker.stop();
    const doc = (await h.request('GET', '/openapi.json')).body;
    bodies = Object.fromEntries(Object.entries<any>(doc.paths).flatMap(([p, item]) => (item.post?.requestBody?.content?.['application/json']?.schema ? [[p, item.post.requestBody.content['application/json'].schema]] : [])));
  });
  after(async () => {
    counts.print();
    await h.close();
  });

  const send = async (path: string, body: unknown): Promise<Answer> => {
    counts.requests++;
    const r = await h.post(path, body);
    assert.ok(r.status < 500, `${path}: ${r.status} ${JSON.stringify(r.body)?.slice(0, 300)}`);
    return r;
  };
  const assertRefusedNaming = (r: Answer, what: string, field: string) => {
    assert.ok(r.status >= 400 && r.status < 500, `${what}: expected 4xx, got ${r.status} ${JSON.stringify(r.body)?.slice(0, 400)}`);
    assert.equal(r.body.success, false, what);
    assert.equal(r.body.statusCode, r.status, what);
    assert.equal(r.body.data, null, what);
    if (r.status === 413) return; // past the body limit: refused before any field is read
    const paths: string[] = (r.body.error.details ?? []).map((d: { path: string }) => d.path);
    assert.ok(
      paths.some((p) => p === field || p.startsWith(field + '.') || p.startsWith(field + '[') || field.startsWith(p + '[')),
      `${what}: details should name ${field}, got ${JSON.stringify(r.body.error)}`,
    );
  };

  /** The impossible values for one leaf of a body, by what its schema says it is. */
  function badValuesFor(path: (string | number)[], value: unknown, s: Schema): unknown[] {
    const key = path[path.length - 1];
    const patterns = options(s).map((o) => o.pattern ?? '').join(' ');
    if (key === 'amount') return BAD_AMOUNTS;
    if (key === 'value' && path.includes('readings')) return BAD_READINGS;
    if (key === 'value' && path.includes('rows')) return BAD_READINGS;
    if (patterns.includes('T[0-9]{2}')) return IMPOSSIBLE_TIMES;
    if (patterns.includes('[0-9]{2}/[0-9]{2}/[0-9]{4}')) return IMPOSSIBLE_DATES;
    if (typeof value === 'string' && /^\d{2}\/\d{2}\/\d{4}$/.test(value)) return IMPOSSIBLE_DATES; // dates in import rows
    const types = typesOf(s);
    if (types.has('integer')) {
      return BAD_INTEGERS.filter((v) =>
        options(s).every((o) => !Number.isInteger(v) || (o.minimum !== undefined && v < o.minimum) || (o.maximum !== undefined && v > o.maximum) || (o.enum && !o.enum.includes(v))),
      );
    }
    if (types.has('string')) {
      const max = Math.max(...options(s).map((o) => o.maxLength ?? -1));
      if (max > 0) return ['x'.repeat(max + 1), `${'9'.repeat(max + 1)}`];
    }
    return [];
  }

  test('impossible dates, negative and huge numbers, amounts, strings past their limit: 4xx naming the field, nothing changed', () =>
    counts.track(async () => {
      let tried = 0;
      for (const [path, example] of Object.entries(EXAMPLES)) {
        const schema = bodies[path];
        assert.ok(schema, `${path} is in the OpenAPI document`);
        const base = example.body(refs);
        const before = await databaseDigest(h.db);
        for (const leaf of leaves(base)) {
          if (['method', 'action', 'apiVersion', 'operation'].includes(String(leaf.path[0]))) continue;
          // A template's components and inputs are checked by the template's own tests; its scalar fields here.
          if (leaf.path[0] === 'service' && leaf.path.length > 2) continue;
          const s = schemaAt(schema, leaf.path) ?? {};
          for (const bad of badValuesFor(leaf.path, leaf.value, s)) {
            if (bad === leaf.value) continue;
            const field = pathText(leaf.path);
            const r = await send(path, withValue(base, leaf.path, bad));
            assertRefusedNaming(r, `${path} ${field}=${JSON.stringify(bad)?.slice(0, 40)}`, field);
            tried++;
          }
        }
        assert.deepEqual(withoutImportLog(await databaseDigest(h.db)), withoutImportLog(before), `${path}: a refused request changed a table`);
        counts.records++;
      }
      assert.ok(tried > 300, `only ${tried} bad values tried`);
    }));

  test('arrays past their limit: refused naming the array (or 413 past the body limit), nothing changed', () =>
    counts.track(async () => {
      const before = await databaseDigest(h.db);
      for (const [path, example] of Object.entries(EXAMPLES)) {
        const base = example.body(refs);
        const arrays = new Map<string, (string | number)[]>();
        for (const leaf of leaves(base)) {
          const i = leaf.path.findIndex((k) => typeof k === 'number');
          if (i > 0) arrays.set(pathText(leaf.path.slice(0, i)), leaf.path.slice(0, i));
        }
        for (const [field, at] of arrays) {
          if (at[0] === 'service') continue;
          const s = schemaAt(bodies[path]!, at);
          const max = s && options(s).find((o) => o.maxItems !== undefined)?.maxItems;
          if (max === undefined) continue;
          let list: unknown = base;
          for (const k of at) list = (list as Record<string | number, unknown>)[k];
          const first = (list as unknown[])[0];
          const r = await send(path, withValue(base, at, Array.from({ length: max + 1 }, () => first)));
          assertRefusedNaming(r, `${path} ${field} with ${max + 1} items`, field);
        }
      }
      assert.deepEqual(withoutImportLog(await databaseDigest(h.db)), withoutImportLog(before));
      counts.records++;
    }));

  test('strings that look like SQL or script: refused naming the field where the field does not admit them, else kept as plain text', () =>
    counts.track(async () => {
      let refused = 0;
      let taken = 0;
      for (const [path, example] of Object.entries(EXAMPLES)) {
        const base = example.body(refs);
        for (const leaf of leaves(base)) {
          if (typeof leaf.value !== 'string' || ['method', 'action', 'apiVersion', 'operation'].includes(String(leaf.path[0]))) continue;
          if (leaf.path[0] === 'service' && leaf.path.length > 2) continue;
          const s = schemaAt(bodies[path]!, leaf.path);
          for (const hostile of HOSTILE) {
            const field = pathText(leaf.path);
            const what = `${path} ${field}=${hostile}`;
            // A fresh example each time: one taken makes its new record, and the next must not collide with it.
            const r = await send(path, withValue(example.body(refs), leaf.path, hostile));
            // Rows of imports are free-form objects to the schema (checked by the import): no pattern to decide by.
            if (s && !admitsString(s, hostile)) {
              assertRefusedNaming(r, what, field);
              refused++;
            } else {
              // Plain text: served (200) or refused as any other value would be, never an error of the server.
              assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500 && r.body.success === false), what);
              taken++;
            }
          }
        }
      }
      // Nothing was run: every table is still there and answers.
      for (const t of ['account', 'bill', 'reading', 'subscription', 'app_user', 'term']) {
        const n = await h.db.query(`SELECT count(*)::int AS n FROM ${t}`);
        assert.ok(n.rows[0].n >= 1, `${t} still has its rows`);
      }
      const name = await h.post('/billing/accounts/get-accounts', { method: 'Retrieve', action: 'Retrieve Accounts', apiVersion: 'v2', data: { name: "'; DROP TABLE account; --" } });
      assert.equal(name.status, 200);
      assert.ok(name.body.data.accounts.every((a: { name: string }) => a.name.includes("'; DROP TABLE account; --")), 'a filter by such a name finds only accounts so named');
      assert.ok(refused > 50 && taken > 20, `both kinds of field were tried: ${refused} refused, ${taken} taken`);
      counts.records += refused + taken;
    }));

  test('the sandbox: bad ids, limits, bodies and JSON answer 4xx as { code, message }, nothing changed', () =>
    counts.track(async () => {
      const bearer = `Bearer ${h.tokens.admin}`;
      const before = await databaseDigest(h.db);
      const sandbox = async (method: string, path: string, opts: { body?: unknown; raw?: string; type?: string } = {}) => {
        counts.requests++;
        const r =
          opts.raw !== undefined
            ? await h.request(method, path, { token: bearer, raw: opts.raw, headers: { 'content-type': opts.type ?? 'application/json' } })
            : await h.request(method, path, { token: bearer, body: opts.body });
        assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} ${JSON.stringify(opts).slice(0, 80)}: ${r.status} ${JSON.stringify(r.body)}`);
        assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message'], `${method} ${path}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.code, /^[A-Z_]+$/);
        return r;
      };
      for (const id of ['0', '-1', '1.5', 'abc', "1'%20OR%20'1'='1", '%3Cscript%3E', '99999999999999999999', '1e3', '%00', 'x'.repeat(40), String(refs.plantId) + 'x']) {
        // No plant (404), or, past the id's 30 characters, refused as too long (400).
        for (const method of ['GET', 'DELETE']) assert.equal((await sandbox(method, `/sandbox/plants/${id}`)).status, id.length > 30 ? 400 : 404, `${method} plant ${id}`);
      }
      for (const limit of ['0', '-1', '101', '1000', 'abc', '1.5', "1'%20OR%201=1", '', '99999999999']) {
        const r = await sandbox('GET', `/sandbox/plants?limit=${limit}`);
        assert.equal(r.status, 400);
        assert.match(r.body.message, /limit/);
      }
      assert.equal((await sandbox('GET', '/sandbox/plants?limit=5&extra=1')).status, 400);
      const badBodies: [unknown, string][] = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ name: 12 }, 'name'],
        [{ name: null }, 'name'],
        [{ name: ['a'] }, 'name'],
        [{ name: { deep: { deeper: {} } } }, 'name'],
        [{ name: 'ok', tag: 'x'.repeat(201) }, 'tag'],
        [{ name: 'ok', tag: 5 }, 'tag'],
        [{ name: 'ok', owner: "'; DROP TABLE plant; --" }, 'owner'],
        [{ name: 'ok', id: 7 }, 'id'],
      ];
      for (const [body, field] of badBodies) {
        const r = await sandbox('POST', '/sandbox/plants', { body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.ok(r.body.message.includes(field), `the message names ${field}: ${r.body.message}`);
      }
      let deep: unknown = 'x';
      for (let i = 0; i < 2000; i++) deep = { name: deep };
      await sandbox('POST', '/sandbox/plants', { body: deep });
      for (const raw of ['{', '{"name":', '[1,2', 'null', '"text"', '12', '{"name":"a",}', '\u0000', `{"name":"a","__proto__":{"x":1}}`]) await sandbox('POST', '/sandbox/plants', { raw });
      await sandbox('POST', '/sandbox/plants', { raw: 'name=a', type: 'application/x-www-form-urlencoded' });
      await sandbox('POST', '/sandbox/plants', { raw: JSON.stringify({ name: 'a', pad: 'x'.repeat(h.config.bodyLimitBytes) }) });
      assert.equal((await sandbox('PUT', `/sandbox/plants/${refs.plantId}`, { body: { name: 'b' } })).status, 404);
      assert.deepEqual(await databaseDigest(h.db), before, 'no table changed');
      // Script-looking text is a plant's name like any other, stored and answered as sent.
      counts.requests++;
      const made = await h.request('POST', '/sandbox/plants', { token: bearer, body: { name: '<script>alert(1)</script>', tag: "'; DROP TABLE plant; --" } });
      assert.equal(made.status, 201);
      assert.deepEqual([made.body.name, made.body.tag], ['<script>alert(1)</script>', "'; DROP TABLE plant; --"]);
      counts.records++;
    }));
});
