// Defect 7 of issue 9: one bad field in a component answered for every charge model
// (a graduated component with tierProration.basisDays 400 gave 16 details: "amount: is
// required", "model: must be \"flat\"", "tiers: is not a known field", ... the real one
// buried). A component's errors now concern its own model only: exactly the one detail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { CHARGE_MODELS } from '../../src/rating/tariff.ts';
import { waterService } from '../fixtures/tariffs.ts';

const make = (service: unknown) => ({ method: 'Create', action: 'Create Package', apiVersion: 'v2', service });

// For each model: a valid component, the one field made wrong, and the detail expected.
const tiers = [{ upTo: 10, rate: '50' }, { upTo: null, rate: '70' }];
const cases: { model: string; component: Record<string, unknown>; path: string; message: string }[] = [
  { model: 'flat', component: { code: 'X', name: 'X', model: 'flat', amount: '10', prorate: 'yes' }, path: 'prorate', message: 'must be boolean' },
  { model: 'perUnit', component: { code: 'X', name: 'X', model: 'perUnit', input: 'METER', rate: '2', colour: 'red' }, path: 'colour', message: 'is not a known field' },
  {
    model: 'graduated',
    component: { code: 'X', name: 'X', model: 'graduated', input: 'METER', tiers, tierProration: { basisDays: 400, decimals: 0, rounding: 'down' } },
    path: 'tierProration.basisDays',
    message: 'must be <= 366',
  },
  { model: 'volume', component: { code: 'X', name: 'X', model: 'volume', input: 'METER', tiers: [] }, path: 'tiers', message: 'must have at least 1 item' },
  { model: 'package', component: { code: 'X', name: 'X', model: 'package', input: 'METER', size: '10', price: '25', description: 7 }, path: 'description', message: 'must be string' },
  { model: 'percentage', component: { code: 'X', name: 'X', model: 'percentage', percentage: '10' }, path: 'of', message: 'is required' },
  { model: 'commitment', component: { code: 'X', name: 'X', model: 'commitment', amount: '100', of: ['X'], prorate: 1 }, path: 'prorate', message: 'must be boolean' },
  // A daily charge counts days, never prorates by them.
  { model: 'perDay', component: { code: 'X', name: 'X', model: 'perDay', rate: '0.58', prorate: true }, path: 'prorate', message: 'is not a known field' },
  // A ratchet looks back at most three years.
  { model: 'perUnitPerDay', component: { code: 'X', name: 'X', model: 'perUnitPerDay', input: 'METER', rate: '0.45', ratchet: { percentage: '75', months: 40 } }, path: 'ratchet.months', message: 'must be <= 36' },
  { model: 'totalRounding', component: { code: 'X', name: 'X', model: 'totalRounding', increment: '1', of: ['X'], rounding: 'nearest' }, path: 'rounding', message: 'must be one of "halfUp", "halfEven", "halfDown", "up", "down", "ceil", "floor"' },
];

describe('a bad component answers for its own model only', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('every charge model has a case here', () => {
    assert.deepEqual([...new Set(cases.map((c) => c.model))].sort(), [...CHARGE_MODELS].sort());
  });

  for (const c of cases) {
    test(`${c.model}: one bad field, exactly one detail with its path`, async () => {
      const s = waterService(`BAD-${c.model}`);
      s.components!.push(c.component as never);
      const r = await h.post('/billing/services/make-service', make(s));
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VALIDATION_FAILED');
      assert.deepEqual(r.body.error.details, [{ path: `service.components[4].${c.path}`, message: c.message }]);
    });
  }

  test('a daily standing charge (perDay) is saved and read back as sent', async () => {
    const s = waterService('PERDAY');
    s.components!.push({ code: 'DAILY', name: 'Daily supply', model: 'perDay', rate: '0.580857' } as never);
    const r = await h.post('/billing/services/make-service', make(s));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const got = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const daily = got.body.data.services.find((x: { serviceCode: string }) => x.serviceCode === 'PERDAY').components.find((c: { code: string }) => c.code === 'DAILY');
    assert.deepEqual(daily, { code: 'DAILY', name: 'Daily supply', model: 'perDay', rate: '0.580857' });
  });

  test('an unknown model is one detail naming the models there are', async () => {
    const s = waterService('BAD-MODEL');
    s.components!.push({ code: 'X', name: 'X', model: 'stairs', amount: '1' } as never);
    const r = await h.post('/billing/services/make-service', make(s));
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body.error.details, [
      { path: 'service.components[4].model', message: `must be one of ${CHARGE_MODELS.map((m) => JSON.stringify(m)).join(', ')}` },
    ]);
  });

  test('a component without a model is one detail', async () => {
    const s = waterService('BAD-NOMODEL');
    s.components!.push({ code: 'X', name: 'X', amount: '1' } as never);
    const r = await h.post('/billing/services/make-service', make(s));
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(r.body.error.details, [{ path: 'service.components[4].model', message: 'is required' }]);
  });
});
