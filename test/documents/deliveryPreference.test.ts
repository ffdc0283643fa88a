import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate } from '../terms/fixtures.ts';
import { docEnv } from './support.ts';

describe("an account's delivery preference", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
  });
  after(() => h.close());

  const account = async (accountNumber: string) =>
    (await h.post('/billing/accounts/get-account', docEnv('Retrieve', 'Retrieve Account', { accountNumber }))).body.data.account;

  test('make-account and update-account take it; print when not given; a bad one names the field', async () => {
    const made = await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'D-1', name: 'Ann', email: 'ann@example.test', deliveryPreference: 'email' }));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal((await account('D-1')).deliveryPreference, 'email');
    await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'D-2', name: 'Bob' }));
    assert.equal((await account('D-2')).deliveryPreference, 'print');
    const upd = await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'D-2', deliveryPreference: 'both' }));
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal((await account('D-2')).deliveryPreference, 'both');
    const bad = await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'D-3', name: 'C', deliveryPreference: 'fax' }));
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.some((d: any) => d.path.includes('deliveryPreference')), JSON.stringify(bad.body.error.details));
  });

  test('the accounts import has a deliveryPreference column', async () => {
    const csv = 'accountNumber,name,email,deliveryPreference\nI-1,Ivy,ivy@example.test,email\nI-2,Jo,,\n';
    const r = await h.request('POST', '/billing/imports/upload-import?kind=accounts&apiVersion=v2', { token: h.tokens.biller, raw: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await account('I-1')).deliveryPreference, 'email');
    assert.equal((await account('I-2')).deliveryPreference, 'print');
    const bad = await h.request('POST', '/billing/imports/upload-import?kind=accounts&apiVersion=v2', {
      token: h.tokens.biller,
      raw: 'accountNumber,name,deliveryPreference\nI-3,Kim,pigeon\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.match(JSON.stringify(bad.body.error.details), /deliveryPreference.*must be one of email, print, both, none/);
  });
});
