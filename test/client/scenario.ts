// A client of billrun as an integrator writes it: types generated from the served OpenAPI
// document by openapi-typescript (./schema.d.ts, made by test/http/openapi.test.ts, never
// committed) and calls made with openapi-fetch. test/http/openapi.test.ts type-checks this
// file against the document, then runs it against the server: a change of the document
// that breaks a client breaks the test.
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

// The document's names and enums, checked at compile time.
type Term = components['schemas']['Term'];
type Bill = components['schemas']['Bill'];
type TermStatus = Term['status'];
const processed: TermStatus = 'Processed';
// @ts-expect-error a status the document does not list is not a TermStatus
const unknownStatus: TermStatus = 'Finished';
const category: Bill['lines'][number]['category'] = 'tax';
// @ts-expect-error a line's category is charge or tax
const badCategory: Bill['lines'][number]['category'] = 'fee';
// The new record's id travels in a documented header.
type AccountIdHeader = operations['makeAccount']['responses'][200]['headers']['X-Billrun-Account-Id'];
const headerIsText: AccountIdHeader = '1';
void [processed, unknownStatus, category, badCategory, headerIsText];

export type Outcome = { termID: number; status: TermStatus; bills: Bill[] };

/** Signs in, makes a template, an account and its subscription, and bills November 2026 through the six steps. */
export async function scenario(baseUrl: string, email: string, password: string): Promise<Outcome> {
  const api = createClient<paths>({ baseUrl });
  const must = <T>(r: { data?: T; error?: unknown; response: Response }, what: string): T => {
    if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
    return r.data;
  };

  const login = must(await api.POST('/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email, password } } }), 'login');
  const headers = { Authorization: login.data.accessToken };

  must(
    await api.POST('/billing/services/make-service', {
      headers,
      body: {
        method: 'Create',
        action: 'Create Package',
        apiVersion: 'v2',
        service: {
          code: 'CLIENT',
          name: 'Water through a generated client',
          serviceType: 'Sale',
          chargingType: 'Postpaid',
          postType: 'Post Subscription',
          billingCycle: 1,
          dueDateOffset: 14,
          components: [
            { code: 'STANDING', name: 'Standing charge', model: 'flat', amount: '150.00' },
            { code: 'WATER', name: 'Water', model: 'graduated', input: 'METER', tiers: [{ upTo: 10, rate: '50' }, { upTo: 30, rate: '70' }, { upTo: null, rate: '90' }] },
            { code: 'VAT', name: 'VAT', model: 'percentage', category: 'tax', percentage: '16', of: ['STANDING', 'WATER'] },
          ],
          meteredInputs: [{ code: 'METER', label: 'Water meter', unit: 'm3', decimals: 0 }],
          batches: ['CLIENT-ZONE'],
        },
      },
    }),
    'make-service',
  );

  const account = await api.POST('/billing/accounts/make-account', {
    headers,
    body: { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'CLIENT-1', name: 'Client Customer' } },
  });
  must(account, 'make-account');
  if (!account.response.headers.get('X-Billrun-Account-Id')) throw new Error('make-account: no X-Billrun-Account-Id');

  const subscription = await api.POST('/billing/subscriptions/make-subscription', {
    headers,
    body: {
      method: 'Create',
      action: 'Create Subscription',
      apiVersion: 'v2',
      data: { accountNumber: 'CLIENT-1', serviceCode: 'CLIENT', batchCode: 'CLIENT-ZONE', startDate: '01/10/2026', openingReadings: { METER: '100' }, readingDate: '31/10/2026' },
    },
  });
  must(subscription, 'make-subscription');
  const subscriptionID = Number(subscription.response.headers.get('X-Billrun-Subscription-Id'));

  // 1. make the term
  const term = await api.POST('/billing/terms/make-term', {
    headers,
    body: {
      method: 'Create',
      action: 'Create Bill Term',
      apiVersion: 'v2',
      operation: 'schedule',
      data: { serviceCode: 'CLIENT', batchCode: 'CLIENT-ZONE', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' },
    },
  });
  must(term, 'make-term');
  const termID = Number(term.response.headers.get('X-Billrun-Term-Id'));
  const ref = { method: 'Update' as const, apiVersion: 'v2' as const, operation: 'schedule' as const, data: { termID } };
  // 2. load its subscriptions, 3. capture its readings, 4. validate, 5. approve, 6. process
  must(await api.POST('/billing/terms/load-subscriptions', { headers, body: { ...ref, action: 'Load Term Subscriptions' } }), 'load-subscriptions');
  must(
    await api.POST('/billing/terms/capture-readings', {
      headers,
      body: { ...ref, action: 'Capture Term Readings', data: { termID, readings: [{ subscriptionID, inputCode: 'METER', readingDate: '30/11/2026', value: '125' }] } },
    }),
    'capture-readings',
  );
  const validated = must(await api.POST('/billing/terms/validate-term', { headers, body: { ...ref, action: 'Validate Term' } }), 'validate-term');
  void validated.data;
  must(await api.POST('/billing/terms/approve-term', { headers, body: { ...ref, action: 'Approve Term' } }), 'approve-term');
  must(await api.POST('/billing/terms/process-term', { headers, body: { ...ref, action: 'Process Term' } }), 'process-term');

  let status: TermStatus = 'Processing';
  for (const deadline = Date.now() + 60_000; status !== 'Processed' && status !== 'Failed' && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 100));
    const terms = must(
      await api.POST('/billing/terms/get-terms', { headers, body: { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } } }),
      'get-terms',
    );
    status = terms.data.terms[0]?.status ?? status;
  }
  const bills = must(await api.POST('/billing/bills/get-bills', { headers, body: { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } } }), 'get-bills');
  return { termID, status, bills: bills.data.bills };
}
