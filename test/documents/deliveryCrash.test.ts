import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { closeMailers } from '../../src/delivery/mailer.ts';
import { makeTemplate, step, subscriptions } from '../terms/fixtures.ts';
import { docEnv, eventually, processedTerm, startSmtp } from './support.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('a worker killed mid-delivery', () => {
  let h: Harness;
  let child: ChildProcess | undefined;
  let worker: Runner | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let smtpUrl = '';
  before(async () => {
    smtp = await startSmtp();
    smtpUrl = smtp.url;
    h = await startHarness({ smtpUrl, workerStaleSeconds: 2 });
    await makeTemplate(h);
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await worker?.stop();
    closeMailers();
    await smtp.close();
    await h.close();
  });

  test('kill -9 while the server has the message: the next worker finishes it, each bill once', async () => {
    const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]] });
    await h.db.query(`UPDATE account SET email = 'k' || account_id || '@example.test', delivery_preference = 'email' WHERE account_id = ANY($1::bigint[])`, [subs.map((s) => s.accountId)]);
    child = spawn(process.execPath, [path.join(root, 'src/main.ts'), 'worker'], {
      env: { ...process.env, DATABASE_URL: h.dbUrl, LOG_LEVEL: 'silent', SMTP_URL: smtpUrl, WORKER_CONCURRENCY: '4', BILLRUN_WORKER_STALE_SECONDS: '2' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const termID = await processedTerm(h, subs);
    smtp.state.stall = true;
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 200);
    await eventually(async () => (smtp.state.stalled >= 1 ? true : undefined), 'a message held by the server');
    child.kill('SIGKILL');
    await new Promise((r) => (child!.exitCode !== null || child!.signalCode !== null ? r(null) : child!.once('exit', r)));
    const inDoubt = (await h.db.query(`SELECT count(*)::int AS n FROM delivery WHERE term_id = $1 AND status = 'sending'`, [termID])).rows[0].n;
    assert.ok(inDoubt >= 1, 'a delivery was mid-send when the worker died');
    smtp.state.stall = false;
    worker = await startWorker(h.db, h.config, 2);
    const list = await eventually(async () => {
      const r = await h.post('/billing/deliveries/get-deliveries', docEnv('Retrieve', 'Retrieve Deliveries', { termID }));
      const l = r.body.data.deliveries as any[];
      return l.length === 3 && l.every((d) => d.status === 'sent') ? l : undefined;
    }, 'every delivery sent after the crash', 90_000);
    for (const d of list) assert.equal(smtp.received.filter((m) => m.toString().includes(d.messageID)).length, 1, `${d.messageID} accepted once`);
    assert.equal(smtp.received.length, 3);
  });
});
