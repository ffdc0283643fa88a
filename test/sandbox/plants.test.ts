import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';

describe('sandbox plants', () => {
  let h: Harness;
  const bearer = (t: string) => `Bearer ${t}`;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('create, read, list with limit, delete', async () => {
    const made = [];
    for (let i = 0; i < 25; i++) {
      const r = await h.request('POST', '/sandbox/plants', { token: bearer(h.tokens.biller), body: { name: `plant ${i}`, tag: i % 2 ? 'odd' : 'even' } });
      assert.equal(r.status, 201);
      made.push(r.body);
    }
    const untagged = await h.request('POST', '/sandbox/plants', { token: bearer(h.tokens.biller), body: { name: 'bare' } });
    // interface.md: a plant's tag is a string, so one made without a tag answers "" (not left out).
    assert.deepEqual(untagged.body, { id: untagged.body.id, name: 'bare', tag: '' });
    const bare = await h.request('GET', `/sandbox/plants/${untagged.body.id}`, { token: bearer(h.tokens.viewer) });
    assert.equal(bare.body.tag, '');

    const list = await h.request('GET', '/sandbox/plants', { token: bearer(h.tokens.viewer) });
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
    assert.equal(list.body.length, 20); // the default limit
    assert.deepEqual(list.body[0], { id: made[0].id, name: 'plant 0', tag: 'even' });
    const five = await h.request('GET', '/sandbox/plants?limit=5', { token: bearer(h.tokens.viewer) });
    assert.equal(five.body.length, 5);
    const all = await h.request('GET', '/sandbox/plants?limit=100', { token: bearer(h.tokens.viewer) });
    assert.equal(all.body.length, 26);

    const one = await h.request('GET', `/sandbox/plants/${made[3].id}`, { token: bearer(h.tokens.viewer) });
    assert.deepEqual(one.body, made[3]);

    const del = await h.request('DELETE', `/sandbox/plants/${made[3].id}`, { token: bearer(h.tokens.biller) });
    assert.equal(del.status, 204);
    assert.equal(del.body, undefined);
    const again = await h.request('DELETE', `/sandbox/plants/${made[3].id}`, { token: bearer(h.tokens.biller) });
    assert.equal(again.status, 404);
    assert.deepEqual(Object.keys(again.body).sort(), ['code', 'message']);
    assert.equal(again.body.code, 'NOT_FOUND');
  });

  test('refusals: limit out of range, bad body, bad id, no Bearer, viewer writes, another app', async () => {
    for (const q of ['0', '101', 'abc', '-1']) {
      const r = await h.request('GET', `/sandbox/plants?limit=${q}`, { token: bearer(h.tokens.viewer) });
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.match(r.body.message, /limit: must be a whole number from 1 to 100/, q);
    }
    // The document says so too, and takes a number as a generated client holds it.
    const doc = (await h.request('GET', '/openapi.json')).body;
    const limit = doc.paths['/sandbox/plants'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema;
    assert.deepEqual(limit.anyOf.map((x: { type: string }) => x.type), ['integer', 'string']);
    assert.deepEqual([limit.anyOf[0].minimum, limit.anyOf[0].maximum], [1, 100]);
    const noName = await h.request('POST', '/sandbox/plants', { token: bearer(h.tokens.biller), body: { tag: 'x' } });
    assert.equal(noName.status, 400);
    assert.deepEqual(Object.keys(noName.body).sort(), ['code', 'message']);
    const badId = await h.request('GET', '/sandbox/plants/not-a-number', { token: bearer(h.tokens.viewer) });
    assert.equal(badId.status, 404);
    const noBearer = await h.request('GET', '/sandbox/plants', { token: h.tokens.viewer });
    assert.equal(noBearer.status, 401);
    assert.equal(noBearer.body.code, 'UNAUTHENTICATED');
    const viewer = await h.request('POST', '/sandbox/plants', { token: bearer(h.tokens.viewer), body: { name: 'x' } });
    assert.equal(viewer.status, 403);

    const mine = await h.request('POST', '/sandbox/plants', { token: bearer(h.tokens.biller), body: { name: 'mine' } });
    const theirs = await h.request('GET', `/sandbox/plants/${mine.body.id}`, { token: bearer(h.tokens.otherAdmin) });
    assert.equal(theirs.status, 404);
    const theirDelete = await h.request('DELETE', `/sandbox/plants/${mine.body.id}`, { token: bearer(h.tokens.otherAdmin) });
    assert.equal(theirDelete.status, 404);
    const theirList = await h.request('GET', '/sandbox/plants', { token: bearer(h.tokens.otherAdmin) });
    assert.deepEqual(theirList.body, []);
    const unknownRoute = await h.request('GET', '/sandbox/trees', { token: bearer(h.tokens.viewer) });
    assert.equal(unknownRoute.status, 404);
    assert.deepEqual(Object.keys(unknownRoute.body).sort(), ['code', 'message']);
  });
});
