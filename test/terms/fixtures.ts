// Accounts, subscriptions and readings for bill-run tests, written straight into the
// tables of migration 003 (their own APIs are tested elsewhere). The behaviour under
// test, the term's steps and the bills, is driven through HTTP.
import type { ServiceDefinition } from '../../src/templates/schemas.ts';
import { waterService } from '../fixtures/tariffs.ts';
import type { Config } from '../../src/config.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** The shared water template (test/fixtures/tariffs.ts), in the batches these tests use. */
export const tariff = (code = 'WATER', extra: Partial<ServiceDefinition> = {}): ServiceDefinition =>
  waterService(code, { batches: ['ZONE-A', 'ZONE-B', 'Z1', 'Z2', 'Z3', 'Z4'], ...extra });

export const env = (data: unknown, method: string, action: string) => ({ method, action, apiVersion: 'v2', operation: 'schedule', data });

export async function makeTemplate(h: Harness, service: ServiceDefinition = tariff()): Promise<void> {
  const r = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
  if (r.status !== 200) throw new Error(`make-service: ${JSON.stringify(r.body)}`);
}

/**
 * The bill-run suites' server on its own database, with a worker beside it to run the
 * term's jobs and the given templates made; close() stops the worker, then the server.
 */
export async function startRun(overrides: Partial<Config> = {}, templates: ServiceDefinition[] = []): Promise<{ h: Harness; close: () => Promise<void> }> {
  const h = await startHarness(overrides);
  const worker = await startWorker(h.db, h.config, 2);
  for (const t of templates) await makeTemplate(h, t);
  return {
    h,
    close: async () => {
      await worker.stop();
      await h.close();
    },
  };
}

/** The water template posting its bills as soon as the run ends, in its own batch. */
export const autoPostTariff = () => tariff('AUTO', { postBilling: 1, batches: ['ZONE-C'] });

export type Sub = { subscriptionId: string; accountId: string };

/**
 * n accounts, each with one subscription to the template in the batch, from startDate
 * (yyyy-mm-dd), with readings: [date, value] pairs, the same for every subscription
 * unless `readingsOf` gives them per index.
 */
export async function subscriptions(
  h: Harness,
  o: {
    n: number;
    serviceCode?: string;
    batchCode?: string;
    startDate?: string;
    endDate?: string | null;
    readings?: [string, number][];
    readingsOf?: (i: number) => [string, number][];
    balance?: string;
    appCode?: number;
    prefix?: string;
  },
): Promise<Sub[]> {
  const app = o.appCode ?? h.appCode;
  const prefix = o.prefix ?? `A${Math.random().toString(36).slice(2, 8)}`;
  const ids = await h.db.query<{ service_id: string; batch_id: string }>(
    `SELECT s.service_id, b.batch_id FROM service s JOIN batch b ON b.app_code = s.app_code AND b.batch_code = $3
      WHERE s.app_code = $1 AND s.service_code = $2`,
    [app, o.serviceCode ?? 'WATER', o.batchCode ?? 'ZONE-A'],
  );
  const { service_id, batch_id } = ids.rows[0]!;
  const accounts = await h.db.query<{ account_id: string }>(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by)
     SELECT $1, $2 || '-' || g, 'Customer ' || g, 'fixture', 'fixture' FROM generate_series(1, $3) g ORDER BY g RETURNING account_id`,
    [app, prefix, o.n],
  );
  const accountIds = accounts.rows.map((r) => r.account_id);
  if (o.balance) {
    await h.db.query(
      `INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, created_by)
       SELECT $1, a, '2026-01-01', 'opening_balance', $3, 'fixture' FROM unnest($2::bigint[]) a`,
      [app, accountIds, o.balance],
    );
  }
  const subs = await h.db.query<{ subscription_id: string; account_id: string }>(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, end_date, created_by, modified_by)
     SELECT $1, a, $2, $3, $4, $5, 'fixture', 'fixture' FROM unnest($6::bigint[]) WITH ORDINALITY AS u(a, n) ORDER BY n
     RETURNING subscription_id, account_id`,
    [app, service_id, batch_id, o.startDate ?? '2000-01-01', o.endDate ?? null, accountIds],
  );
  const out = subs.rows.map((r) => ({ subscriptionId: r.subscription_id, accountId: r.account_id }));
  const rows: [string, string, number][] = [];
  out.forEach((s, i) => {
    for (const [date, value] of o.readingsOf?.(i) ?? o.readings ?? []) rows.push([s.subscriptionId, date, value]);
  });
  if (rows.length > 0) await addReadings(h, rows, app);
  return out;
}

/**
 * An account (number `name`) with one subscription per consumption (null: no reading in
 * November 2026) to the WATER template in ZONE-A, balance 40.00, readings 100 on 31/10/2026;
 * each subscription's METER_NO is `name`-M1, -M2 ... (the Post Account tests' customers).
 */
export async function postAccountCustomer(h: Harness, name: string, used: (number | null)[]): Promise<{ accountId: string; subs: string[] }> {
  const a = await h.db.query<{ account_id: string }>(
    `INSERT INTO account (app_code, account_number, name, created_by, modified_by) VALUES ($1, $2, $2, 'fixture', 'fixture') RETURNING account_id`,
    [h.appCode, name],
  );
  const accountId = a.rows[0]!.account_id;
  await h.db.query(`INSERT INTO ledger_entry (app_code, account_id, entry_date, kind, amount, created_by) VALUES ($1, $2, '2026-01-01', 'opening_balance', 40, 'fixture')`, [h.appCode, accountId]);
  const subs: string[] = [];
  for (let i = 0; i < used.length; i++) {
    const s = await h.db.query<{ subscription_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, connection_inputs, created_by, modified_by)
       SELECT $1, $2, s.service_id, b.batch_id, '2000-01-01', $3, 'fixture', 'fixture'
         FROM service s JOIN batch b ON b.app_code = s.app_code AND b.batch_code = 'ZONE-A'
        WHERE s.app_code = $1 AND s.service_code = 'WATER' RETURNING subscription_id`,
      [h.appCode, accountId, JSON.stringify({ METER_NO: `${name}-M${i + 1}` })],
    );
    subs.push(s.rows[0]!.subscription_id);
  }
  const rows: [string, string, number][] = [];
  used.forEach((u, i) => {
    rows.push([subs[i]!, '2026-10-31', 100]);
    if (u !== null) rows.push([subs[i]!, '2026-11-30', 100 + u]);
  });
  await addReadings(h, rows);
  return { accountId, subs };
}

export async function addReadings(h: Harness, rows: [string, string, number][], appCode = h.appCode, input = 'METER'): Promise<void> {
  await h.db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, created_by)
     SELECT $1, s, $2, d, v, 'fixture' FROM unnest($3::bigint[], $4::date[], $5::numeric[]) AS u(s, d, v)`,
    [appCode, input, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
  );
}

/** The term of this period and its record (get-terms). */
export async function termOf(h: Harness, filter: Record<string, unknown>, token?: string) {
  const r = await h.post('/billing/terms/get-terms', env(filter, 'Retrieve', 'Retrieve Terms'), token);
  if (r.status !== 200) throw new Error(`get-terms: ${JSON.stringify(r.body)}`);
  return r.body.data.terms[0];
}

export const makeTermBody = (data: Record<string, unknown>) =>
  env({ serviceCode: 'WATER', batchCode: 'ZONE-A', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026', ...data }, 'Create', 'Create Bill Term');

export async function makeTerm(h: Harness, data: Record<string, unknown> = {}): Promise<number> {
  const r = await h.post('/billing/terms/make-term', makeTermBody(data));
  if (r.status !== 200) throw new Error(`make-term: ${JSON.stringify(r.body)}`);
  return Number(r.headers.get('x-billrun-term-id'));
}

export const step = (h: Harness, name: string, action: string, data: Record<string, unknown>, token?: string) =>
  h.post(`/billing/terms/${name}`, env(data, 'Update', action), token);

/** Polls get-terms until the term's status is one of `statuses` (or throws after timeoutMs). */
export async function waitForStatus(h: Harness, termID: number, statuses: string[], timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = await termOf(h, { termID });
    if (statuses.includes(t.status)) return t;
    if (Date.now() > deadline) throw new Error(`term ${termID} is ${t.status}, not ${statuses.join('/')}: ${JSON.stringify(t.job)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Makes a term (makeTermBody's defaults overridden by `data`), loads, validates, approves and processes it; answers its id once Processed. */
export async function processTerm(h: Harness, data: Record<string, unknown> = {}): Promise<number> {
  const termID = await makeTerm(h, data);
  for (const [name, action] of [
    ['load-subscriptions', 'Load Term Subscriptions'],
    ['validate-term', 'Validate Term'],
    ['approve-term', 'Approve Term'],
    ['process-term', 'Process Term'],
  ] as const) {
    const r = await step(h, name, action, { termID });
    if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
  }
  await waitForStatus(h, termID, ['Processed']);
  return termID;
}
