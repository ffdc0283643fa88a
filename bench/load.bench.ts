// The API under sustained mixed load from a second process on loopback: a server
// process on the embedded PostgreSQL, and autocannon here driving reads and writes.
// Prints requests, errors, latency percentiles and the server's memory over time.
// Flags: --load-seconds N (default 120), --connections N (default 20).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
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
    BILLRUN_EMBEDDED_PG_PORT: '54381',
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

  // Warm up, then measure the server's memory from a settled start.
  await new Promise<void>((resolve) => autocannon({ url: `${base}/healthz`, duration: 3, connections: 4 }, () => resolve()));
  const rssStart = rssMiB();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB()), 1000);

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
  // The template every read asks for exists before the first read.
  await fetch(`${base}/billing/services/make-service`, { method: 'POST', headers, body: service(`LOAD-${n++}`) });
  const result = await autocannon({
    url: base,
    duration: seconds,
    connections,
    requests: [
      { method: 'POST', path: '/billing/services/get-services', headers, body: JSON.stringify({ method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'LOAD-0' }) },
      { method: 'POST', path: '/billing/services/make-service', headers, setupRequest: (req) => ({ ...req, body: service(`LOAD-${n++}`) }) },
      { method: 'GET', path: '/sandbox/plants?limit=20', headers: { authorization: `Bearer ${token}` } },
      { method: 'POST', path: '/sandbox/plants', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'fern', tag: 'load' }) },
    ],
  });
  clearInterval(sampler);
  const rssEnd = rssMiB();
  const non2xx = result.non2xx;
  const lat = result.latency;
  console.log(`load: ${seconds} s, ${connections} connections, mixed reads and writes (list templates, create template, list plants, create plant)`);
  console.log(`  requests        ${result.requests.total} (${result.requests.average.toFixed(0)}/s average)`);
  console.log(`  errors          ${result.errors} connection errors, ${result.timeouts} timeouts, ${non2xx} non-2xx answers`);
  console.log(`  latency ms      p50 ${lat.p50}  p90 ${lat.p90}  p99 ${lat.p99}  max ${lat.max}`);
  const peak = Math.max(...samples.filter(Number.isFinite));
  console.log(`  server RSS MiB  start ${rssStart.toFixed(0)}  end ${rssEnd.toFixed(0)}  peak ${peak.toFixed(0)}  growth ${(rssEnd - rssStart).toFixed(0)} (${((rssEnd / rssStart - 1) * 100).toFixed(0)}%)`);
  // The bound we hold the server to: the heap may settle, not climb without end.
  const bound = 1.5;
  console.log(`  memory bound    end/start ${(rssEnd / rssStart).toFixed(2)} (bound ${bound}): ${rssEnd / rssStart <= bound ? 'within' : 'EXCEEDED'}`);
  console.log(`  result          ${result.errors + result.timeouts + non2xx === 0 ? 'no errors' : 'ERRORS'}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
}
