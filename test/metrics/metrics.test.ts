// GET /metrics: scraped while a bill run goes, its bills rise; the queue, the requests by
// route pattern, the pool and the chunks are there; a token, when set, is asked for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { jobLog } from '../../src/jobLog.ts';
import { makeTemplate, makeTerm, step, subscriptions, tariff, waitForStatus } from '../terms/fixtures.ts';

const TOKEN = 'metrics-token-0123456789';

/** The samples of a Prometheus text, as "name{labels}" → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?(?:\{.*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}
const sum = (s: Map<string, number>, prefix: string) => [...s].filter(([k]) => k === prefix || k.startsWith(`${prefix}{`)).reduce((a, [, v]) => a + v, 0);

describe('metrics', () => {
  let h: Harness;
  const serverLog: string[] = [];
  /** GET /metrics with this bearer token ('' sends none). */
  const scrape = async (token = TOKEN) => {
    const r = await fetch(`${h.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
  };
  const metrics = async () => {
    const r = await scrape();
    assert.equal(r.status, 200, r.text);
    return samples(r.text);
  };

  before(async () => {
    h = await startHarness({ billRunChunkSize: 1, metricsToken: TOKEN, logLevel: 'info' }, undefined, { logStream: { write: (line) => void serverLog.push(line) } });
    await makeTemplate(h, tariff());
  });
  after(() => h.close());

  test('with BILLRUN_METRICS_TOKEN set, /metrics asks for it; with it, the Prometheus text', async () => {
    assert.equal((await scrape('')).status, 401);
    assert.equal((await scrape('wrong-token-0123456789')).status, 401);
    const ok = await scrape();
    assert.equal(ok.status, 200);
    assert.match(ok.type ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(ok.text, /# TYPE billrun_http_request_duration_seconds histogram/);
  });

  test('scraped during a bill run, the run’s bills rise to the whole roster; the queue and the chunks show', async () => {
    const n = 12;
    await subscriptions(h, { n, batchCode: 'Z3', readings: [['2018-01-31', 10], ['2018-02-28', 25]] });
    const termID = await makeTerm(h, { batchCode: 'Z3', billingPeriodID: 201802, startDate: '01/02/2018', endDate: '28/02/2018' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);

    // No worker yet: the run waits on the queue, ready and late.
    const waiting = await metrics();
    assert.ok(sum(waiting, 'billrun_queue_jobs') >= 1, 'the run’s job is on the queue');
    assert.ok([...waiting].some(([k, v]) => k.startsWith('billrun_queue_jobs{') && k.includes('state="ready"') && v >= 1));
    assert.ok([...waiting].some(([k]) => k.startsWith('billrun_queue_lateness_seconds{')));
    assert.equal(sum(waiting, 'billrun_bill_run_bills'), 0);

    const worker = await startWorker(h.db, { ...h.config, logLevel: 'silent' }, 1);
    const seen: number[] = [];
    try {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const s = await metrics();
        const bills = sum(s, 'billrun_bill_run_bills');
        seen.push(bills);
        if (bills >= n) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await waitForStatus(h, termID, ['Processed', 'Failed']);
    } finally {
      await worker.stop();
    }
    assert.equal(seen.at(-1), n, `bills seen: ${seen.join(',')}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `bills never go down: ${seen.join(',')}`);
    assert.ok(seen.some((b) => b > 0 && b < n), `a scrape caught the run part-way: ${seen.join(',')}`);

    const done = await metrics();
    assert.equal(done.get('billrun_bill_run_bills{term_status="Processed"}'), n);
    assert.equal(done.get('billrun_terms{status="Processed"}'), 1);
    assert.equal(done.get('billrun_bill_run_chunks_pending'), 0);
    // The chunks ran in this process (the test's worker): their times and bills are here too.
    assert.ok((done.get('billrun_bill_run_chunk_duration_seconds_count') ?? 0) >= n);
    assert.ok((done.get('billrun_bill_run_chunk_bills_total') ?? 0) >= n);
  });

  test('requests are counted by route pattern and status, never by raw URL; the pool is shown', async () => {
    const plant = await h.request('POST', '/sandbox/plants', { body: { name: 'Fern' }, token: `Bearer ${h.tokens.admin}` });
    const id = plant.body?.id ?? 'x';
    await h.request('GET', `/sandbox/plants/${id}`, { token: `Bearer ${h.tokens.admin}` });
    await h.request('GET', '/sandbox/plants/999999', { token: `Bearer ${h.tokens.admin}` });
    await h.request('GET', '/no/such/route');
    const s = await metrics();
    const keys = [...s.keys()];
    assert.ok(keys.some((k) => k.startsWith('billrun_http_requests_total{') && k.includes('route="/sandbox/plants/:id"') && k.includes('status="404"')), keys.filter((k) => k.includes('sandbox')).join('\n'));
    assert.ok(keys.some((k) => k.startsWith('billrun_http_requests_total{') && k.includes('route="/billing/terms/process-term"') && k.includes('status="200"')));
    assert.ok(keys.some((k) => k.startsWith('billrun_http_request_duration_seconds_bucket{') && k.includes('route="/billing/terms/make-term"')));
    assert.ok(!keys.some((k) => k.includes('999999')), 'no series names a raw URL');
    assert.ok(keys.some((k) => k.includes('route="(no route)"') && k.includes('status="404"')));
    for (const g of ['billrun_db_pool_in_use', 'billrun_db_pool_idle', 'billrun_db_pool_waiting']) assert.ok(s.has(g), g);
  });

  test('the log lines of a request about a term carry the term id and the request id', async () => {
    const termID = await makeTerm(h, { batchCode: 'Z4', billingPeriodID: 201803, startDate: '01/03/2018', endDate: '31/03/2018' });
    const r = await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID });
    assert.equal(r.status, 200);
    const requestId = r.headers.get('x-request-id');
    const lines = serverLog.map((l) => JSON.parse(l) as { reqId?: string; termId?: number; msg?: string });
    const done = lines.find((l) => l.reqId === requestId && l.msg === 'request completed');
    assert.ok(done, `no log line of request ${requestId}`);
    assert.equal(done.termId, termID);
  });

  test('a job’s log lines carry its ids', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, done) => void (lines.push(String(c)), done()) }));
    jobLog(log, { id: '42', task_identifier: 'term:chunk', attempts: 1 }, { termId: '7' }).info('bill-run chunk done');
    const line = JSON.parse(lines[0]!);
    assert.equal(line.jobId, '42');
    assert.equal(line.termId, '7');
    assert.equal(line.task, 'term:chunk');
  });
});
