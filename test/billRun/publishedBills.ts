// Helpers of the outside checks (published commercial electricity tariffs reproduced through HTTP):
// accounts, subscriptions and readings made through the API, as a utility's billing engineer makes them.
import type { Harness } from '../support/harness.ts';
import { makeTerm, step, waitForStatus } from '../terms/fixtures.ts';

export const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

export async function ok(r: Promise<{ status: number; body: any; headers: Headers }>, what: string) {
  const a = await r;
  if (a.status !== 200) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
  return a;
}

/** An account and one subscription to `serviceCode` in `batchCode`, with its opening readings; answers the subscription's id. */
export async function customer(
  h: Harness,
  o: { accountNumber: string; serviceCode: string; batchCode: string; startDate: string; openingReadings: Record<string, number>; unmeteredInputs?: Record<string, number>; connectionInputs?: Record<string, string> },
): Promise<number> {
  await ok(h.post('/billing/accounts/make-account', envelope('Create', 'Create Account', { accountNumber: o.accountNumber, name: `Customer ${o.accountNumber}`, address: '1 Test Road', deliveryPreference: 'print' })), 'make-account');
  const s = await ok(
    h.post(
      '/billing/subscriptions/make-subscription',
      envelope('Create', 'Create Subscription', {
        accountNumber: o.accountNumber,
        serviceCode: o.serviceCode,
        batchCode: o.batchCode,
        startDate: o.startDate,
        openingReadings: o.openingReadings,
        ...(o.unmeteredInputs ? { unmeteredInputs: o.unmeteredInputs } : {}),
        ...(o.connectionInputs ? { connectionInputs: o.connectionInputs } : {}),
      }),
    ),
    'make-subscription',
  );
  return Number(s.headers.get('x-billrun-subscription-id'));
}

/** Readings through capture-readings: [subscriptionID, inputCode, dd/mm/yyyy, value]. */
export async function capture(h: Harness, rows: [number, string, string, string][]) {
  await ok(
    h.post('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: rows.map(([subscriptionID, inputCode, readingDate, value]) => ({ subscriptionID, inputCode, readingDate, value })) })),
    'capture-readings',
  );
}

/** The six steps of a term (make, load, validate, approve, process); answers the term's id and its bills. */
export async function billTerm(h: Harness, data: Record<string, unknown>, validate: Record<string, unknown> = {}) {
  const termID = await makeTerm(h, data);
  await ok(step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID }), 'load-subscriptions');
  const validated = await ok(step(h, 'validate-term', 'Validate Term', { termID, ...validate }), 'validate-term');
  await ok(step(h, 'approve-term', 'Approve Term', { termID }), 'approve-term');
  await ok(step(h, 'process-term', 'Process Term', { termID }), 'process-term');
  const t = await waitForStatus(h, termID, ['Processed', 'Failed']);
  if (t.status !== 'Processed') throw new Error(`term ${termID} ${t.status}: ${JSON.stringify(t)}`);
  const bills = (await ok(h.post('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID })), 'get-bills')).body.data.bills;
  return { termID, bills, validated: validated.body.data };
}

/** The sum of a bill's lines of one component (a bill in segments has one per segment), as text with 2 decimals. */
export function componentTotal(bill: any, code: string): string {
  let cents = 0n;
  for (const l of bill.lines) if (l.componentCode === code) cents += BigInt(l.amount.replace('.', ''));
  const s = cents.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/** A simulation through the API (simulate-tariff), waited for: its record when Done or Failed, and its results. */
export async function simulate(h: Harness, data: Record<string, unknown>): Promise<{ record: any; results: any[] }> {
  const sim = await ok(h.post('/billing/simulations/simulate-tariff', envelope('Create', 'Simulate Tariff', data)), 'simulate-tariff');
  const simulationID = sim.body.data.simulation.simulationID;
  let record: any;
  for (let i = 0; i < 200; i++) {
    record = (await ok(h.post('/billing/simulations/get-simulations', envelope('Retrieve', 'Retrieve Simulations', { simulationID })), 'get-simulations')).body.data.simulations[0];
    if (record.status === 'Done' || record.status === 'Failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const results = (await ok(h.post('/billing/simulations/get-simulation-results', envelope('Retrieve', 'Retrieve Simulation Results', { simulationID })), 'get-simulation-results')).body.data.results;
  return { record, results };
}
