// The API under sustained mixed load from a second process on loopback: a server
// process on the embedded PostgreSQL, and autocannon here driving reads and writes.
// Prints requests, errors, latency percentiles and the server's memory over time.
// Flags: --load-seconds N (default 120), --connections N (default 20).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { arg } from './args.ts';

const seconds = arg('--load-seconds', 120);
const connections = arg('--connections', 20);
const root = path.resolve(import.meta.dirname, '..');
const dataDir = path.join(root, '.data/bench-load');
fs.rmSync(dataDir, { recursive: true, force: true });
const port = 8181;
const base = `http://127.0.0.1:${port}`;
const email = 'load@bench.test';
const password = 'load bench password';

const server = spawn(process.execPath, [path.join(root, 'src/main.ts'), 'serve'], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    BILLRUN_DATA_DIR: dataDir,
    BILLRUN_EMBEDDED_PG_PORT: '25381',
    BILLRUN_ADMIN_EMAIL: email,
    BILLRUN_ADMIN_PASSWORD: password,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const rssMiB = () => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 120) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 250));
  }
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'Create', action: 'Login', apiVersion: 'v2', data: { email, password } }),
  });
  const token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken;
  const headers = { 'content-type': 'application/json', authorization: token };

  let n = 0;
  const service = (code: string) =>
    JSON.stringify({
      method: 'Create',
      action: 'Create Package',
      apiVersion: 'v2',
      service: {
        code, name: 'Load', serviceType: 'Sale', chargingType: 'Postpaid', postType: 'Post Subscription', billingCycle: 1, dueDateOffset: 14,
        meteredInputs: [{ code: 'M', label: 'Meter', unit: 'm3', decimals: 0 }],
        components: [{ code: 'W', name: 'Water', model: 'graduated', input: 'M', tiers: [{ upTo: 10, rate: '1.5' }, { upTo: null, rate: '2.25' }] }],
        batches: ['LOAD'],
      },
    });
  const call = async (route: string, body: unknown) => {
    const r = await fetch(`${base}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await r.json()) as { data: any };
    if (r.status !== 200) throw new Error(`${route}: ${JSON.stringify(json)}`);
    return { json, headers: r.headers };
  };
  const env = (method: string, action: string, data: unknown, schedule = false) => ({ method, action, apiVersion: 'v2', ...(schedule ? { operation: 'schedule' } : {}), data });

  // What the reads ask for exists before the first read: a template, accounts each with a
  // subscription, and a processed term with its bills.
  await fetch(`${base}/billing/services/make-service`, { method: 'POST', headers, body: service(`LOAD-${n++}`) });
  const S = 500;
  await call(
    '/billing/imports/make-import',
    env('Create', 'Create Import', {
      kind: 'accounts',
      rows: Array.from({ length: S }, (_, i) => ({ accountNumber: `L-${i}`, name: `Load ${i}`, serviceCode: 'LOAD-0', batchCode: 'LOAD', startDate: '01/01/2026', openingReadings: { M: 0 } })),
    }),
  );
  const subs: number[] = (await call('/billing/subscriptions/get-subscriptions', env('Retrieve', 'Retrieve Subscriptions', { batchCode: 'LOAD', limit: 1000 }))).json.data.subscriptions.map(
    (x: { subscriptionID: number }) => x.subscriptionID,
  );
  await call('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: subs.map((id, i) => ({ subscriptionID: id, inputCode: 'M', readingDate: '31/01/2026', value: String(10 + (i % 30)) })) }));
  const made = await call('/billing/terms/make-term', env('Create', 'Create Bill Term', { serviceCode: 'LOAD-0', batchCode: 'LOAD', billingPeriodID: 202601, startDate: '01/01/2026', endDate: '31/01/2026' }, true));
  const termID = Number(made.headers.get('x-billrun-term-id'));
  await call('/billing/terms/process-term', env('Update', 'Process Term', { termID }, true));
  for (let i = 0; ; i++) {
    const t = (await call('/billing/terms/get-terms', env('Retrieve', 'Retrieve Terms', { termID }, true))).json.data.terms[0];
    if (t.status === 'Processed') break;
    if (i > 600) throw new Error(`term ${termID} is ${t.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  // Writes that must each be new: an account number, a payment reference, a reading a day
  // later than the last of its meter (the value rises with the day, so any order of arrival is valid).
  let accounts = 0;
  let payments = 0;
  let readings = 0;
  const day = (k: number) => new Date(Date.UTC(2026, 1, 1) + k * 86_400_000).toISOString().slice(0, 10).split('-').reverse().join('/');
  const post = (route: string, body: unknown) => ({ method: 'POST' as const, path: route, headers, body: JSON.stringify(body) });
  const mix = (duration: number) => autocannon({
    url: base,
    duration,
    connections,
    requests: [
      post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'LOAD-0' }),
      { method: 'POST', path: '/billing/services/make-service', headers, setupRequest: (req) => ({ ...req, body: service(`LOAD-${n++}`) }) },
      { method: 'GET', path: '/sandbox/plants?limit=20', headers: { authorization: `Bearer ${token}` } },
      { method: 'POST', path: '/sandbox/plants', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'fern', tag: 'load' }) },
      {
        ...post('/billing/accounts/make-account', null),
        setupRequest: (req) => ({ ...req, body: JSON.stringify(env('Create', 'Create Account', { accountNumber: `N-${accounts++}`, name: 'New customer', phone: '+254 700 000000' })) }),
      },
      post('/billing/accounts/get-accounts', env('Retrieve', 'Retrieve Accounts', { batchCode: 'LOAD', limit: 20 })),
      { ...post('/billing/accounts/get-account', null), setupRequest: (req) => ({ ...req, body: JSON.stringify(env('Retrieve', 'Retrieve Account', { accountNumber: `L-${accounts % S}` })) }) },
      post('/billing/subscriptions/get-subscriptions', env('Retrieve', 'Retrieve Subscriptions', { batchCode: 'LOAD', limit: 20 })),
      {
        ...post('/billing/readings/capture-readings', null),
        setupRequest: (req) => {
          const k = readings++;
          const round = Math.floor(k / subs.length);
          return { ...req, body: JSON.stringify(env('Create', 'Capture Readings', { readings: [{ subscriptionID: subs[k % subs.length], inputCode: 'M', readingDate: day(round), value: String(100 + round) }] })) };
        },
      },
      { ...post('/billing/readings/get-readings', null), setupRequest: (req) => ({ ...req, body: JSON.stringify(env('Retrieve', 'Retrieve Readings', { subscriptionID: subs[readings % subs.length] })) }) },
      post('/billing/terms/get-terms', env('Retrieve', 'Retrieve Terms', { termID }, true)),
      post('/billing/bills/get-bills', env('Retrieve', 'Retrieve Bills', { termID, limit: 20 })),
      {
        ...post('/billing/payments/make-payment', null),
        setupRequest: (req) => {
          const k = payments++;
          return { ...req, body: JSON.stringify(env('Create', 'Create Payment', { accountNumber: `L-${k % S}`, amount: '1.50', reference: `P-${k}`, channel: 'bank' })) };
        },
      },
      { ...post('/billing/payments/get-payments', null), setupRequest: (req) => ({ ...req, body: JSON.stringify(env('Retrieve', 'Retrieve Payments', { accountNumber: `L-${payments % S}`, limit: 20 })) }) },
    ],
  });
  // The same mix to warm up (code compiled, pools and caches filled), then memory is
  // measured from that settled start over the run itself.
  const warm = await mix(Math.max(5, Math.min(20, Math.round(seconds / 6))));
  if (warm.errors + warm.timeouts + warm.non2xx > 0) console.log(`  warm-up         ${warm.errors} errors, ${warm.timeouts} timeouts, ${warm.non2xx} non-2xx`);
  const rssStart = rssMiB();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB()), 1000);
  const result = await mix(seconds);
  clearInterval(sampler);
  const rssEnd = rssMiB();
  const non2xx = result.non2xx;
  const lat = result.latency;
  console.log(
    `load: ${seconds} s, ${connections} connections, mixed reads and writes (templates, plants, accounts, subscriptions, readings, terms, bills, payments: 14 operations in turn)`,
  );
  console.log(`  writes (all)    ${accounts} accounts, ${readings} readings, ${payments} payments, ${n - 1} templates`);
  console.log(`  requests        ${result.requests.total} (${result.requests.average.toFixed(0)}/s average)`);
  console.log(`  errors          ${result.errors} connection errors, ${result.timeouts} timeouts, ${non2xx} non-2xx answers`);
  console.log(`  latency ms      p50 ${lat.p50}  p90 ${lat.p90}  p99 ${lat.p99}  max ${lat.max}`);
  const peak = Math.max(...samples.filter(Number.isFinite));
  console.log(`  server RSS MiB  start ${rssStart.toFixed(0)}  end ${rssEnd.toFixed(0)}  peak ${peak.toFixed(0)}  growth ${(rssEnd - rssStart).toFixed(0)} (${((rssEnd / rssStart - 1) * 100).toFixed(0)}%)`);
  // The bound we hold the server to: the heap may settle, not climb without end.
  const bound = 1.5;
  console.log(`  memory bound    end/start ${(rssEnd / rssStart).toFixed(2)} (bound ${bound}): ${rssEnd / rssStart <= bound ? 'within' : 'EXCEEDED'}`);
  console.log(`  result          ${result.errors + result.timeouts + non2xx + warm.errors + warm.timeouts + warm.non2xx === 0 ? 'no errors' : 'ERRORS'}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
}
