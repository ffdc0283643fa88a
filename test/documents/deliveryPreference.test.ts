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
    // Made with an address and no preference: by e-mail, as the console's form chooses.
    assert.equal((await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'D-4', name: 'Dee', email: 'dee@example.test' }))).status, 200);
    assert.equal((await account('D-4')).deliveryPreference, 'email');
    const upd = await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'D-2', email: 'bob@example.test', deliveryPreference: 'both' }));
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal((await account('D-2')).deliveryPreference, 'both');
    const bad = await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'D-3', name: 'C', deliveryPreference: 'fax' }));
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.some((d: any) => d.path.includes('deliveryPreference')), JSON.stringify(bad.body.error.details));
  });

  test('the accounts import has a deliveryPreference column', async () => {
    const csv = 'accountNumber,name,email,deliveryPreference\nI-1,Ivy,ivy@example.test,email\nI-2,Jo,,\nI-4,Kai,kai@example.test,\n';
    const r = await h.request('POST', '/billing/imports/upload-import?kind=accounts&apiVersion=v2', { token: h.tokens.biller, raw: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await account('I-1')).deliveryPreference, 'email');
    assert.equal((await account('I-2')).deliveryPreference, 'print');
    assert.equal((await account('I-4')).deliveryPreference, 'email', 'an address and no preference: by e-mail');
    const bad = await h.request('POST', '/billing/imports/upload-import?kind=accounts&apiVersion=v2', {
      token: h.tokens.biller,
      raw: 'accountNumber,name,deliveryPreference\nI-3,Kim,pigeon\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.match(JSON.stringify(bad.body.error.details), /deliveryPreference.*must be one of email, print, both, none/);
  });

  // An account taking its bills by e-mail with no address got no bill at all: not e-mailed,
  // not in the print extract (an officer's walk). Refused on the field, and nothing changes.
  test('bills by e-mail need an e-mail address: make-account, update-account and the import refuse an account without one', async () => {
    const made = await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'E-1', name: 'Eve', deliveryPreference: 'email' }));
    assert.equal(made.status, 400, JSON.stringify(made.body));
    assert.deepEqual(made.body.error.details.map((d: any) => d.path), ['data.deliveryPreference']);
    assert.equal((await h.post('/billing/accounts/get-account', docEnv('Retrieve', 'Retrieve Account', { accountNumber: 'E-1' }))).status, 404);

    assert.equal((await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'E-2', name: 'Fay', email: 'fay@example.test', deliveryPreference: 'email' }))).status, 200);
    const cleared = await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'E-2', email: null }));
    assert.equal(cleared.status, 400, JSON.stringify(cleared.body));
    assert.deepEqual(cleared.body.error.details.map((d: any) => d.path), ['data.email']);
    assert.equal((await account('E-2')).email, 'fay@example.test', 'nothing changed');
    // Cleared with the preference changed in the same call: fine.
    assert.equal((await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'E-2', email: null, deliveryPreference: 'print' }))).status, 200);
    const toEmail = await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'E-2', deliveryPreference: 'email' }));
    assert.equal(toEmail.status, 400);
    assert.deepEqual(toEmail.body.error.details.map((d: any) => d.path), ['data.deliveryPreference']);
    // 'both' is by e-mail too (an officer's walk: taken without an address, and the message suggested it).
    const toBoth = await h.post('/billing/accounts/update-account', docEnv('Update', 'Update Account', { accountNumber: 'E-2', deliveryPreference: 'both' }));
    assert.equal(toBoth.status, 400);
    assert.deepEqual(toBoth.body.error.details.map((d: any) => [d.path, d.message]), [['data.deliveryPreference', "bills by e-mail ('email' or 'both') need an e-mail address: give one, or choose 'print' (on paper)"]]);
    const madeBoth = await h.post('/billing/accounts/make-account', docEnv('Create', 'Create Account', { accountNumber: 'E-5', name: 'Hal', deliveryPreference: 'both' }));
    assert.equal(madeBoth.status, 400);
    assert.deepEqual(madeBoth.body.error.details.map((d: any) => d.path), ['data.deliveryPreference']);
    assert.equal((await account('E-2')).deliveryPreference, 'print', 'nothing changed');

    const imported = await h.request('POST', '/billing/imports/upload-import?kind=accounts&apiVersion=v2', {
      token: h.tokens.biller,
      raw: 'accountNumber,name,email,deliveryPreference\nE-3,Gus,,email\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(imported.status, 400, JSON.stringify(imported.body));
    assert.match(JSON.stringify(imported.body.error.details), /deliveryPreference.*bills by e-mail \('email' or 'both'\) need an e-mail address/);
  });
});
