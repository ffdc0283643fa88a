// Tenancy and roles, generated over every route of the OpenAPI document: a user of app B
// naming app A's records gets exactly what naming a missing record gets and sees nothing
// of app A; a role that may not gets 403; no token, a garbage, an expired or a logged-out
// token gets 401; and none of these changes a table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Runner } from 'graphile-worker';
import { startHarness, PASSWORD, type Answer, type Harness } from '../support/harness.ts';
import { databaseDigest } from '../support/digest.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { tokenHash } from '../../src/auth/token.ts';
import { EXAMPLES, MISSING, NOT_JSON, leaves, pathText, refFor, setupRecords, withValue, type Refs } from './examples.ts';
import { suiteCounts } from './counts.ts';

const counts = suiteCounts('tenancy and roles');

describe('tenancy and roles on every route', () => {
  let h: Harness;
  let worker: Runner;
  let a: Refs;
  let b: Refs;
  let routes: string[];
  before(async () => {
    h = await startHarness({ billRunChunkSize: 10 });
    worker = await startWorker(h.db, h.config, 1);
    const runTerm = async (termID: number) => {
      for (let i = 0; i < 300; i++) {
        const t = await h.db.query('SELECT status FROM term WHERE term_id = $1', [termID]);
        if (t.rows[0]?.status === 'Processed') return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`term ${termID} was not processed`);
    };
    a = await setupRecords(h, h.tokens.admin, 'A', runTerm, { spareBilledFirst: true });
    b = await setupRecords(h, h.tokens.otherAdmin, 'B', runTerm);
    const doc = (await h.request('GET', '/openapi.json')).body;
    routes = Object.keys(doc.paths).filter((p) => p.startsWith('/billing/') || p.startsWith('/admin/'));
  });
  after(async () => {
    counts.print();
    await worker?.stop();
    await h.close();
  });

  const post = async (path: string, body: unknown, token: string) => {
    counts.requests++;
    const r = await h.post(path, body, token);
    assert.ok(r.status < 500, `${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };

  /** What app A has that app B must never be shown (values B did not send itself). */
  const secretsOfA = (sent: unknown) =>
    [a.accountNumber, a.spareAccountNumber, a.serviceCode, a.batchCode, a.otherBatchCode, a.paymentReference, 'Customer of A', 'Spare of A', 'A fern', 'admin@a.test'].filter(
      (s) => s !== sent,
    );
  const assertNothingOfA = (r: Answer, what: string, sent?: unknown) => {
    const text = JSON.stringify(r.body);
    for (const s of secretsOfA(sent)) assert.ok(!text.includes(s), `${what}: the answer shows app A's ${s}: ${text.slice(0, 300)}`);
    counts.records++;
  };

  test('every business route has an example (a new route must get one)', () => {
    const missing = routes.filter((p) => !EXAMPLES[p] && !NOT_JSON.has(p));
    assert.deepEqual(missing, []);
  });

  test("app B naming app A's records answers exactly as naming missing ones", () =>
    counts.track(async () => {
      let pairs = 0;
      for (const path of routes.filter((p) => EXAMPLES[p])) {
        const example = EXAMPLES[path]!;
        const base = example.body(b);
        for (const leaf of leaves(base)) {
          const key = leaf.path[leaf.path.length - 1];
          if (typeof key !== 'string' || !(key in MISSING) || example.newKeys?.includes(key)) continue;
          // `code` names the template only as service.code; deeper it is a component's or a value's own code.
          if (key === 'code' && leaf.path.length !== 2) continue;
          const theirs = refFor(key, a);
          if (theirs === undefined) continue;
          assert.notEqual(theirs, refFor(key, b), `${path} ${key}: app A's value is app B's own too, the test would prove nothing`);
          const what = `${path} ${pathText(leaf.path)}=${JSON.stringify(theirs)}`;
          const other = await post(path, withValue(base, leaf.path, theirs), h.tokens.otherAdmin);
          const missing = await post(path, withValue(base, leaf.path, MISSING[key]), h.tokens.otherAdmin);
          assert.equal(other.status, missing.status, `${what}: ${JSON.stringify(other.body)} vs missing ${JSON.stringify(missing.body)}`);
          assert.equal(other.body?.error?.code, missing.body?.error?.code, what);
          assert.deepEqual(
            (other.body?.error?.details ?? []).map((d: { path: string }) => d.path),
            (missing.body?.error?.details ?? []).map((d: { path: string }) => d.path),
            what,
          );
          // Not vacuous: the answer is about the record named, not some other fault of the body.
          const field = pathText(leaf.path);
          const named = (missing.body?.error?.details ?? []).map((d: { path: string }) => d.path);
          assert.ok(missing.status === 200 || missing.body?.error?.code === 'NOT_FOUND' || named.some((p: string) => p === field || p.startsWith(field + '.')), `${what}: the missing record's answer should name ${field}: ${JSON.stringify(missing.body)}`);
          if (other.status === 200) assert.deepEqual(other.body.data, missing.body.data, `${what}: a Retrieve shows the same as for a missing record`);
          assertNothingOfA(other, what, theirs);
          pairs++;
        }
      }
      assert.ok(pairs >= 40, `only ${pairs} references tried`);
    }));

  test("lists of app B show nothing of app A's", () =>
    counts.track(async () => {
      for (const path of routes.filter((p) => EXAMPLES[p])) {
        const body = EXAMPLES[path]!.body(b) as { method: string; data?: unknown };
        if (body.method !== 'Retrieve') continue;
        const unfiltered = { ...body, data: {} } as Record<string, unknown>;
        delete unfiltered.serviceCode;
        const r = await post(path, unfiltered, h.tokens.otherAdmin);
        assertNothingOfA(r, `${path} without filters`);
      }
      counts.requests++;
      const plants = await h.request('GET', '/sandbox/plants?limit=100', { token: `Bearer ${h.tokens.otherAdmin}` });
      assert.equal(plants.status, 200);
      assert.ok(plants.body.some((p: { id: number }) => p.id === b.plantId));
      assertNothingOfA(plants, 'sandbox plants');
      assert.ok(!plants.body.some((p: { id: number }) => p.id === a.plantId));
    }));

  test("the sandbox answers app A's plant to app B as a missing one", () =>
    counts.track(async () => {
      const digest = await databaseDigest(h.db);
      for (const method of ['GET', 'DELETE']) {
        const other = await h.request(method, `/sandbox/plants/${a.plantId}`, { token: `Bearer ${h.tokens.otherAdmin}` });
        const missing = await h.request(method, `/sandbox/plants/${MISSING.accountID}`, { token: `Bearer ${h.tokens.otherAdmin}` });
        counts.requests += 2;
        assert.equal(other.status, 404);
        assert.deepEqual(other.body, missing.body);
        counts.records++;
      }
      assert.deepEqual(await databaseDigest(h.db), digest);
    }));

  test('a role that may not gets 403 and changes nothing; one that may is served', () =>
    counts.track(async () => {
      const digest = await databaseDigest(h.db);
      for (const path of routes.filter((p) => EXAMPLES[p])) {
        const example = EXAMPLES[path]!;
        const body = example.body(a);
        const asViewer = await post(path, body, h.tokens.viewer);
        if (example.role === 'viewer') {
          // The examples are valid: a read answers 200, which also proves the 403s are not schema refusals in disguise.
          assert.equal(asViewer.status, 200, `${path} as viewer: ${JSON.stringify(asViewer.body)}`);
          assertNothingOfBInA(asViewer, path);
        } else {
          assert.equal(asViewer.status, 403, `${path} as viewer: ${JSON.stringify(asViewer.body)}`);
          assert.equal(asViewer.body.error.code, 'FORBIDDEN');
        }
        if (example.role === 'admin') {
          const asBiller = await post(path, body, h.tokens.biller);
          assert.equal(asBiller.status, 403, `${path} as biller: ${JSON.stringify(asBiller.body)}`);
          assert.equal(asBiller.body.error.code, 'FORBIDDEN');
        }
        counts.records++;
      }
      // The CSV import and the sandbox's writes.
      counts.requests += 3;
      const csv = await h.request('POST', '/billing/imports/upload-import?kind=accounts', { token: h.tokens.viewer, raw: 'accountNumber,name\nV-1,Viewer\n', headers: { 'content-type': 'text/csv' } });
      assert.equal(csv.status, 403);
      const plant = await h.request('POST', '/sandbox/plants', { token: `Bearer ${h.tokens.viewer}`, body: { name: 'weed' } });
      assert.deepEqual([plant.status, plant.body.code], [403, 'FORBIDDEN']);
      const gone = await h.request('DELETE', `/sandbox/plants/${a.plantId}`, { token: `Bearer ${h.tokens.viewer}` });
      assert.deepEqual([gone.status, gone.body.code], [403, 'FORBIDDEN']);
      assert.deepEqual(await databaseDigest(h.db), digest, 'no table changed');
    }));

  const assertNothingOfBInA = (r: Answer, what: string) => {
    const text = JSON.stringify(r.body);
    for (const s of [b.accountNumber, b.serviceCode, 'Customer of B', 'admin@b.test']) assert.ok(!text.includes(s), `${what}: app A is shown app B's ${s}`);
  };

  test('no token, a garbage, an expired or a logged-out token: 401 on every route, nothing changed', () =>
    counts.track(async () => {
      const login = async () => (await h.login('admin@a.test', PASSWORD)).body.data.accessToken as string;
      const expired = await login();
      await h.db.query("UPDATE access_token SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [tokenHash(expired)]);
      const loggedOut = await login();
      assert.equal((await h.request('POST', '/auth/logout', { token: loggedOut })).status, 200);
      const bad: [string, string | undefined][] = [
        ['no token', undefined],
        ['garbage', 'x'.repeat(43)],
        ['garbage with Bearer', 'Bearer not-a-token'],
        ['two words', 'a b'],
        ['expired', expired],
        ['logged out', loggedOut],
      ];
      const digest = await databaseDigest(h.db);
      for (const [what, token] of bad) {
        for (const path of routes) {
          counts.requests++;
          const r = NOT_JSON.has(path)
            ? await h.request('POST', `${path}?kind=accounts`, { token, raw: 'accountNumber,name\nX-1,X\n', headers: { 'content-type': 'text/csv' } })
            : await h.request('POST', path, { token, body: EXAMPLES[path]!.body(a) });
          assert.equal(r.status, 401, `${path} with ${what}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error.code, 'UNAUTHENTICATED');
          assert.equal(r.body.success, false);
          counts.records++;
        }
        const sandbox: [string, string, unknown][] = [
          ['GET', '/sandbox/plants', undefined],
          ['POST', '/sandbox/plants', { name: 'x' }],
          ['GET', `/sandbox/plants/${a.plantId}`, undefined],
          ['DELETE', `/sandbox/plants/${a.plantId}`, undefined],
        ];
        for (const [method, path, body] of sandbox) {
          counts.requests++;
          const r = await h.request(method, path, { token: token && !token.startsWith('Bearer') ? `Bearer ${token}` : token, body });
          assert.equal(r.status, 401, `${method} ${path} with ${what}`);
          assert.equal(r.body.code, 'UNAUTHENTICATED');
        }
        counts.requests++;
        const out = await h.request('POST', '/auth/logout', { token });
        assert.equal(out.status, 401, `logout with ${what}`);
      }
      // The sandbox demands "Bearer": the bare token of a valid session is not enough there.
      counts.requests++;
      assert.equal((await h.request('GET', '/sandbox/plants', { token: h.tokens.admin })).status, 401);
      assert.deepEqual(await databaseDigest(h.db), digest, 'no table changed');
    }));
});
