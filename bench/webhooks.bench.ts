// Events and webhooks at volume: two processed terms of N bills each, then
//   1. posting the first with no endpoint subscribed to bill.posted (its term.posted and N
//      bill.posted event rows: what every posting pays) and the second with one (the same
//      events and their N + 1 messages, set-based in the posting's transaction): seconds and
//      the ratio; the first posting's event writes timed alone (their share of the posting)
//      and the bytes an event takes stored;
//   2. delivery of the second term's N + 1 events to a local receiver (node:http, in a
//      child process so it does not share this one's event loop) by the worker's dispatch
//      job, events per second; the receiver refuses (500) the first attempt of one message
//      in `--refuse` (default 20) so retries are part of the figure; then every webhook-id
//      is counted: none lost, none delivered (answered 200) twice.
// Flags: --n=N bills per term (default 2,000; the figure is for 100,000),
// --refuse=K, --workers=W worker concurrency (default 2).
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, inTransaction } from '../src/db/pool.ts';
import { createApp } from '../src/auth/store.ts';
import { loadConfig } from '../src/config.ts';
import { normalizeDefinition } from '../src/templates/definition.ts';
import { lockTerm } from '../src/billRun/termStore.ts';
import { postLocked } from '../src/billRun/postLocked.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { newSecret } from '../src/webhooks/signing.ts';
import { closeWebhookAgents } from '../src/webhooks/dispatch.ts';
import { tariff } from '../test/terms/fixtures.ts';
import { recordTermEvent } from '../src/billRun/termEvents.ts';
import { recordBillEvents } from '../src/events/record.ts';

class Rollback extends Error {}
import { arg } from './args.ts';

// The receiver, in a child process: answers 200 (or 500 to the first attempt of every
// K-th webhook-id), and reports every id it answered 200 when asked.
if (process.argv[2] === '--receiver') {
  const refuseEvery = Number(process.argv[3]);
  const seen = new Map<string, number>();
  const ok = new Map<string, number>();
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const tries = (seen.get(id) ?? 0) + 1;
      seen.set(id, tries);
      const num = Number(id.slice(4));
      if (refuseEvery > 0 && tries === 1 && num % refuseEvery === 0) {
        res.writeHead(500).end('try later');
        return;
      }
      ok.set(id, (ok.get(id) ?? 0) + 1);
      n++;
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 10_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', (m: string) => {
    if (m === 'count') process.send!({ n });
    if (m === 'report') process.send!({ ok: [...ok.entries()], refused: [...seen.values()].filter((t) => t > 1).length });
    if (m === 'stop') server.close(() => process.exit(0));
  });
} else {
  await main();
}

async function main() {
  const N = arg('--n', 2000);
  const REFUSE = arg('--refuse', 20);
  const WORKERS = arg('--workers', 2);
  const say = (s: string) => process.stdout.write(s + '\n');
  const root = path.resolve(import.meta.dirname, '..');
  const secs = (ms: number) => (ms / 1000).toFixed(2);

  const server = await startEmbedded({ dataDir: path.join(root, '.data/bench-webhooks'), port: 25377, database: 'postgres' });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS billrun_bench14 WITH (FORCE)');
  await admin.query('CREATE DATABASE billrun_bench14');
  await admin.end();
  const url = server.url.replace(/\/postgres$/, '/billrun_bench14');
  await migrate(url);
  const db = createPool(url, 10);

  const receiver = fork(import.meta.filename, ['--receiver', String(REFUSE)], { execArgv: [] });
  const ask = <T>(m: string) => new Promise<T>((resolve) => receiver.once('message', (x) => resolve(x as T)) && receiver.send(m));
  const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', (x) => resolve(x as { port: number })));

  try {
    const appCode = await createApp(db, 'Bench Water', 'UTC', 'KES', 2);
    let t = Date.now();
    const definition = normalizeDefinition(tariff('WATER') as never);
    const svc = await db.query(`INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, 'WATER', 'b', 'b') RETURNING service_id`, [appCode]);
    const ver = await db.query(`INSERT INTO service_version (service_id, version, definition, created_by) VALUES ($1, 1, $2, 'b') RETURNING service_version_id`, [svc.rows[0].service_id, definition]);
    const terms: string[] = [];
    for (const [code, period] of [['B1', 202610], ['B2', 202611]] as const) {
      const batch = await db.query(`INSERT INTO batch (app_code, batch_code, label, created_by) VALUES ($1, $2, $2, 'b') RETURNING batch_id`, [appCode, code]);
      const term = await db.query(
        `INSERT INTO term (app_code, service_id, service_version_id, batch_id, billing_period_id, label, start_date, end_date, due_date, post_type, status, created_by, modified_by)
         VALUES ($1, $2, $3, $4, $5, 'T', '2026-11-01', '2026-11-30', '2026-12-14', 'Post Subscription', 'Processed', 'b', 'b') RETURNING term_id`,
        [appCode, svc.rows[0].service_id, ver.rows[0].service_version_id, batch.rows[0].batch_id, period],
      );
      terms.push(term.rows[0].term_id);
      await db.query(
        `WITH a AS (INSERT INTO account (app_code, account_number, name, created_by, modified_by)
                    SELECT $1, $2 || '-' || g, 'Customer ' || g, 'b', 'b' FROM generate_series(1, $3) g RETURNING account_id),
              s AS (INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
                    SELECT $1, account_id, $4, $5, '2020-01-01', 'b', 'b' FROM a RETURNING subscription_id, account_id)
         INSERT INTO bill (app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end,
                           charges, tax, total, balance_brought_forward, total_due, lines, status)
         SELECT $1, $6, s.subscription_id, s.account_id, $7 + row_number() OVER (ORDER BY s.subscription_id), '2026-11-30', '2026-12-14', '2026-11-01', '2026-11-30',
                1855, 296.80, 2151.80, 0, 2151.80, '[]'::json, 'draft' FROM s`,
        [appCode, code, N, svc.rows[0].service_id, batch.rows[0].batch_id, term.rows[0].term_id, terms.length * N],
      );
      await db.query(`UPDATE term SET bill_count = $2::int, total_due = 2151.80 * $2::int WHERE term_id = $1`, [term.rows[0].term_id, N]);
    }
    await db.query('ANALYZE');
    say(`setup: 2 processed terms of ${N} bills (${secs(Date.now() - t)} s)`);

    const post = async (termId: string) => {
      const t0 = performance.now();
      await inTransaction(db, async (tx) => postLocked(tx, (await lockTerm(tx, appCode, termId))!, 'bench'));
      return performance.now() - t0;
    };
    // 1. Posting without, then with, a per-bill subscriber. Per-bill events are written either way
    // (product.md: every bill posted is an event, replayable); a subscriber adds its messages.
    const size = async () => Number((await db.query(`SELECT pg_total_relation_size('event') AS n`)).rows[0].n);
    const sizeBefore = await size();
    const without = await post(terms[0]!);
    const eventsWithout = Number((await db.query(`SELECT count(*) FROM event`)).rows[0].count);
    const eventBytes = (await size()) - sizeBefore;
    // What the events cost that posting: its term.posted row and the bills' events, timed alone (rolled back).
    const eventCost: number[] = [];
    for (let i = 0; i < 5; i++) {
      await inTransaction(db, async (tx) => {
        const term = (await lockTerm(tx, appCode, terms[0]!))!;
        const t0 = performance.now();
        await recordTermEvent(tx, term, 'term.posted', 'Posted', { billsPosted: N });
        await recordBillEvents(tx, appCode, term.term_id, 'bill.posted');
        eventCost.push(performance.now() - t0);
        throw new Rollback();
      }).catch((e) => {
        if (!(e instanceof Rollback)) throw e;
      });
    }
    const median = eventCost.sort((a, b) => a - b)[2]!;
    await db.query(
      `INSERT INTO webhook_endpoint (app_code, url, event_types, secret, created_by, modified_by) VALUES ($1, $2, '{term.posted,bill.posted}', $3, 'b', 'b')`,
      [appCode, `http://127.0.0.1:${port}/hook`, newSecret()],
    );
    const withSub = await post(terms[1]!);
    const messages = Number((await db.query(`SELECT count(*) FROM webhook_message`)).rows[0].count);
    say(`post ${N} bills, no subscriber: ${secs(without)} s, ${eventsWithout} event rows written with it; its event writes alone (rolled back): ${median.toFixed(0)} ms = ${((median / without) * 100).toFixed(1)}% of the posting; ${Math.round(eventBytes / eventsWithout)} bytes stored an event (table and indexes)`);
    say(`post ${N} bills, a bill.posted subscriber: ${secs(withSub)} s, ${messages} messages written beside the events = x${(withSub / without).toFixed(2)} of the posting without`);

    // 2. Delivery by the worker's dispatch job.
    const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), databaseUrl: url, webhooksAllowPrivate: true, webhookRetryBaseMs: 200 };
    t = Date.now();
    const worker = await startWorker(db, config, WORKERS);
    for (;;) {
      const left = Number((await db.query(`SELECT count(*) FROM webhook_message WHERE status = 'pending'`)).rows[0].count);
      if (left === 0) break;
      if (Date.now() - t > 600_000) throw new Error(`${left} messages still pending after 10 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const ms = Date.now() - t;
    await worker.stop();
    await closeWebhookAgents();
    const report = await ask<{ ok: [string, number][]; refused: number }>('report');
    const expected = (await db.query<{ event_id: string }>(`SELECT event_id FROM webhook_message`)).rows.map((r) => `evt_${r.event_id}`);
    const got = new Map(report.ok);
    const lost = expected.filter((id) => !got.has(id)).length;
    const twice = [...got.values()].filter((c) => c > 1).length;
    const attempts = Number((await db.query(`SELECT count(*) FROM webhook_attempt`)).rows[0].count);
    const failedMsgs = Number((await db.query(`SELECT count(*) FROM webhook_message WHERE status <> 'delivered'`)).rows[0].count);
    say(
      `delivery: ${messages} events in ${secs(ms)} s = ${((messages / ms) * 1000).toFixed(0)} events/s (${attempts} attempts, ${report.refused} refused once and retried), ` +
        `${lost} lost, ${twice} delivered twice, ${failedMsgs} not delivered`,
    );
    if (lost > 0 || twice > 0 || failedMsgs > 0) process.exitCode = 1;
  } finally {
    receiver.send('stop');
    await db.end();
    await server.stop();
  }
}
