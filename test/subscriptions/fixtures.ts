// Helpers shared by the accounts, subscriptions, readings and imports tests: envelopes,
// a metered water template with two batches, accounts and subscriptions made over HTTP.
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';

export const env = (method: string, action: string, data?: unknown) => ({ method, action, apiVersion: 'v2', ...(data === undefined ? {} : { data }) });

export const waterTemplate = (code = 'WATER', batches = ['ZONE-A', 'ZONE-B']) => ({
  code,
  name: `Water ${code}`,
  serviceType: 'Sale',
  chargingType: 'Postpaid',
  postType: 'Post Subscription',
  billingCycle: 1,
  dueDateOffset: 14,
  components: [
    { code: 'STANDING', name: 'Standing charge', model: 'flat', amount: '150.00' },
    { code: 'WATER', name: 'Water', model: 'perUnit', input: 'METER', rate: '50' },
    { code: 'ROOMS', name: 'Rooms', model: 'perUnit', input: 'ROOMS', rate: '10' },
  ],
  connectionInputs: [
    { code: 'METER_NO', label: 'Meter number', type: 'string', required: true },
    { code: 'SIZE', label: 'Meter size', type: 'number' },
    { code: 'FITTED', label: 'Fitted on', type: 'date' },
    { code: 'SEWER', label: 'Sewer connected', type: 'boolean' },
  ],
  meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'm3', decimals: 1, rolloverAt: 10000 }],
  unmeteredInputs: [{ code: 'ROOMS', label: 'Rooms' }],
  batches,
});

export async function makeTemplate(h: Harness, service: unknown = waterTemplate()): Promise<void> {
  const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

export async function makeAccount(h: Harness, accountNumber: string, extra: Record<string, unknown> = {}, token = h.tokens.biller): Promise<number> {
  const r = await h.post('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber, name: `Customer ${accountNumber}`, ...extra }), token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return Number(r.headers.get('x-billrun-account-id'));
}

export const subscriptionData = (accountNumber: string, extra: Record<string, unknown> = {}) => ({
  accountNumber,
  serviceCode: 'WATER',
  batchCode: 'ZONE-A',
  startDate: '01/01/2025',
  connectionInputs: { METER_NO: `M-${accountNumber}` },
  unmeteredInputs: { ROOMS: 3 },
  ...extra,
});

export async function makeSubscription(h: Harness, accountNumber: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await h.post('/billing/subscriptions/make-subscription', env('Create', 'Create Subscription', subscriptionData(accountNumber, extra)), h.tokens.biller);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return Number(r.headers.get('x-billrun-subscription-id'));
}

export function assertError(r: { status: number; body: any }, status: number, code: string, path?: string): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.equal(r.body.statusCode, status);
  assert.equal(r.body.data, null);
  assert.equal(r.body.error.code, code, JSON.stringify(r.body));
  if (path !== undefined) {
    const paths = (r.body.error.details ?? []).map((d: { path: string }) => d.path);
    assert.ok(paths.includes(path), `expected ${path} in ${JSON.stringify(r.body.error.details)}`);
  }
}
