// An outside review over HTTP (2026-11-27): each test shows one defect found by a hostile
// or unusual client, asserting what interface.md / product.md (and the service's own
// documented rules in /openapi.json) say should happen. Each failed when written; each defect is fixed (docs/hardening.md, "An outside review").
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
const makeAccount = (accountNumber: string, name = 'Customer') =>
  h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber, name }), h.tokens.biller);
const accountCount = async () => Number((await h.db.query('SELECT count(*) AS n FROM account WHERE app_code = $1', [h.appCode])).rows[0].n);

test('update-app: a time zone Node knows but PostgreSQL does not (US/Pacific-New) is a 400 naming data.timeZone, not a 500', async () => {
  const before = await h.post('/admin/get-app', env('Retrieve', 'Retrieve App', {}));
  assert.equal(before.status, 200);
  const r = await h.post('/admin/update-app', env('Update', 'Update App', { timeZone: 'US/Pacific-New' }));
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'VALIDATION_FAILED');
  assert.ok(r.body.error.details.some((d: { path: string }) => d.path === 'data.timeZone'), JSON.stringify(r.body));
  const after = await h.post('/admin/get-app', env('Retrieve', 'Retrieve App', {}));
  assert.equal(after.body.data.app.timeZone, before.body.data.app.timeZone);
});

test('Idempotency-Key: a retry of the same request with its JSON members in another order is replayed, not refused as a different request', async () => {
  assert.equal((await makeAccount('IDEM-1')).status, 200);
  const key = 'retry-order-1';
  const first = `{"method":"Create","action":"Create Payment","apiVersion":"v2","data":{"accountNumber":"IDEM-1","amount":"3.00","paymentDate":"20/01/2027","reference":"IDEM-REF-1","channel":"bank"}}`;
  // The same object (RFC 8259: member order is not significant), as another JSON library writes it.
  const retry = `{"apiVersion":"v2","action":"Create Payment","method":"Create","data":{"reference":"IDEM-REF-1","channel":"bank","paymentDate":"20/01/2027","amount":"3.00","accountNumber":"IDEM-1"}}`;
  const headers = { 'content-type': 'application/json', 'idempotency-key': key };
  const r1 = await h.request('POST', '/billing/payments/make-payment', { token: h.tokens.biller, raw: first, headers });
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  const r2 = await h.request('POST', '/billing/payments/make-payment', { token: h.tokens.biller, raw: retry, headers });
  assert.equal(r2.status, 200, JSON.stringify(r2.body));
  assert.equal(r2.headers.get('idempotent-replayed'), 'true');
  const n = await h.db.query(`SELECT count(*) AS n FROM payment WHERE reference = 'IDEM-REF-1'`);
  assert.equal(Number(n.rows[0].n), 1);
});

test('make-account: an account number canonically equal to an existing one (NFD "É" against NFC "É") is not a second account', async () => {
  const nfc = 'JOS\u00c9-1';
  const nfd = 'JOSE\u0301-1';
  assert.equal(nfc.normalize('NFC'), nfd.normalize('NFC'));
  assert.equal((await makeAccount(nfc, 'José')).status, 200);
  const count = await accountCount();
  const r = await makeAccount(nfd, 'José again');
  assert.notEqual(r.status, 200, 'the same account number in another Unicode form made a second account');
  assert.ok(r.status === 409 || r.status === 400, JSON.stringify(r.body));
  assert.equal(await accountCount(), count);
});

test('make-account: invisible characters in an account number (combining grapheme joiner, variation selector, tag letter) are refused as the documented rule says', async () => {
  // The rule (IDENTIFIER_MESSAGE in /openapi.json): "visible characters: no control, zero-width or
  // bidirectional characters". Each of these is zero-width and invisible (Unicode
  // Default_Ignorable_Code_Point), so "A\u034fB" shows as "AB" and cannot be typed back.
  for (const hidden of ['\u034f', '\ufe0f', '\u{e0041}']) {
    const count = await accountCount();
    const r = await makeAccount(`INV${hidden}1`);
    assert.equal(r.status, 400, `U+${hidden.codePointAt(0)!.toString(16)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'VALIDATION_FAILED');
    assert.ok(r.body.error.details.some((d: { path: string }) => d.path === 'data.accountNumber'));
    assert.equal(await accountCount(), count);
  }
});

test('make-batch and make-account: a label or name of zero-width spaces only is refused, as one of plain spaces is ("must hold a visible character")', async () => {
  const spaces = await h.post('/billing/batches/make-batch', env('Create', 'Create Batch', { batchCode: 'ZW-SP', label: '   ' }));
  assert.equal(spaces.status, 400); // the rule the service already keeps for plain spaces
  const batch = await h.post('/billing/batches/make-batch', env('Create', 'Create Batch', { batchCode: 'ZW-1', label: '\u200b\u200b' }));
  assert.equal(batch.status, 400, JSON.stringify(batch.body));
  assert.ok(batch.body.error.details.some((d: { path: string }) => d.path === 'data.label'));
  const count = await accountCount();
  const account = await makeAccount('ZW-ACC-1', '\u200b');
  assert.equal(account.status, 400, JSON.stringify(account.body));
  assert.ok(account.body.error.details.some((d: { path: string }) => d.path === 'data.name'));
  assert.equal(await accountCount(), count);
});
