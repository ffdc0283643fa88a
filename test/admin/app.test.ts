// An app's settings through the admin API, end to end over HTTP: read, changed field by
// field with their rules, late-charge defaults stored where the late-charge feature reads
// them, currency and minor units fixed once money is recorded, and each change audited in
// its own transaction.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { ROUNDING_MODES } from '../../src/rating/money.ts';
import { waterService } from '../fixtures/tariffs.ts';
import { makeTerm, startRun, step, subscriptions, tariff } from '../terms/fixtures.ts';
import { holdAppSettings } from '../../src/admin/apps.ts';

const body = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });

describe("an app's settings through the admin API", () => {
  let h: Harness;
  const getApp = (token?: string) => h.post('/admin/get-app', body('Retrieve', 'Retrieve App'), token);
  const update = (data: Record<string, unknown>, token?: string) => h.post('/admin/update-app', body('Update', 'Update App', data), token);
  const audit = (data: Record<string, unknown> = {}, token?: string) => h.post('/admin/get-audit-log', body('Retrieve', 'Retrieve Audit Log', data), token);
  const appRow = async (code = h.appCode) => (await h.db.query('SELECT * FROM app WHERE app_code = $1', [code])).rows[0];

  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test("get-app shows the caller's own app, with its clock and late-charge defaults", async () => {
    const a = await getApp();
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(a.body.data.app, {
      appCode: h.appCode,
      name: 'App A',
      address: '',
      taxNumber: '',
      timeZone: 'Africa/Nairobi',
      currency: 'KES',
      minorUnits: 2,
      rounding: 'halfUp',
      testApp: false,
      clock: { now: a.body.data.app.clock.now, today: '31/01/2027', aheadSeconds: 0 },
      lateCharge: { graceDays: 0, kind: 'none', amount: '0', minimum: null, maximum: null },
      moneyRecorded: false,
    });
    assert.match(a.body.data.app.clock.now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const b = await getApp(h.tokens.otherAdmin);
    assert.equal(b.body.data.app.appCode, h.otherAppCode);
    assert.equal(b.body.data.app.name, 'App B');
  });

  test('update-app changes the fields given, and the audit log keeps before and after', async () => {
    const r = await update({
      name: 'Water Co',
      address: '1 Reservoir Road, Nairobi',
      timeZone: 'Africa/Lagos',
      rounding: 'halfEven',
      lateCharge: { graceDays: 10, kind: 'percentage', amount: '1.5', minimum: '50.00', maximum: '500.00' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = (await getApp()).body.data.app;
    assert.deepEqual(
      [a.name, a.address, a.timeZone, a.rounding, a.currency, a.lateCharge],
      ['Water Co', '1 Reservoir Road, Nairobi', 'Africa/Lagos', 'halfEven', 'KES', { graceDays: 10, kind: 'percentage', amount: '1.5', minimum: '50.00', maximum: '500.00' }],
    );
    // Where the late-charge feature reads them.
    const row = await appRow();
    assert.deepEqual(
      [row.late_charge_grace_days, row.late_charge_kind, row.late_charge_amount, row.late_charge_minimum, row.late_charge_maximum],
      [10, 'percentage', '1.5', '50.00', '500.00'],
    );
    // The session (the console) sees the new name and time zone.
    const s = await h.post('/auth/get-session', body('Retrieve', 'Retrieve Session'));
    assert.equal(s.body.data.app.timeZone, 'Africa/Lagos');
    const entry = (await audit({ action: 'app.update', limit: 1 })).body.data.entries[0];
    assert.equal(entry.target, 'app');
    assert.equal(entry.user, 'admin@a.test');
    assert.deepEqual([entry.before.name, entry.after.name, entry.before.timeZone, entry.after.timeZone], ['App A', 'Water Co', 'Africa/Nairobi', 'Africa/Lagos']);
    assert.deepEqual(entry.after.lateCharge, a.lateCharge);
    assert.equal(entry.before.lateCharge.kind, 'none');
    // The supplier's tax (VAT) number: set, kept when another field changes, cleared by ''.
    assert.equal((await update({ taxNumber: ' P051234567X ' })).status, 200);
    assert.equal((await getApp()).body.data.app.taxNumber, 'P051234567X');
    assert.equal((await update({ name: 'Water Co Ltd' })).status, 200);
    assert.equal((await getApp()).body.data.app.taxNumber, 'P051234567X');
    assert.equal((await update({ taxNumber: '' })).status, 200);
    assert.equal((await getApp()).body.data.app.taxNumber, '');
    assert.equal((await update({ taxNumber: 'x'.repeat(51) })).status, 400);
    assert.equal((await update({ name: 'Water Co' })).status, 200);
    // A flat charge: its amount in the currency's minor units, no bounds.
    assert.equal((await update({ lateCharge: { graceDays: 0, kind: 'flat', amount: '250.00' } })).status, 200);
    assert.deepEqual((await getApp()).body.data.app.lateCharge, { graceDays: 0, kind: 'flat', amount: '250.00', minimum: null, maximum: null });
  });

  test('every rounding rule of the rating core may be chosen, and nothing else', async () => {
    for (const rule of ROUNDING_MODES) {
      const r = await update({ rounding: rule });
      assert.equal(r.status, 200, `${rule}: ${JSON.stringify(r.body)}`);
      assert.equal((await appRow()).rounding_mode, rule);
    }
    const bad = await update({ rounding: 'nearest' });
    assert.equal(bad.status, 400);
    assert.equal((await appRow()).rounding_mode, ROUNDING_MODES[ROUNDING_MODES.length - 1]);
  });

  test('bad settings are refused naming the field, and nothing changes, not even the fields that were fine', async () => {
    const before = await appRow();
    const audits = (await audit()).body.data.paging.total;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Renamed', timeZone: 'Mars/Olympus_Mons' }, 'data.timeZone'],
      [{ name: 'Renamed', timeZone: 'EST5EDT; DROP TABLE app' }, 'data.timeZone'],
      // An offset is not a zone name: PostgreSQL read "+05:00" as POSIX, west positive, and the app ran at UTC-5 (an attacker's finding).
      [{ name: 'Renamed', timeZone: '+05:00' }, 'data.timeZone'],
      [{ name: 'Renamed', timeZone: '-11:00' }, 'data.timeZone'],
      [{ currency: 'kes' }, 'data.currency'],
      [{ currency: 'KESH' }, 'data.currency'],
      [{ minorUnits: 5 }, 'data.minorUnits'],
      [{ name: '' }, 'data.name'],
      [{ name: '   ' }, 'data.name'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '12.345' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'flat' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'percentage', amount: '150' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'none', amount: '3' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '10', minimum: '20', maximum: '15' } }, 'data.lateCharge.maximum'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '-10' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '0.00' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '1234567890123456789' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'percentage', amount: '1.23456' } }, 'data.lateCharge.amount'],
      [{ lateCharge: { graceDays: 5, kind: 'flat', amount: '10', minimum: '0' } }, 'data.lateCharge.minimum'],
      [{ lateCharge: { graceDays: 400, kind: 'flat', amount: '10' } }, 'data.lateCharge.graceDays'],
      [{ lateCharge: { graceDays: 5, kind: 'compound', amount: '10' } }, 'data.lateCharge.kind'],
      [{ testApp: 'yes' }, 'data.testApp'],
      [{ appCode: h.otherAppCode, name: 'Not mine' }, 'data.appCode'],
    ];
    for (const [data, field] of cases) {
      const r = await update(data);
      assert.equal(r.status, 400, `${JSON.stringify(data)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_FAILED');
      const paths = r.body.error.details.map((d: { path: string }) => d.path);
      assert.ok(paths.some((p: string) => p === field || p.startsWith(field + '.')), `${JSON.stringify(data)}: ${JSON.stringify(r.body.error)}`);
    }
    assert.deepEqual(await appRow(), before);
    assert.equal((await audit()).body.data.paging.total, audits);
  });

  test('currency and minor units change freely until money is recorded, then are fixed with a clear error', async () => {
    // Down to 0 minor units: a late charge with cents must be given anew, in whole units, with it.
    assert.equal((await update({ lateCharge: { graceDays: 0, kind: 'flat', amount: '250.50' } })).status, 200);
    const whole = await update({ currency: 'UGX', minorUnits: 0 });
    assert.equal(whole.status, 400);
    assert.equal(whole.body.error.details[0].path, 'data.lateCharge.amount');
    assert.equal((await update({ currency: 'UGX', minorUnits: 0, lateCharge: { graceDays: 0, kind: 'flat', amount: '250' } })).status, 200);
    const a = (await getApp()).body.data.app;
    assert.deepEqual([a.currency, a.minorUnits, a.moneyRecorded], ['UGX', 0, false]);
    const back = await update({ currency: 'KES', minorUnits: 2, lateCharge: { graceDays: 0, kind: 'flat', amount: '250.00' } });
    assert.equal(back.status, 200, JSON.stringify(back.body));

    // A pricing template rounding bills to 0.05 (cash rounding) keeps the app in cents: in whole
    // units its increment would be finer than the currency (test/terms/rounding.test.ts).
    const cash = await h.post('/billing/services/make-service', {
      method: 'Create',
      action: 'Create Package',
      apiVersion: 'v2',
      service: waterService('CASH-ROUND', {
        values: [],
        meteredInputs: [],
        components: [
          { code: 'FEE', name: 'Fee', model: 'flat', amount: '10.03' },
          { code: 'ROUND', name: 'Rounding', model: 'totalRounding', increment: '0.05', of: ['FEE'] },
        ],
        batches: ['CASH'],
      }),
    });
    assert.equal(cash.status, 200, JSON.stringify(cash.body));
    const coarse = await update({ minorUnits: 0, lateCharge: { graceDays: 0, kind: 'flat', amount: '250' } });
    assert.equal(coarse.status, 400, JSON.stringify(coarse.body));
    assert.equal(coarse.body.error.details[0].path, 'data.minorUnits');
    assert.match(coarse.body.error.details[0].message, /CASH-ROUND \(version 1\)/);
    assert.equal((await appRow()).minor_units, 2);

    // A payment is money recorded in the currency: from now on both are fixed.
    const acc = await h.post('/billing/accounts/make-account', body('Create', 'Create Account', { accountNumber: 'ACC-1', name: 'Jane' }));
    assert.equal(acc.status, 200);
    const pay = await h.post('/billing/payments/make-payment', body('Create', 'Create Payment', { accountNumber: 'ACC-1', amount: '10.00', paymentDate: '02/01/2027', reference: 'P-1', channel: 'bank' }));
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    assert.equal((await getApp()).body.data.app.moneyRecorded, true);
    const before = await appRow();
    const refused = await update({ name: 'Still Water Co', currency: 'USD', minorUnits: 3 });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'INVALID_STATE');
    assert.match(refused.body.message, /currency and minor units are fixed/);
    assert.deepEqual(refused.body.error.details.map((d: { path: string }) => d.path), ['data.currency', 'data.minorUnits']);
    assert.deepEqual(await appRow(), before);
    // The same values again are no change, and the rest goes through.
    assert.equal((await update({ name: 'Still Water Co', currency: 'KES', minorUnits: 2 })).status, 200);
    assert.equal((await appRow()).name, 'Still Water Co');
    // A request that changes nothing writes no audit entry.
    const entries = (await audit()).body.data.paging.total;
    assert.equal((await update({ name: 'Still Water Co', currency: 'KES' })).status, 200);
    assert.equal((await audit()).body.data.paging.total, entries);
  });

  test("app B's settings and audit log are its own", async () => {
    const b = (await getApp(h.tokens.otherAdmin)).body.data.app;
    assert.deepEqual([b.name, b.timeZone, b.currency, b.rounding], ['App B', 'UTC', 'USD', 'halfUp']);
    assert.equal((await update({ name: 'B renamed' }, h.tokens.otherAdmin)).status, 200);
    assert.equal((await appRow()).name, 'Still Water Co');
    const entries = (await audit({}, h.tokens.otherAdmin)).body.data.entries;
    assert.equal(entries.length, 1);
    assert.deepEqual([entries[0].before.name, entries[0].after.name], ['App B', 'B renamed']);
    assert.ok(!JSON.stringify(entries).includes('Water Co'));
  });
});

// An outside check: update-app changed the rounding (and, with no money yet, the currency)
// while a term was approved on its preview, and the run billed by the new settings: approved
// at -0.002 under floor, billed 0.000 under ceil; approved at 12.49, billed 12 as JPY.
describe('the settings a preview was approved with hold until the term is billed', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
  });
  after(() => close());
  const update = (data: Record<string, unknown>) => h.post('/admin/update-app', body('Update', 'Update App', data));
  const appRow = async () => (await h.db.query('SELECT rounding_mode, currency, minor_units FROM app WHERE app_code = $1', [h.appCode])).rows[0];

  test('rounding, currency and minor units are refused (409, each field named) while a term is approved; cancelled, they change', async () => {
    const subs = await subscriptions(h, { n: 2, readings: [['2026-10-31', 100]] });
    const termID = await makeTerm(h);
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const readings = subs.map((s) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: '30/11/2026', value: 125 }));
    assert.equal((await step(h, 'capture-readings', 'Capture Term Readings', { termID, readings })).status, 200);
    assert.equal((await step(h, 'validate-term', 'Validate Term', { termID })).status, 200);
    // Before approval a change is taken, and a Validated term is to be validated again: its
    // preview was made with the rounding before (a reviewer: validated under floor, changed to
    // ceil, approved as it was).
    const changed = await update({ rounding: 'halfEven' });
    assert.equal(changed.status, 200);
    // Said in the answer and the audit log, not silent (an outside check: the next approve-term was refused with no word of why).
    assert.equal(changed.headers.get('x-billrun-terms-revalidate'), String(termID));
    const logged = (await h.db.query(`SELECT after FROM audit_log WHERE app_code = $1 AND action = 'app.update' ORDER BY 1 DESC LIMIT 1`, [h.appCode])).rows[0];
    assert.deepEqual(logged?.after.termsToValidateAgain, [termID]);
    const status = async () => (await h.db.query('SELECT status, validated_at FROM term WHERE term_id = $1', [termID])).rows[0];
    assert.deepEqual(await status(), { status: 'Loaded', validated_at: null });
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 409);
    assert.equal((await step(h, 'validate-term', 'Validate Term', { termID })).status, 200);
    // A validation or approval holds the settings it reads until it commits: update-app waits for it.
    const holder = await h.db.connect();
    try {
      await holder.query('BEGIN');
      await holdAppSettings(holder, h.appCode);
      let done = false;
      const waiting = update({ rounding: 'halfEven' }).then((r) => ((done = true), r));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(done, false, 'update-app waits for the step holding the settings');
      await holder.query('COMMIT');
      assert.equal((await waiting).status, 200);
    } finally {
      holder.release();
    }
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);

    const before = await appRow();
    const refused = await update({ name: 'Water Co', rounding: 'ceil', currency: 'JPY', minorUnits: 0 });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'CONFLICT');
    assert.match(refused.body.message, new RegExp(`Term ${termID} .* is Approved`));
    assert.deepEqual(refused.body.error.details.map((d: { path: string }) => d.path), ['data.rounding', 'data.currency', 'data.minorUnits']);
    assert.equal(refused.body.error.details[0].message, 'cannot change while a term is between approval and posting');
    assert.deepEqual(await appRow(), before);
    // The same values again, and other settings, go through.
    assert.equal((await update({ name: 'Water Co', rounding: 'halfEven', currency: before.currency })).status, 200);

    assert.equal((await step(h, 'cancel-term', 'Cancel Term', { termID })).status, 200);
    assert.equal((await update({ rounding: 'ceil' })).status, 200);
    assert.equal((await appRow()).rounding_mode, 'ceil');
  });
});
