import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertError, env, makeAccount, makeSubscription, makeTemplate } from '../subscriptions/fixtures.ts';

const list = (data?: unknown) => env('Retrieve', 'Retrieve Accounts', data);
const update = (data: unknown) => env('Update', 'Update Account', data);

describe('accounts', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
  });
  after(() => h.close());

  test('make-account, then get-account reads it back with a zero balance', async () => {
    const id = await makeAccount(h, 'ACC-001', { email: 'jane@example.com', phone: '+254 700 000001', address: '1 River Road\nNairobi' });
    const r = await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountNumber: 'ACC-001' }), h.tokens.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body.data.account;
    assert.deepEqual(
      { ...a, createdAt: undefined, modifiedAt: undefined },
      {
        accountID: id,
        appCode: h.appCode,
        accountNumber: 'ACC-001',
        name: 'Customer ACC-001',
        email: 'jane@example.com',
        phone: '+254 700 000001',
        address: '1 River Road\nNairobi',
        deliveryPreference: 'email', // none given and an address: by e-mail (print without one: test/documents/deliveryPreference.test.ts)
        status: 'active',
        balance: '0.00', // at the app's minor unit, like every amount
        subscriptionCount: 0,
        createdAt: undefined,
        createdBy: 'biller@a.test',
        modifiedAt: undefined,
        modifiedBy: 'biller@a.test',
      },
    );
    assert.deepEqual(r.body.data.subscriptions, []);
    const byId = await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountID: id }));
    assert.equal(byId.body.data.account.accountNumber, 'ACC-001');
  });

  test('refusals: duplicate number, bad fields, a balance, a viewer, nothing to identify', async () => {
    await makeAccount(h, 'ACC-DUP');
    const make = (data: unknown, token = h.tokens.biller) => h.post('/billing/accounts/make-account', env('Create', 'Create Account', data), token);
    assertError(await make({ accountNumber: 'ACC-DUP', name: 'Again' }), 409, 'CONFLICT', 'data.accountNumber');
    assertError(await make({ accountNumber: 'X1', name: 'X', email: 'not-an-email' }), 400, 'VALIDATION_FAILED', 'data.email');
    const badPhone = await make({ accountNumber: 'X1', name: 'X', phone: 'call me' });
    assertError(badPhone, 400, 'VALIDATION_FAILED', 'data.phone');
    assert.equal(badPhone.body.error.details[0].message, 'must be a phone number: digits, spaces and + ( ) - . / x', 'in words, not the pattern');
    // A US number as it is written: refused on every row of a new officer's import before.
    for (const [i, phone] of ['(970) 555-1001', '+1 (970) 555-1001 x12', '970.555.1001'].entries()) {
      const r = await make({ accountNumber: `US-${i}`, name: 'US', phone });
      assert.equal(r.status, 200, `${phone}: ${JSON.stringify(r.body)}`);
    }
    assertError(await make({ accountNumber: ' X1', name: 'X' }), 400, 'VALIDATION_FAILED', 'data.accountNumber');
    assertError(await make({ accountNumber: 'X1' }), 400, 'VALIDATION_FAILED', 'data.name');
    assertError(await make({ accountNumber: 'X1', name: 'X', balance: '100' }), 400, 'VALIDATION_FAILED', 'data.balance');
    assertError(await make({ accountNumber: 'X1', name: 'X\u0000' }), 400, 'VALIDATION_FAILED', 'data.name');
    assertError(await make({ accountNumber: 'X1', name: 'X' }, h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', {})), 400, 'VALIDATION_FAILED', 'data.accountNumber');
    // An account number that exists with another account's id: the id is at fault, not the number (a fuzzer).
    assertError(await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountNumber: 'ACC-001', accountID: 999999 })), 404, 'NOT_FOUND', 'data.accountID');
    assertError(await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountNumber: 'NO-SUCH', accountID: 999999 })), 404, 'NOT_FOUND', 'data.accountNumber');
    assertError(await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-DUP', balance: '5' })), 400, 'VALIDATION_FAILED', 'data.balance');
    const none = await h.post('/billing/accounts/get-accounts', list({ accountNumber: 'X1' }));
    assert.equal(none.body.data.accounts.length, 0);
  });

  test('update-account changes contact, clears with null, and closes only without open subscriptions', async () => {
    await makeAccount(h, 'ACC-UPD', { email: 'old@example.com', phone: '0700' });
    const u = await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-UPD', name: 'New Name', email: 'new@example.com', phone: null }), h.tokens.biller);
    assert.equal(u.status, 200, JSON.stringify(u.body));
    const r = await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountNumber: 'ACC-UPD' }));
    assert.equal(r.body.data.account.name, 'New Name');
    assert.equal(r.body.data.account.email, 'new@example.com');
    assert.equal(r.body.data.account.phone, null);

    const sub = await makeSubscription(h, 'ACC-UPD');
    assertError(await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-UPD', status: 'closed' })), 409, 'INVALID_STATE', 'data.status');
    await h.post('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID: sub, endDate: '31/01/2025' }), h.tokens.biller);
    const closed = await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-UPD', status: 'closed' }));
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    // A closed account takes no new subscription.
    assertError(
      await h.post('/billing/subscriptions/make-subscription', env('Create', 'Create Subscription', { accountNumber: 'ACC-UPD', serviceCode: 'WATER', batchCode: 'ZONE-A', startDate: '01/02/2025', connectionInputs: { METER_NO: 'M' }, unmeteredInputs: { ROOMS: 1 } })),
      409,
      'INVALID_STATE',
      'data.accountNumber',
    );
    assertError(await h.post('/billing/accounts/update-account', update({ accountNumber: 'NOPE', name: 'x' })), 404, 'NOT_FOUND', 'data.accountNumber');
    assertError(await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-UPD', name: 'x' }), h.tokens.viewer), 403, 'FORBIDDEN');
  });

  test('get-accounts filters and pages', async () => {
    for (let i = 1; i <= 12; i++) await makeAccount(h, `PG-${String(i).padStart(2, '0')}`, { name: i % 2 ? `Odd Wanjiru ${i}` : `Even Otieno ${i}`, email: `p${i}@example.com` });
    await makeSubscription(h, 'PG-01', { batchCode: 'ZONE-B' });
    const page1 = await h.post('/billing/accounts/get-accounts', list({ name: 'wanjiru', limit: 4 }), h.tokens.viewer);
    assert.equal(page1.status, 200);
    assert.deepEqual(page1.body.data.paging, { limit: 4, offset: 0, total: 6 });
    assert.deepEqual(page1.body.data.accounts.map((a: { accountNumber: string }) => a.accountNumber), ['PG-01', 'PG-03', 'PG-05', 'PG-07']);
    const page2 = await h.post('/billing/accounts/get-accounts', list({ name: 'wanjiru', limit: 4, offset: 4 }));
    assert.deepEqual(page2.body.data.accounts.map((a: { accountNumber: string }) => a.accountNumber), ['PG-09', 'PG-11']);
    const byEmail = await h.post('/billing/accounts/get-accounts', list({ email: 'P2@example.com' }));
    assert.deepEqual(byEmail.body.data.accounts.map((a: { accountNumber: string }) => a.accountNumber), ['PG-02']);
    const byBatch = await h.post('/billing/accounts/get-accounts', list({ batchCode: 'ZONE-B' }));
    assert.deepEqual(byBatch.body.data.accounts.map((a: { accountNumber: string }) => a.accountNumber), ['PG-01']);
    assert.equal(byBatch.body.data.accounts[0].subscriptionCount, 1);
    const byTemplate = await h.post('/billing/accounts/get-accounts', list({ serviceCode: 'WATER', status: 'active' }));
    assert.ok(byTemplate.body.data.accounts.some((a: { accountNumber: string }) => a.accountNumber === 'PG-01'));
    const like = await h.post('/billing/accounts/get-accounts', list({ name: '%' }));
    assert.equal(like.body.data.paging.total, 0, 'a % in the filter is a plain character');
    assertError(await h.post('/billing/accounts/get-accounts', list({ limit: 5000 })), 400, 'VALIDATION_FAILED', 'data.limit');
  });

  test('another app sees none of these accounts', async () => {
    const id = await makeAccount(h, 'ACC-MINE');
    assertError(await h.post('/billing/accounts/get-account', env('Retrieve', 'Retrieve Account', { accountID: id }), h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.accountID');
    assertError(await h.post('/billing/accounts/update-account', update({ accountNumber: 'ACC-MINE', name: 'x' }), h.tokens.otherAdmin), 404, 'NOT_FOUND');
    const other = await h.post('/billing/accounts/get-accounts', list(), h.tokens.otherAdmin);
    assert.equal(other.body.data.paging.total, 0);
    // The same number is free in another app.
    const r = await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: 'ACC-MINE', name: 'Theirs' }), h.tokens.otherAdmin);
    assert.equal(r.status, 200);
  });

  test('get-accounts search: a number prefix or a name containing it, any case, paged, wildcards literal', async () => {
    for (const [n, name] of [['SRCH-001', 'Wanjiru Kamau'], ['SRCH-002', 'Otieno Odhiambo'], ['SRCH-010', 'Kamau & Sons 100%'], ['XSRCH-1', 'Someone Else']] as const) {
      assert.equal((await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: n, name }), h.tokens.biller)).status, 200);
    }
    const search = async (data: Record<string, unknown>) => {
      const r = await h.post('/billing/accounts/get-accounts', list(data), h.tokens.viewer);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { numbers: r.body.data.accounts.map((a: { accountNumber: string }) => a.accountNumber), paging: r.body.data.paging };
    };
    // The number matches as a prefix only: XSRCH-1 does not start with SRCH.
    assert.deepEqual((await search({ search: 'SRCH-0' })).numbers, ['SRCH-001', 'SRCH-002', 'SRCH-010']);
    assert.deepEqual((await search({ search: 'kamau' })).numbers, ['SRCH-001', 'SRCH-010']);
    assert.deepEqual((await search({ search: '100%' })).numbers, ['SRCH-010']);
    assert.deepEqual((await search({ search: '%' })).numbers, ['SRCH-010']);
    const page = await search({ search: 'SRCH-0', limit: 2, offset: 2 });
    assert.deepEqual(page.numbers, ['SRCH-010']);
    assert.deepEqual(page.paging, { limit: 2, offset: 2, total: 3 });
    // Number matches first (in number order), then name matches; the number's prefix is case-sensitive, a name any case.
    assert.equal((await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: 'ZZ-1', name: 'Srch Lover' }), h.tokens.biller)).status, 200);
    assert.deepEqual((await search({ search: 'SRCH' })).numbers, ['SRCH-001', 'SRCH-002', 'SRCH-010', 'ZZ-1']);
    assert.deepEqual((await search({ search: 'srch' })).numbers, ['ZZ-1']);
    const across = await search({ search: 'SRCH', limit: 2, offset: 2 });
    assert.deepEqual(across.numbers, ['SRCH-010', 'ZZ-1']);
    assert.deepEqual(across.paging, { limit: 2, offset: 2, total: 4 });
    assert.deepEqual((await search({ search: 'SRCH', offset: 4 })).numbers, []);
    // Other filters still apply to a search.
    assert.deepEqual((await search({ search: 'SRCH', accountNumber: 'ZZ-1' })).numbers, ['ZZ-1']);
    assertError(await h.post('/billing/accounts/get-accounts', list({ search: '' })), 400, 'VALIDATION_FAILED', 'data.search');
    // Accents are ignored as case is, both ways: typed without them, or with them on a name written without.
    for (const [n, name] of [['ACC-1', 'Café Amélie'], ['ACC-2', 'Jürgen Müller'], ['ACC-3', 'Jose Nuñez'], ['ACC-4', "O'Connell Hardware"], ['ACC-5', 'St. Mary’s School']] as const) {
      assert.equal((await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: n, name }), h.tokens.biller)).status, 200);
    }
    assert.deepEqual((await search({ search: 'cafe amelie' })).numbers, ['ACC-1']);
    assert.deepEqual((await search({ search: 'MULLER' })).numbers, ['ACC-2']);
    assert.deepEqual((await search({ search: 'José' })).numbers, ['ACC-3']);
    assert.deepEqual((await search({ name: 'nunez' })).numbers, ['ACC-3']);
    // Apostrophes and full stops too, typed or not.
    assert.deepEqual((await search({ search: 'oconnell' })).numbers, ['ACC-4']);
    assert.deepEqual((await search({ search: "o'connell" })).numbers, ['ACC-4']);
    assert.deepEqual((await search({ search: "st marys" })).numbers, ['ACC-5']);
  });
});
