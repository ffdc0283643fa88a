import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { waterService } from '../fixtures/tariffs.ts';

// The example values of interface.md: the shared water template with every optional field.
export const exampleService = (code = 'WATER-DOM') =>
  waterService(code, {
    description: 'Domestic water tariff',
    connectionInputs: [{ code: 'METER_NO', label: 'Meter number', type: 'string', required: true }],
    unmeteredInputs: [],
    bankAccounts: [{ bankName: 'Bank', accountNumber: '0011223344' }],
    batches: ['ZONE-A'],
    invoiceTemplate: { templateID: null },
    emailTemplate: { templateID: null },
  });

const make = (service: unknown) => ({ method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
const list = (serviceCode?: string) => ({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', ...(serviceCode ? { serviceCode } : {}) });

describe('pricing templates', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('make-service answers the empty envelope and get-services lists every field', async () => {
    const made = await h.post('/billing/services/make-service', make(exampleService()));
    assert.equal(made.status, 200);
    assert.deepEqual(made.body, { success: true, statusCode: 200, message: made.body.message, error: null, data: {} });
    assert.equal(typeof made.body.message, 'string');
    assert.match(made.headers.get('x-billrun-service-id') ?? '', /^\d+$/);

    const got = await h.post('/billing/services/get-services', list());
    assert.equal(got.status, 200);
    assert.equal(got.body.success, true);
    assert.equal(got.body.error, null);
    const [s] = got.body.data.services;
    assert.equal(got.body.data.services.length, 1);
    const expected = {
      serviceID: Number(made.headers.get('x-billrun-service-id')),
      appCode: h.appCode,
      serviceCode: 'WATER-DOM',
      serviceLabel: 'Domestic water',
      serviceType: 'Sale',
      chargingType: 'Postpaid',
      billingCycleLookupID: 1,
      dueDateOffset: 14,
      postBilling: 0,
      postType: 'Post Subscription',
      paymentSettlementMethod: 'Chronology',
      cashAccountID: 0,
      businessUnitID: 0,
      securityDeposit: null,
      description: 'Domestic water tariff',
      requiredDocs: null,
      templateID: 0,
      templateName: '',
      emailTemplateID: null,
      emailTemplateName: null,
      archiveStatus: 0,
      createdBy: 'admin@a.test',
      modifiedBy: 'admin@a.test',
    };
    for (const [k, v] of Object.entries(expected)) assert.deepEqual(s[k], v, k);
    assert.equal(typeof s.ts, 'number');
    assert.match(s.createdAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.match(s.modifiedAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.deepEqual(s.batches, ['ZONE-A']);
    assert.equal(s.components.length, 4);
  });

  test('get-services with serviceCode returns that one; an unknown one is NOT_FOUND', async () => {
    await h.post('/billing/services/make-service', make(exampleService('OTHER')));
    const one = await h.post('/billing/services/get-services', list('OTHER'));
    assert.equal(one.body.data.services.length, 1);
    assert.equal(one.body.data.services[0].serviceCode, 'OTHER');
    const none = await h.post('/billing/services/get-services', list('NOPE'));
    assert.equal(none.status, 404);
    assert.equal(none.body.error.code, 'NOT_FOUND');
    assert.equal(none.body.error.details[0].path, 'serviceCode');
  });

  test('a second template with the same code is a CONFLICT and changes nothing', async () => {
    const again = await h.post('/billing/services/make-service', make({ ...exampleService('DUP'), name: 'first' }));
    assert.equal(again.status, 200);
    const dup = await h.post('/billing/services/make-service', make({ ...exampleService('DUP'), name: 'second' }));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'CONFLICT');
    assert.equal(dup.body.error.details[0].path, 'service.code');
    const got = await h.post('/billing/services/get-services', list('DUP'));
    assert.equal(got.body.data.services[0].serviceLabel, 'first');
  });

  test('invalid pricing is refused with the failing field, and nothing is written', async () => {
    const cases: [string, (s: any) => void, string][] = [
      ['tiers out of order', (s) => (s.components[1].tiers[1].upTo = 5), 'service.components[1].tiers[1].upTo'],
      ['unknown input', (s) => (s.components[1].input = 'GAS'), 'service.components[1].input'],
      ['unknown value', (s) => (s.components[3].percentage = { value: 'NOPE' }), 'service.components[3].percentage.value'],
      ['missing name', (s) => delete s.name, 'service.name'],
      ['unknown field', (s) => (s.colour = 'red'), 'service.colour'],
      ['wrong type', (s) => (s.dueDateOffset = '14'), 'service.dueDateOffset'],
      ['unknown serviceType', (s) => (s.serviceType = 'Gift'), 'service.serviceType'],
      // Saved, it failed every subscription made after, on the path "data" (an attacker's finding).
      ['a deposit out of range', (s) => (s.securityDeposit = 1e20), 'service.securityDeposit'],
      ['a deposit with too many decimals', (s) => (s.securityDeposit = '10.0000000000001'), 'service.securityDeposit'],
    ];
    for (const [name, change, path] of cases) {
      const s = exampleService(`BAD-${name.replace(/\W/g, '')}`);
      change(s);
      const r = await h.post('/billing/services/make-service', make(s));
      assert.equal(r.status, 400, name);
      assert.equal(r.body.success, false, name);
      assert.equal(r.body.error.code, 'VALIDATION_FAILED', name);
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path === path),
        `${name}: expected ${path} in ${JSON.stringify(r.body.error.details)}`,
      );
    }
    const got = await h.post('/billing/services/get-services', list());
    assert.ok(got.body.data.services.every((s: { serviceCode: string }) => !s.serviceCode.startsWith('BAD')));
  });

  // A fuzzer's "  " was taken for every name, and printed as nothing on bills and in the console.
  test('a name of only spaces is refused, on its field, in words', async () => {
    const svc = exampleService('BLANK');
    for (const [service, path] of [
      [{ ...svc, name: '  ' }, 'service.name'],
      [{ ...svc, components: [{ ...svc.components![0]!, name: ' \u00a0 ' }, ...svc.components!.slice(1)] }, 'service.components[0].name'],
    ] as const) {
      const r = await h.post('/billing/services/make-service', make(service));
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.deepEqual(r.body.error.details, [{ path, message: 'must hold a visible character, not only spaces or zero-width characters' }]);
    }
    const batch = await h.post('/billing/batches/make-batch', { method: 'Create', action: 'Create Batch', apiVersion: 'v2', data: { batchCode: 'BLANK-1', label: '   ' } });
    assert.deepEqual([batch.status, batch.body.error.details], [400, [{ path: 'data.label', message: 'must hold a visible character, not only spaces or zero-width characters' }]]);
  });

  test('update-service adds a version; archive-service sets archiveStatus', async () => {
    await h.post('/billing/services/make-service', make(exampleService('VER')));
    const upd = await h.post('/billing/services/update-service', {
      method: 'Update',
      action: 'Update Package',
      apiVersion: 'v2',
      service: { ...exampleService('VER'), name: 'Renamed', dueDateOffset: 21 },
    });
    assert.equal(upd.status, 200);
    let s = (await h.post('/billing/services/get-services', list('VER'))).body.data.services[0];
    assert.equal(s.version, 2);
    assert.equal(s.serviceLabel, 'Renamed');
    assert.equal(s.dueDateOffset, 21);
    const versions = await h.db.query('SELECT version FROM service_version v JOIN service s USING (service_id) WHERE s.service_code = $1 ORDER BY version', ['VER']);
    assert.deepEqual(versions.rows.map((r) => r.version), [1, 2]);
    // The same definition again is no new version (a console form saved unchanged made version 3, identical to 2).
    const again = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', service: { ...exampleService('VER'), name: 'Renamed', dueDateOffset: 21 } });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers.get('x-billrun-service-version'), '2');
    assert.equal((await h.db.query('SELECT count(*)::int AS n FROM service_version v JOIN service s USING (service_id) WHERE s.service_code = $1', ['VER'])).rows[0].n, 2);

    const arch = await h.post('/billing/services/archive-service', { method: 'Update', action: 'Archive Package', apiVersion: 'v2', serviceCode: 'VER', archiveStatus: 1 });
    assert.equal(arch.status, 200);
    s = (await h.post('/billing/services/get-services', list('VER'))).body.data.services[0];
    assert.equal(s.archiveStatus, 1);
    // An archived template takes no new term: the same 409 INVALID_STATE as a new subscription
    // to it (make-term said 400 VALIDATION_FAILED: an outside client met both codes for one state).
    const term = await h.post('/billing/terms/make-term', {
      method: 'Create',
      action: 'Create Bill Term',
      apiVersion: 'v2',
      operation: 'schedule',
      data: { serviceCode: 'VER', batchCode: 'ZONE-A', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' },
    });
    assert.equal(term.status, 409, JSON.stringify(term.body));
    assert.equal(term.body.error.code, 'INVALID_STATE');
    assert.deepEqual(term.body.error.details.map((d: any) => d.path), ['data.serviceCode']);
  });

  test('get-service-versions lists every version newest first, paged, each with its definition; a viewer may read, another app sees none', async () => {
    const versions = (serviceCode: string, page: { limit?: number; offset?: number } = {}) => ({
      method: 'Retrieve',
      action: 'Retrieve Package Versions',
      apiVersion: 'v2',
      serviceCode,
      ...page,
    });
    await h.post('/billing/services/make-service', make(exampleService('HIST')));
    for (const [name, offset] of [['Second', 20], ['Third', 30]] as const) {
      const upd = await h.post('/billing/services/update-service', {
        method: 'Update',
        action: 'Update Package',
        apiVersion: 'v2',
        service: { ...exampleService('HIST'), name, dueDateOffset: offset },
      });
      assert.equal(upd.status, 200);
    }
    const all = await h.post('/billing/services/get-service-versions', versions('HIST'), h.tokens.viewer);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.data.serviceCode, 'HIST');
    assert.deepEqual(all.body.data.paging, { limit: 100, offset: 0, total: 3 });
    const got = all.body.data.versions as { version: number; createdAt: string; createdBy: string; definition: Record<string, unknown> }[];
    assert.deepEqual(got.map((v) => [v.version, v.definition.serviceLabel, v.definition.dueDateOffset]), [
      [3, 'Third', 30],
      [2, 'Second', 20],
      [1, 'Domestic water', 14],
    ]);
    assert.equal(got[2]!.createdBy, 'admin@a.test');
    assert.match(got[2]!.createdAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // The components a version priced with, as the list record gives the current ones.
    const current = (await h.post('/billing/services/get-services', list('HIST'))).body.data.services[0];
    assert.deepEqual(got[0]!.definition.components, current.components);
    assert.deepEqual(got[0]!.definition.batches, ['ZONE-A']);

    const page = await h.post('/billing/services/get-service-versions', versions('HIST', { limit: 1, offset: 1 }));
    assert.deepEqual(page.body.data.versions.map((v: { version: number }) => v.version), [2]);
    assert.deepEqual(page.body.data.paging, { limit: 1, offset: 1, total: 3 });
    const past = await h.post('/billing/services/get-service-versions', versions('HIST', { offset: 10 }));
    assert.deepEqual(past.body.data.versions, []);
    assert.equal(past.body.data.paging.total, 3);

    const other = await h.post('/billing/services/get-service-versions', versions('HIST'), h.tokens.otherAdmin);
    const never = await h.post('/billing/services/get-service-versions', versions('NEVER-MADE'));
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'NOT_FOUND');
    assert.deepEqual({ ...other.body, message: '' }, { ...never.body, message: '' });
    const bad = await h.post('/billing/services/get-service-versions', versions('HIST', { limit: 0 }));
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.some((d: { path: string }) => d.path === 'limit'), JSON.stringify(bad.body));
  });

  test('batches named by a template exist from then on', async () => {
    await h.post('/billing/services/make-service', make({ ...exampleService('BATCHY'), batches: ['NEW-1', 'ZONE-A'] }));
    const r = await h.db.query('SELECT batch_code FROM batch WHERE app_code = $1 ORDER BY batch_code', [h.appCode]);
    assert.ok(r.rows.some((b) => b.batch_code === 'NEW-1'));
  });

  test('roles and tenancy: a viewer may read not write; another app sees nothing', async () => {
    await h.post('/billing/services/make-service', make(exampleService('MINE')));
    const viewerWrite = await h.post('/billing/services/make-service', make(exampleService('V')), h.tokens.viewer);
    assert.equal(viewerWrite.status, 403);
    assert.equal(viewerWrite.body.error.code, 'FORBIDDEN');
    const viewerRead = await h.post('/billing/services/get-services', list(), h.tokens.viewer);
    assert.equal(viewerRead.status, 200);
    const billerWrite = await h.post('/billing/services/make-service', make(exampleService('B')), h.tokens.biller);
    assert.equal(billerWrite.status, 403);

    const other = await h.post('/billing/services/get-services', list(), h.tokens.otherAdmin);
    assert.deepEqual(other.body.data.services, []);
    const otherOne = await h.post('/billing/services/get-services', list('MINE'), h.tokens.otherAdmin);
    const missing = await h.post('/billing/services/get-services', list('NEVER-MADE'), h.tokens.otherAdmin);
    assert.equal(otherOne.status, 404);
    assert.deepEqual({ ...otherOne.body, message: '' }, { ...missing.body, message: '' });
    const otherUpdate = await h.post(
      '/billing/services/update-service',
      { method: 'Update', action: 'Update Package', apiVersion: 'v2', service: exampleService('MINE') },
      h.tokens.otherAdmin,
    );
    assert.equal(otherUpdate.status, 404);
    // The other app may use the same code for its own template.
    const otherMake = await h.post('/billing/services/make-service', make(exampleService('MINE')), h.tokens.otherAdmin);
    assert.equal(otherMake.status, 200);
  });

  test('Idempotency-Key replays the first answer and does the work once', async () => {
    const headers = { 'idempotency-key': 'k-123' };
    const first = await h.post('/billing/services/make-service', make(exampleService('IDEM')), h.tokens.admin, headers);
    const second = await h.post('/billing/services/make-service', make(exampleService('IDEM')), h.tokens.admin, headers);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    const reused = await h.post('/billing/services/make-service', make(exampleService('IDEM2')), h.tokens.admin, headers);
    assert.equal(reused.status, 409);
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => h.post('/billing/services/make-service', make(exampleService('IDEM3')), h.tokens.admin, { 'idempotency-key': 'k-c' })),
    );
    assert.ok(concurrent.every((r) => r.status === 200), JSON.stringify(concurrent.map((r) => r.body)));
    const n = await h.db.query("SELECT count(*)::int AS n FROM service WHERE service_code = 'IDEM3'");
    assert.equal(n.rows[0].n, 1);
  });
});
