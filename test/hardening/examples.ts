// One valid request per business route, naming records of the calling app, for the
// suites that change one thing at a time: another app's record in place of one's own
// (tenancy), a role that may not (roles), an impossible value in one field (bad values).
// A route in the OpenAPI document without an example here fails those suites, so a new
// route cannot slip past them.
import assert from 'node:assert/strict';
import { tariff } from '../terms/fixtures.ts';
import type { Harness } from '../support/harness.ts';
import type { Role } from '../../src/auth/roles.ts';

/** Records of one app, made through its API by setupRecords. */
export type Refs = {
  prefix: string;
  serviceCode: string;
  batchCode: string;
  otherBatchCode: string;
  accountNumber: string;
  accountID: number;
  /** An account without subscriptions (update-account may close it). */
  spareAccountNumber: string;
  subscriptionID: number;
  readingID: number;
  termID: number;
  /** A term of December 2026 with its roster loaded (accepts readings and validation). */
  loadedTermID: number;
  billID: number;
  billNumber: number;
  paymentID: number;
  paymentReference: string;
  importID: number;
  plantId: number;
  /** An invoice template of the app (issue 10). */
  templateID: number;
  /** The e-mail of the posted bill. */
  deliveryID: number;
  /** A viewer of the app, made through the admin API (issue 14). */
  userID: number;
  /** A tariff simulation of the processed term (issue 13). */
  simulationID: number;
  /** A bill-cycle schedule of the template and batch (issue 16). */
  scheduleID: number;
  /** The credit note of the first bill, cancelled and rebilled (billID is then the rebill; issue 12). */
  creditNoteID: number;
};

export type Example = {
  /** The least role that may call it. */
  role: Role;
  body: (r: Refs) => Record<string, unknown>;
  /** Fields that name the record being made (not one looked up): naming another app's there is no leak. */
  newKeys?: string[];
};

const env = (method: string, action: string, data: Record<string, unknown>, schedule = false) => ({
  method,
  action,
  apiVersion: 'v2',
  ...(schedule ? { operation: 'schedule' } : {}),
  data,
});
const term = (action: string, data: Record<string, unknown>, method = 'Update') => env(method, action, data, true);
const service = (r: Refs) => tariff(r.serviceCode, { batches: [r.batchCode, r.otherBatchCode], dueDateOffset: 14 });
let unique = 0;
const next = (r: Refs, what: string) => `${r.prefix}-${what}-${Date.now().toString(36)}${unique++}`;

export const EXAMPLES: Record<string, Example> = {
  '/billing/services/make-service': {
    role: 'admin',
    newKeys: ['code'],
    body: (r) => ({ method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...service(r), code: next(r, 'SVC') } }),
  },
  '/billing/services/get-services': { role: 'viewer', body: (r) => ({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: r.serviceCode }) },
  '/billing/services/get-service-versions': {
    role: 'viewer',
    body: (r) => ({ method: 'Retrieve', action: 'Retrieve Package Versions', apiVersion: 'v2', serviceCode: r.serviceCode, limit: 10 }),
  },
  '/billing/services/update-service': { role: 'admin', body: (r) => ({ method: 'Update', action: 'Update Package', apiVersion: 'v2', service: service(r) }) },
  '/billing/services/archive-service': {
    role: 'admin',
    body: (r) => ({ method: 'Update', action: 'Archive Package', apiVersion: 'v2', serviceCode: r.serviceCode, archiveStatus: 0 }),
  },
  '/billing/batches/make-batch': { role: 'admin', newKeys: ['batchCode'], body: (r) => env('Create', 'Create Batch', { batchCode: next(r, 'B'), label: 'A batch' }) },
  '/billing/batches/update-batch': { role: 'admin', body: (r) => env('Update', 'Update Batch', { batchCode: r.batchCode, label: 'Zone one' }) },
  '/billing/batches/get-batches': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Batches', { batchCode: r.batchCode }) },
  '/billing/accounts/make-account': {
    role: 'biller',
    newKeys: ['accountNumber'],
    body: (r) => env('Create', 'Create Account', { accountNumber: next(r, 'ACC'), name: 'Jane Doe', email: 'jane@example.com', phone: '+254 700 000000', address: '1 Main St' }),
  },
  '/billing/accounts/update-account': { role: 'biller', body: (r) => env('Update', 'Update Account', { accountNumber: r.spareAccountNumber, name: 'Jane Roe', phone: '+254 700 000001' }) },
  '/billing/accounts/get-accounts': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Accounts', { accountNumber: r.accountNumber, search: r.accountNumber, batchCode: r.batchCode, serviceCode: r.serviceCode, limit: 10, offset: 0 }),
  },
  '/billing/accounts/get-account': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Account', { accountNumber: r.accountNumber }) },
  '/billing/subscriptions/make-subscription': {
    role: 'biller',
    body: (r) =>
      env('Create', 'Create Subscription', { accountNumber: r.accountNumber, serviceCode: r.serviceCode, batchCode: r.otherBatchCode, startDate: '01/01/2027', endDate: '31/12/2027', openingReadings: { METER: 5 } }),
  },
  '/billing/subscriptions/get-subscriptions': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Subscriptions', { subscriptionID: r.subscriptionID, accountNumber: r.accountNumber, batchCode: r.batchCode, serviceCode: r.serviceCode }),
  },
  '/billing/subscriptions/update-subscription': { role: 'biller', body: (r) => env('Update', 'Update Subscription', { subscriptionID: r.subscriptionID, date: '01/12/2026', unmeteredInputs: {} }) },
  '/billing/subscriptions/suspend-subscription': { role: 'biller', body: (r) => env('Update', 'Suspend Subscription', { subscriptionID: r.subscriptionID, date: '01/12/2026', reason: 'away' }) },
  '/billing/subscriptions/resume-subscription': { role: 'biller', body: (r) => env('Update', 'Resume Subscription', { subscriptionID: r.subscriptionID, date: '05/12/2026', reason: 'back' }) },
  '/billing/subscriptions/terminate-subscription': { role: 'biller', body: (r) => env('Update', 'Terminate Subscription', { subscriptionID: r.subscriptionID, endDate: '31/12/2026', reason: 'moved out' }) },
  '/billing/subscriptions/move-subscription': {
    role: 'biller',
    body: (r) => env('Update', 'Move Subscription', { subscriptionID: r.subscriptionID, date: '01/12/2026', batchCode: r.otherBatchCode, serviceCode: r.serviceCode }),
  },
  '/billing/readings/capture-readings': {
    role: 'biller',
    body: (r) => env('Create', 'Capture Readings', { readings: [{ subscriptionID: r.subscriptionID, inputCode: 'METER', readingDate: '15/12/2026', value: '190', kind: 'actual', source: 'handheld', note: 'ok' }] }),
  },
  '/billing/readings/correct-reading': { role: 'biller', body: (r) => env('Update', 'Correct Reading', { readingID: r.readingID, value: '151', readingDate: '31/10/2026', note: 'typo' }) },
  '/billing/readings/get-readings': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Readings', { subscriptionID: r.subscriptionID, inputCode: 'METER' }) },
  '/billing/imports/make-import': {
    role: 'biller',
    body: (r) => env('Create', 'Create Import', { kind: 'readings', dryRun: true, fileName: 'r.json', rows: [{ subscriptionID: r.subscriptionID, inputCode: 'METER', readingDate: '20/12/2026', value: '195' }] }),
  },
  '/billing/imports/get-imports': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Imports', { importID: r.importID }) },
  '/billing/payments/make-payment': {
    role: 'biller',
    newKeys: ['reference'],
    body: (r) => env('Create', 'Create Payment', { accountNumber: r.accountNumber, amount: '10.50', paymentDate: '02/12/2026', reference: next(r, 'PAY'), channel: 'bank', description: 'cash' }),
  },
  '/billing/payments/import-payments': {
    role: 'biller',
    newKeys: ['reference'],
    body: (r) => env('Create', 'Import Payments', { fileName: 'p.json', payments: [{ accountNumber: r.accountNumber, amount: '5.00', paymentDate: '03/12/2026', reference: next(r, 'IMP'), channel: 'bank' }] }),
  },
  '/billing/payments/reverse-payment': { role: 'biller', body: (r) => env('Update', 'Reverse Payment', { reference: r.paymentReference, reason: 'bounced', reversalDate: '04/12/2026' }) },
  '/billing/payments/get-payments': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Payments', { paymentID: r.paymentID, reference: r.paymentReference, accountNumber: r.accountNumber, fromDate: '01/01/2026', toDate: '31/12/2026' }),
  },
  '/billing/ledger/make-adjustment': {
    role: 'biller',
    body: (r) => env('Create', 'Create Adjustment', { accountNumber: r.accountNumber, kind: 'credit', amount: '1.25', reason: 'goodwill', adjustmentDate: '05/12/2026', billID: r.billID }),
  },
  '/billing/subscriptions/record-documents': {
    role: 'biller',
    body: (r) => env('Update', 'Record Subscription Documents', { subscriptionID: r.subscriptionID, documents: [{ name: 'National ID', reference: '12345678', date: '01/12/2026' }] }),
  },
  '/billing/journal/get-journal': { role: 'viewer', body: () => env('Retrieve', 'Retrieve Journal', { from: '01/01/2026', to: '31/12/2026' }) },
  '/billing/journal/export-journal': { role: 'viewer', body: () => env('Retrieve', 'Export Journal', { from: '01/01/2026', to: '31/12/2026' }) },
  '/billing/ledger/get-statement': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Statement', { accountNumber: r.accountNumber, fromDate: '01/01/2026', toDate: '31/12/2026' }) },
  '/billing/ledger/get-open-bills': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Open Bills', { accountNumber: r.accountNumber, limit: 10 }) },
  '/billing/ledger/get-ageing': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Ageing', { accountNumber: r.accountNumber, asOf: '31/12/2026' }) },
  '/billing/ledger/check-ledger': { role: 'viewer', body: (r) => env('Retrieve', 'Check Ledger', { accountNumber: r.accountNumber }) },
  '/billing/terms/make-term': {
    role: 'biller',
    body: (r) =>
      term(
        'Create Bill Term',
        { serviceCode: r.serviceCode, batchCode: r.batchCode, billingPeriodID: 202701, label: 'January', startDate: '01/01/2027', endDate: '31/01/2027', dueDate: '14/02/2027', postType: 'Post Subscription' },
        'Create',
      ),
  },
  '/billing/terms/get-terms': {
    role: 'viewer',
    body: (r) => term('Retrieve Terms', { termID: r.termID, serviceCode: r.serviceCode, batchCode: r.batchCode, billingPeriodID: 202611 }, 'Retrieve'),
  },
  '/billing/terms/load-subscriptions': { role: 'biller', body: (r) => term('Load Term Subscriptions', { termID: r.termID }) },
  '/billing/terms/capture-readings': {
    role: 'biller',
    body: (r) => term('Capture Term Readings', { termID: r.loadedTermID, readings: [{ subscriptionID: r.subscriptionID, inputCode: 'METER', readingDate: '28/12/2026', value: '210', kind: 'actual', note: 'n' }] }),
  },
  '/billing/terms/validate-term': { role: 'biller', body: (r) => term('Validate Term', { termID: r.loadedTermID, estimateMissing: false, previewLimit: 5 }) },
  '/billing/terms/approve-term': { role: 'biller', body: (r) => term('Approve Term', { termID: r.termID }) },
  '/billing/terms/process-term': { role: 'biller', body: (r) => term('Process Term', { termID: r.termID, sheduleTime: '2026-12-01T10:00:00' }) },
  '/billing/terms/get-reading-sheet': { role: 'viewer', body: (r) => ({ method: 'Retrieve', action: 'Retrieve Reading Sheet', apiVersion: 'v2', operation: 'schedule', data: { termID: r.termID, format: 'jsonl' } }) },
  '/billing/terms/get-failures': { role: 'viewer', body: (r) => ({ method: 'Retrieve', action: 'Retrieve Term Failures', apiVersion: 'v2', operation: 'schedule', data: { termID: r.termID, limit: 10, offset: 0 } }) },
  '/billing/terms/retry-failures': { role: 'biller', body: (r) => term('Retry Term Failures', { termID: r.termID }) },
  '/billing/terms/cancel-term': { role: 'biller', body: (r) => term('Cancel Term', { termID: r.termID }) },
  '/billing/terms/reverse-term': { role: 'biller', body: (r) => term('Reverse Term', { termID: r.termID }) },
  '/billing/terms/post-term': { role: 'biller', body: (r) => term('Post Term', { termID: r.termID }) },
  '/billing/bills/get-bills': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Bills', { termID: r.termID, accountID: r.accountID, accountNumber: r.accountNumber, billID: r.billID, billNumber: r.billNumber, subscriptionID: r.subscriptionID, status: 'posted' }) },
  '/billing/bills/verify-bill': { role: 'viewer', body: (r) => env('Retrieve', 'Verify Bill', { billID: r.billID }) },
  '/billing/terms/verify-term': { role: 'biller', body: (r) => term('Verify Term', { termID: r.termID }) },
  '/billing/terms/get-verification': { role: 'viewer', body: (r) => term('Retrieve Term Verification', { termID: r.termID, limit: 10, offset: 0 }, 'Retrieve') },
  '/billing/documents/make-document-template': { role: 'admin', body: () => env('Create', 'Create Document Template', { kind: 'invoice', name: 'Plain', body: '# {{ app.name }}\nBill {{ bill.number }}' }) },
  '/billing/documents/get-document-templates': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Document Templates', { kind: 'invoice', templateID: r.templateID, version: 1 }) },
  '/billing/documents/update-document-template': { role: 'admin', body: (r) => env('Update', 'Update Document Template', { templateID: r.templateID, name: 'Plain', body: '# {{ app.name }}' }) },
  '/billing/documents/archive-document-template': { role: 'admin', body: (r) => env('Update', 'Archive Document Template', { templateID: r.templateID, archiveStatus: 0 }) },
  '/billing/documents/preview-document-template': { role: 'viewer', body: (r) => env('Retrieve', 'Preview Document Template', { kind: 'invoice', templateID: r.templateID, version: 1 }) },
  '/billing/documents/get-credit-note-document': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Credit Note Document', { creditNoteID: r.creditNoteID }) },
  '/billing/documents/get-bill-document': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Bill Document', { billID: r.billID }) },
  '/billing/documents/get-bill-documents': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Bill Documents', { termID: r.termID, status: 'rendered', afterBillID: 0, limit: 10 }) },
  // Nothing is missing or failed, so the allowed call queues no job.
  '/billing/documents/render-bill-documents': { role: 'biller', body: (r) => env('Update', 'Render Bill Documents', { termID: r.termID }) },
  '/billing/documents/get-print-extract': { role: 'biller', body: (r) => env('Retrieve', 'Retrieve Print Extract', { termID: r.termID, format: 'jsonl' }) },
  '/billing/documents/get-credit-note-extract': { role: 'biller', body: () => env('Retrieve', 'Retrieve Credit Note Extract', { from: '01/01/2027', to: '31/01/2027', format: 'jsonl', only: 'print' }) },
  '/billing/deliveries/get-deliveries': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Deliveries', { termID: r.termID, billID: r.billID, deliveryID: r.deliveryID, status: 'sent' }) },
  '/billing/deliveries/resend-delivery': { role: 'biller', body: (r) => env('Update', 'Resend Delivery', { deliveryID: r.deliveryID }) },
  '/admin/get-app': { role: 'admin', body: () => env('Retrieve', 'Retrieve App', {}) },
  '/admin/update-app': {
    role: 'admin',
    body: () =>
      env('Update', 'Update App', {
        name: 'Water Co',
        address: '1 Reservoir Road',
        timeZone: 'Africa/Nairobi',
        rounding: 'halfUp',
        lateCharge: { graceDays: 5, kind: 'flat', amount: '100.00', minimum: '10.00', maximum: '500.00' },
      }),
  },
  // The apps are live: the valid example is refused as such (INVALID_STATE), its bad values by their rules first.
  '/admin/set-clock': { role: 'admin', body: () => env('Update', 'Set Clock', { days: 1 }) },
  '/admin/get-users': { role: 'admin', body: (r) => env('Retrieve', 'Retrieve Users', { userID: r.userID, email: `clerk-${r.prefix.toLowerCase()}@example.test`, limit: 10, offset: 0 }) },
  '/admin/make-user': {
    role: 'admin',
    newKeys: ['email'],
    body: (r) => env('Create', 'Create User', { email: `${next(r, 'user')}@example.test`, password: 'long enough pw', role: 'viewer' }),
  },
  '/admin/update-user': { role: 'admin', body: (r) => env('Update', 'Update User', { userID: r.userID, role: 'viewer' }) },
  '/admin/reset-password': { role: 'admin', body: (r) => env('Update', 'Reset Password', { userID: r.userID, password: 'long enough pw' }) },
  '/admin/get-audit-log': { role: 'admin', body: (r) => env('Retrieve', 'Retrieve Audit Log', { action: 'user.make', target: `user:${r.userID}`, limit: 10, offset: 0 }) },
  '/billing/late-charges/run-late-charges': { role: 'admin', body: () => env('Create', 'Run Late Charges', {}) },
  '/billing/late-charges/get-late-charges': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Late Charges', { accountNumber: r.accountNumber, billID: r.billID, limit: 10 }) },
  '/billing/bills/get-credit-notes': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Credit Notes', { billID: r.billID, accountID: r.accountID, termID: r.termID, afterCreditNoteID: 0, limit: 10 }),
  },
  '/billing/bills/get-estimated-bills': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Estimated Bills', { subscriptionID: r.subscriptionID }) },
  '/billing/bills/rebill-estimates': { role: 'biller', body: (r) => env('Update', 'Rebill Estimates', { subscriptionID: r.subscriptionID, reason: 'actual reading' }) },
  '/billing/bills/cancel-bill': { role: 'biller', body: (r) => env('Update', 'Cancel Bill', { billID: r.billID, reason: 'meter misread', rebill: true }) },
  '/billing/terms/cancel-and-rebill': { role: 'biller', body: (r) => env('Update', 'Cancel And Rebill Term', { termID: r.termID, reason: 'meter misread', rebill: true }) },
  '/billing/simulations/simulate-tariff': {
    role: 'biller',
    body: (r) => env('Create', 'Simulate Tariff', { termID: r.termID, draftVersion: 1, label: 'same tariff', bands: ['10', '30'], solve: { componentCode: 'STANDING', target: 'revenueNeutral', measure: 'total' } }),
  },
  '/billing/simulations/get-simulations': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Simulations', { simulationID: r.simulationID, termID: r.termID, status: 'Done', limit: 10, offset: 0 }) },
  '/billing/simulations/get-simulation-results': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Simulation Results', { simulationID: r.simulationID, sort: 'size', failed: false, batchCode: r.batchCode, limit: 10, offset: 0 }),
  },
  '/billing/simulations/export-simulation': { role: 'viewer', body: (r) => env('Retrieve', 'Export Simulation', { simulationID: r.simulationID, sort: 'difference' }) },
  '/billing/simulations/delete-simulation': { role: 'biller', body: (r) => env('Update', 'Delete Simulation', { simulationID: r.simulationID }) },
  '/billing/schedules/make-schedule': {
    role: 'biller',
    body: (r) => env('Create', 'Create Schedule', { serviceCode: r.serviceCode, batchCode: r.batchCode, startDate: '01/02/2027', autoProcess: false, estimateMissing: false }),
  },
  '/billing/schedules/get-schedules': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Schedules', { scheduleID: r.scheduleID, serviceCode: r.serviceCode, batchCode: r.batchCode }) },
  '/billing/schedules/pause-schedule': { role: 'biller', body: (r) => env('Update', 'Pause Schedule', { scheduleID: r.scheduleID }) },
  '/billing/schedules/resume-schedule': { role: 'biller', body: (r) => env('Update', 'Resume Schedule', { scheduleID: r.scheduleID }) },
  '/billing/schedules/get-schedule-runs': { role: 'viewer', body: (r) => env('Retrieve', 'Retrieve Schedule Runs', { scheduleID: r.scheduleID, outcome: 'done', limit: 10, offset: 0 }) },
  '/billing/schedules/run-schedules': { role: 'biller', body: () => env('Create', 'Run Schedules', {}) },
  '/billing/deposits/get-deposits': {
    role: 'viewer',
    body: (r) => env('Retrieve', 'Retrieve Deposits', { accountNumber: r.accountNumber, subscriptionID: r.subscriptionID, status: 'Held', refundDue: false, limit: 10, offset: 0 }),
  },
  // The records' subscription is live (or terminated without a deposit): the valid example is answered INVALID_STATE.
  '/billing/deposits/release-deposits': { role: 'biller', body: (r) => env('Update', 'Release Deposits', { subscriptionID: r.subscriptionID }) },
  // The records have no released deposit: the valid example is answered NOT_FOUND, its bad values by their rules first.
  '/billing/deposits/pay-refunds': { role: 'biller', body: () => env('Update', 'Pay Deposit Refunds', { depositIDs: [987654321], reference: 'RUN-1', paidDate: '31/01/2027' }) },
};

/** Routes that are not JSON business operations and have tests of their own below. */
export const NOT_JSON = new Set(['/billing/imports/upload-import']);

/** Identifiers that do not exist in any app, one per kind of reference. */
export const MISSING: Record<string, string | number> = {
  serviceCode: 'NO-SUCH-SERVICE',
  code: 'NO-SUCH-SERVICE',
  batchCode: 'NO-SUCH-BATCH',
  accountNumber: 'NO-SUCH-ACCOUNT',
  accountID: 987654321,
  subscriptionID: 987654321,
  readingID: 987654321,
  termID: 987654321,
  loadedTermID: 987654321,
  billID: 987654321,
  billNumber: 987654321,
  paymentID: 987654321,
  reference: 'NO-SUCH-REFERENCE',
  importID: 987654321,
  templateID: 987654321,
  deliveryID: 987654321,
  userID: 987654321,
  simulationID: 987654321,
  scheduleID: 987654321,
  creditNoteID: 987654321,
};

/** The value of Refs that a field of that name names. */
export function refFor(field: string, r: Refs): string | number | undefined {
  switch (field) {
    case 'serviceCode':
    case 'code':
      return r.serviceCode;
    case 'batchCode':
      return r.batchCode;
    case 'reference':
      return r.paymentReference;
    default:
      return (r as unknown as Record<string, string | number>)[field];
  }
}

const header = (a: { headers: Headers }, name: string) => {
  const v = a.headers.get(name);
  assert.ok(v, `header ${name}`);
  return Number(v.split(',')[0]);
};

/**
 * Records of one app made through its API with an admin token: a template, two batches,
 * accounts, a subscription with readings, a processed and posted term with its bill, a
 * payment, an import and a plant. `runTerm` makes the term's bills (a worker must run).
 */
export async function setupRecords(
  h: Harness,
  token: string,
  prefix: string,
  runTerm: (termID: number) => Promise<void>,
  opts: { spareBilledFirst?: boolean } = {},
): Promise<Refs> {
  const r = { prefix, serviceCode: `${prefix}WATER`, batchCode: `${prefix}Z1`, otherBatchCode: `${prefix}Z2` } as Refs;
  const ok = async (path: string, body: unknown) => {
    const a = await h.post(path, body, token);
    assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
    return a;
  };
  await ok('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: service(r) });
  r.accountNumber = `${prefix}-ACC-1`;
  r.spareAccountNumber = `${prefix}-ACC-2`;
  r.accountID = header(
    await ok('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: r.accountNumber, name: `Customer of ${prefix}`, email: `customer@${prefix.toLowerCase()}.test`, deliveryPreference: 'email' })),
    'x-billrun-account-id',
  );
  await ok('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: r.spareAccountNumber, name: `Spare of ${prefix}` }));
  if (opts.spareBilledFirst) {
    // Billed before the main account, so this app's bill numbers differ from an app without it
    // (bill numbers count per app: two apps' bill 1 are both legitimately "bill 1").
    const spare = header(
      await ok(
        '/billing/subscriptions/make-subscription',
        env('Create', 'Create Subscription', { accountNumber: r.spareAccountNumber, serviceCode: r.serviceCode, batchCode: r.batchCode, startDate: '01/01/2026', openingReadings: { METER: 7 } }),
      ),
      'x-billrun-subscription-id',
    );
    await ok('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: [{ subscriptionID: spare, inputCode: 'METER', readingDate: '30/11/2026', value: '9' }] }));
  }
  r.subscriptionID = header(
    await ok(
      '/billing/subscriptions/make-subscription',
      env('Create', 'Create Subscription', { accountNumber: r.accountNumber, serviceCode: r.serviceCode, batchCode: r.batchCode, startDate: '01/01/2026', openingReadings: { METER: 100 } }),
    ),
    'x-billrun-subscription-id',
  );
  const captured = await ok(
    '/billing/readings/capture-readings',
    env('Create', 'Capture Readings', { readings: [{ subscriptionID: r.subscriptionID, inputCode: 'METER', readingDate: '31/10/2026', value: '150' }, { subscriptionID: r.subscriptionID, inputCode: 'METER', readingDate: '30/11/2026', value: '180' }] }),
  );
  r.readingID = header(captured, 'x-billrun-reading-ids');
  r.termID = header(
    await ok('/billing/terms/make-term', term('Create Bill Term', { serviceCode: r.serviceCode, batchCode: r.batchCode, billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' }, 'Create')),
    'x-billrun-term-id',
  );
  await ok('/billing/terms/process-term', term('Process Term', { termID: r.termID }));
  await runTerm(r.termID);
  await ok('/billing/terms/post-term', term('Post Term', { termID: r.termID }));
  r.loadedTermID = header(
    await ok('/billing/terms/make-term', term('Create Bill Term', { serviceCode: r.serviceCode, batchCode: r.batchCode, billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' }, 'Create')),
    'x-billrun-term-id',
  );
  await ok('/billing/terms/load-subscriptions', term('Load Term Subscriptions', { termID: r.loadedTermID }));
  // The posted bill cancelled by a credit note and rebilled: the examples name the rebill.
  const first = (await ok('/billing/bills/get-bills', env('Retrieve', 'Retrieve Bills', { accountID: r.accountID }))).body.data.bills[0];
  const corrected = (await ok('/billing/bills/cancel-bill', env('Update', 'Cancel Bill', { billID: first.billID, reason: 'meter misread', rebill: true }))).body.data.creditNotes[0];
  r.creditNoteID = corrected.creditNoteID;
  r.billID = corrected.rebillID;
  r.billNumber = corrected.rebillNumber;
  // A credit note's PDF is made at its first read and kept: made here, so reads change nothing.
  const note = await h.post('/billing/documents/get-credit-note-document', env('Retrieve', 'Retrieve Credit Note Document', { creditNoteID: r.creditNoteID }), token);
  assert.equal(note.status, 200);
  r.paymentReference = `${prefix}-PAY-1`;
  r.paymentID = header(
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: r.accountNumber, amount: '20.00', paymentDate: '01/12/2026', reference: r.paymentReference, channel: 'bank' })),
    'x-billrun-payment-id',
  );
  r.importID = header(await ok('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'accounts', rows: [{ accountNumber: `${prefix}-IMP-1`, name: 'Imported' }] })), 'x-billrun-import-id');
  r.templateID = header(
    await ok('/billing/documents/make-document-template', env('Create', 'Create Document Template', { kind: 'invoice', name: `Bill of ${prefix}`, body: '# {{ app.name }}' })),
    'x-billrun-template-id',
  );
  // The term's documents and e-mail are jobs: wait for the queue to empty, so that later
  // checks see still tables.
  for (let i = 0; ; i++) {
    const q = await h.db.query(`SELECT count(*)::int AS n FROM graphile_worker._private_jobs`);
    if (q.rows[0].n === 0) break;
    if (i > 600) throw new Error('the documents and delivery jobs did not finish');
    await new Promise((res) => setTimeout(res, 100));
  }
  r.simulationID = header(
    await ok('/billing/simulations/simulate-tariff', env('Create', 'Simulate Tariff', { termID: r.termID, draftVersion: 1, label: `simulation of ${prefix}` })),
    'x-billrun-simulation-id',
  );
  const deliveries = await ok('/billing/deliveries/get-deliveries', env('Retrieve', 'Retrieve Deliveries', { termID: r.termID }));
  r.deliveryID = deliveries.body.data.deliveries[0].deliveryID;
  r.userID = header(
    await ok('/admin/make-user', env('Create', 'Create User', { email: `clerk-${prefix.toLowerCase()}@example.test`, password: 'long enough pw', role: 'viewer' })),
    'x-billrun-user-id',
  );
  r.scheduleID = Number(
    header(await ok('/billing/schedules/make-schedule', env('Create', 'Create Schedule', { serviceCode: r.serviceCode, batchCode: r.batchCode, startDate: '01/02/2027' })), 'x-billrun-schedule-id'),
  );
  const plant = await h.request('POST', '/sandbox/plants', { token: `Bearer ${token}`, body: { name: `${prefix} fern`, tag: prefix } });
  assert.equal(plant.status, 201, JSON.stringify(plant.body));
  r.plantId = plant.body.id;
  return r;
}

/** Every leaf of a body with its path, e.g. ['data', 'readings', 0, 'subscriptionID']. */
export function leaves(v: unknown, path: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [{ path, value: v }];
}

/** A copy of body with the value at path replaced. */
export function withValue<T>(body: T, path: (string | number)[], value: unknown): T {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy as T;
}

/** The error-detail form of a path: data.readings[0].value. */
export function pathText(path: (string | number)[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}
