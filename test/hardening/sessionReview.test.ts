// A review of the day's hardening changes and the credit-note extract, over HTTP: each test
// states what the service's own rules say and failed when written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const accountCount = async () => Number((await h.db.query('SELECT count(*) AS n FROM account WHERE app_code = $1', [h.appCode])).rows[0].n);
const upload = (csv: string, query = 'kind=accounts') =>
  h.request('POST', `/billing/imports/upload-import?${query}`, { token: h.tokens.biller, raw: csv, headers: { 'content-type': 'text/csv' } });

test('upload-import (CSV): an account number holding a plane-14 tag character is refused, as make-account and a JSON import refuse it', async () => {
  // "INV\u{E0041}1" shows as "INV1" (the outside review's case): the API refuses it in every request body,
  // and docs/accounts.md says the import checks each row with the API's rules.
  const api = await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: 'TAGAPI\u{e0041}1', name: 'Tag' }), h.tokens.biller);
  assert.equal(api.status, 400, JSON.stringify(api.body));
  const count = await accountCount();
  const r = await upload(`accountNumber,name\r\nTAGCSV\u{e0041}1,Tag customer\r\n`);
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(await accountCount(), count, 'an account number that shows as "TAGCSV1" was made through the CSV import');
});

test('upload-import (CSV): an account name of tag characters only is refused (a name must hold a visible character)', async () => {
  const count = await accountCount();
  const r = await upload(`accountNumber,name\r\nTAGNAME-1,\u{e0041}\u{e0042}\r\n`);
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(await accountCount(), count);
});

test('make-account: a name of a combining grapheme joiner or variation selectors only (zero-width) is refused, as one of zero-width spaces is', async () => {
  for (const name of ['\u034f', '\ufe0f\ufe0f']) {
    const count = await accountCount();
    const r = await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: `ZWN-${name.codePointAt(0)}`, name }), h.tokens.biller);
    assert.equal(r.status, 400, `U+${name.codePointAt(0)!.toString(16)}: ${JSON.stringify(r.body)}`);
    assert.ok(r.body.error.details.some((d: { path: string }) => d.path === 'data.name'), JSON.stringify(r.body));
    assert.equal(await accountCount(), count);
  }
});

test('get-credit-note-extract: at most 366 days, both included: 01/01/2025 to 02/01/2026 (367 days) is refused on data.to', async () => {
  const extract = (from: string, to: string) =>
    h.request('POST', '/billing/documents/get-credit-note-extract', { token: h.tokens.biller, body: env('Retrieve', 'Retrieve Credit Note Extract', { from, to, format: 'csv' }) });
  const year = await extract('01/01/2025', '01/01/2026'); // 366 days, both included
  assert.equal(year.status, 200);
  const r = await extract('01/01/2025', '02/01/2026'); // 367 days
  assert.equal(r.status, 400, `a span of 367 days was answered ${r.status}`);
  assert.ok(r.body.error.details.some((d: { path: string }) => d.path === 'data.to'), JSON.stringify(r.body));
});
