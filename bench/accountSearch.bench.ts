// The console's account search over 1,000,000 accounts (--accounts N to change), through
// HTTP as the console calls it: get-accounts with `search` (an account number's start or
// a name's part), 50 a page, its total capped at 10,000. Each case runs serially after a
// warm-up; prints the median and p95 of the whole HTTP answer. Then the same cases
// without migration 015's indexes, in the same run, for the ratio. The goal: every case
// under 200 ms at a million accounts.
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createApp, createUser } from '../src/auth/store.ts';
import { hashPassword } from '../src/auth/password.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { arg } from './args.ts';

const N = arg('--accounts', 1_000_000);
const RUNS = arg('--runs', 30);
const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stdout.write(s + '\n');

const FIRST = ['Wanjiru', 'Otieno', 'Achieng', 'Kamau', 'Njeri', 'Mwangi', 'Akinyi', 'Kiprono', 'Chebet', 'Omondi', 'Wambui', 'Mutua', 'Nyambura', 'Kiptoo', 'Atieno', 'Odhiambo', 'Wairimu', 'Kibet', 'Muthoni', 'Ochieng'];
const LAST = ['Kamau', 'Otieno', 'Mwangi', 'Ouma', 'Kariuki', 'Njoroge', 'Kimani', 'Onyango', 'Mutiso', 'Wekesa', 'Barasa', 'Kiplagat', 'Maina', 'Gitau', 'Owino', 'Macharia', 'Langat', 'Korir', 'Wafula', 'Nyaga', 'Juma', 'Hassan', 'Ali', 'Mohamed', 'Rotich', 'Cheruiyot', 'Kosgei', 'Ndungu', 'Kamande', 'Waweru'];

const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-search'), port: 25374, database: 'postgres' });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS bench_search WITH (FORCE)');
await admin.query('CREATE DATABASE bench_search');
await admin.end();
const url = server.url.replace(/\/postgres$/, '/bench_search');
await migrate(url);
const db = createPool(url, 8);
const appCode = await createApp(db, 'Bench', 'UTC', 'USD', 2);
await createUser(db, appCode, 'bench@billrun.test', await hashPassword('bench-password'), 'viewer');

let t = performance.now();
// Names: a first and a last name from the lists, and a house number, so a surname matches
// about 1 in 30, a full name about 1 in 600 and a name with its number about one account.
await db.query(
  `INSERT INTO account (app_code, account_number, name, email, created_by, modified_by)
   SELECT $1, 'ACC-' || lpad(g::text, 7, '0'),
          ($2::text[])[1 + g % array_length($2::text[], 1)] || ' ' || ($3::text[])[1 + (g / 7) % array_length($3::text[], 1)] || ' ' || (g % 9973),
          'c' || g || '@example.com', 'bench', 'bench'
     FROM generate_series(1, $4) g`,
  [appCode, FIRST, LAST, N],
);
await db.query('VACUUM ANALYZE account');
say(`${N.toLocaleString()} accounts written in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const login = (await (
  await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'Create', action: 'Login', apiVersion: 'v2', data: { email: 'bench@billrun.test', password: 'bench-password' } }),
  })
).json()) as { data: { accessToken: string } };
const token = login.data.accessToken;

const CASES: [string, Record<string, unknown>][] = [
  ['list, no search: exact total of all (the console does not ask it)', {}],
  ['number prefix, 1 match (ACC-0512345)', { search: 'ACC-0512345' }],
  ['number prefix, 1,000 matches (ACC-0512)', { search: 'ACC-0512' }],
  ['number prefix, 100,000 matches (ACC-05)', { search: 'ACC-05' }],
  ['surname, ~1 in 30 (kamau)', { search: 'kamau' }],
  ['full name, ~1 in 600 (wanjiru kamau)', { search: 'wanjiru kamau' }],
  ['name and number, few (otieno mwangi 4242)', { search: 'Otieno Mwangi 4242' }],
  ['no match (zzyzx)', { search: 'zzyzx' }],
  ['surname, page 20 (offset 950)', { search: 'kamau', offset: 950 }],
];

type Page = { data: { paging: { total: number }; accounts: unknown[] } };

/** One get-accounts through HTTP, timed from the request to the parsed answer. */
async function searchOnce(label: string, data: Record<string, unknown>): Promise<{ ms: number; total: number; rows: number }> {
  const s = performance.now();
  const r = await fetch(`${base}/billing/accounts/get-accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: token },
    body: JSON.stringify({ method: 'Retrieve', action: 'Retrieve Accounts', apiVersion: 'v2', data: { limit: 50, ...data } }),
  });
  const body = (await r.json()) as Page;
  if (r.status !== 200) throw new Error(`${label}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - s, total: body.data.paging.total, rows: body.data.accounts.length };
}

async function measure(label: string, data: Record<string, unknown>, runs = RUNS, warmUp = 3): Promise<{ median: number; p95: number; total: number; rows: number }> {
  for (let i = 0; i < warmUp; i++) await searchOnce(label, data);
  const times: number[] = [];
  let last = { ms: 0, total: 0, rows: 0 };
  for (let i = 0; i < runs; i++) {
    last = await searchOnce(label, data);
    times.push(last.ms);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!, total: last.total, rows: last.rows };
}

const withIndexes = new Map<string, number>();
say(`\nget-accounts over HTTP, ${RUNS} runs each after 3 warm-up, 50 a page (ms):`);
say('case | median | p95 | total | rows');
for (const [label, data] of CASES) {
  const m = await measure(label, data);
  withIndexes.set(label, m.median);
  say(`${label} | ${m.median.toFixed(1)} | ${m.p95.toFixed(1)} | ${m.total.toLocaleString()} | ${m.rows}`);
}
const worst = Math.max(...withIndexes.values());
say(`worst median with the indexes: ${worst.toFixed(1)} ms (goal < 200 ms): ${worst < 200 ? 'met' : 'NOT met'}`);

t = performance.now();
await db.query('DROP INDEX account_number_prefix_idx');
// Migration 104 replaced 015's trigram index with one over the folded name.
await db.query('DROP INDEX account_name_folded_trgm_idx');
await db.query('ANALYZE account');
say(`\nthe same without the search indexes (migration 015's prefix index, 104's folded trigrams) (ms), fewer runs:`);
say('case | median | ratio to indexed');
for (const [label, data] of CASES) {
  // A sequential scan of a million names takes long enough that five runs tell.
  const m = (await measure(label, data, 5, 1)).median;
  say(`${label} | ${m.toFixed(1)} | ${(m / withIndexes.get(label)!).toFixed(1)}x`);
}

await app.close();
await db.end();
await server.stop();
