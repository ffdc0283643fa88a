import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Runner } from 'graphile-worker';
import { startHarness, type Harness } from '../support/harness.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { closeMailers } from '../../src/delivery/mailer.ts';
import { makeTemplate, step, subscriptions } from '../terms/fixtures.ts';
import { docEnv, eventually, fetchFile, processedTerm, startSmtp } from './support.ts';

const deliveries = async (h: Harness, data: Record<string, unknown>) => {
  const r = await h.post('/billing/deliveries/get-deliveries', docEnv('Retrieve', 'Retrieve Deliveries', data));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.deliveries as any[];
};

async function postedTermWithEmails(h: Harness, prefix: string, batchCode: string) {
  const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]], prefix, batchCode });
  await h.db.query(`UPDATE account SET email = 'c' || account_id || '@example.test', delivery_preference = 'email' WHERE account_id = $1`, [subs[0]!.accountId]);
  await h.db.query(`UPDATE account SET email = 'b' || account_id || '@example.test', delivery_preference = 'both' WHERE account_id = $1`, [subs[1]!.accountId]);
  await h.db.query(`UPDATE account SET email = 'p' || account_id || '@example.test', delivery_preference = 'print' WHERE account_id = $1`, [subs[2]!.accountId]);
  const termID = await processedTerm(h, subs, { batchCode });
  const posted = await step(h, 'post-term', 'Post Term', { termID });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  return { termID, subs };
}

describe('delivery by e-mail through SMTP', () => {
  let h: Harness;
  let worker: Runner;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    smtp = await startSmtp();
    h = await startHarness({ smtpUrl: smtp.url, mailFrom: 'billing@water.test' });
    worker = await startWorker(h.db, h.config, 4);
    await makeTemplate(h);
  });
  after(async () => {
    await worker.stop();
    closeMailers();
    await smtp.close();
    await h.close();
  });

  test('posting sends one e-mail per bill for e-mail: subject, body, and the stored PDF attached', async () => {
    const { termID, subs } = await postedTermWithEmails(h, 'M', 'ZONE-A');
    const sent = await eventually(async () => {
      const list = await deliveries(h, { termID });
      return list.length === 2 && list.every((d) => d.status === 'sent') ? list : undefined;
    }, 'two sent deliveries');
    assert.deepEqual(sent.map((d) => d.recipient), [`c${subs[0]!.accountId}@example.test`, `b${subs[1]!.accountId}@example.test`]);
    assert.equal(smtp.received.length, 2);
    const bills = (await h.post('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID }))).body.data.bills;
    for (const d of sent) {
      const raw = smtp.received.find((m) => m.toString().includes(d.messageID));
      assert.ok(raw, `message ${d.messageID} received`);
      const mail = await simpleParser(raw);
      const bill = bills.find((b: any) => b.billID === d.billID);
      assert.equal(mail.subject, `Your App A bill ${bill.billNumber}: ${bill.totalDue} KES due ${bill.dueDate}`);
      assert.equal(mail.messageId, d.messageID);
      assert.equal(mail.from?.text, 'billing@water.test');
      assert.match(mail.text ?? '', new RegExp(`your bill ${bill.billNumber} for ${bill.periodStart} to ${bill.periodEnd}`));
      assert.match(mail.text ?? '', /Total due: 2151\.80 KES by 14\/12\/2026\./);
      assert.equal(mail.attachments.length, 1);
      assert.equal(mail.attachments[0]!.contentType, 'application/pdf');
      const stored = await eventually(async () => {
        const f = await fetchFile(h, '/billing/documents/get-bill-document', docEnv('Retrieve', 'Retrieve Bill Document', { billID: d.billID }));
        return f.status === 200 ? f.bytes : undefined;
      }, 'the stored document');
      assert.ok(mail.attachments[0]!.content.equals(stored), 'the attachment is the stored PDF');
    }
  });

  test('a server that refuses, then accepts: one message, the refusal recorded; a resend is a new delivery', async () => {
    const before = smtp.received.length;
    smtp.state.refuse = 1;
    const { termID } = await postedTermWithEmails(h, 'R', 'ZONE-B');
    const list = await eventually(async () => {
      const l = await deliveries(h, { termID });
      return l.length === 2 && l.every((d) => d.status === 'sent') ? l : undefined;
    }, 'both sent after a refusal');
    assert.equal(smtp.state.refused, 1);
    assert.equal(smtp.received.length - before, 2, 'one message per bill, none twice');
    const retried = list.find((d) => d.attempts === 2);
    assert.ok(retried, JSON.stringify(list));
    assert.equal(list.filter((d) => d.attempts === 1).length, 1);
    for (const d of list) assert.equal(smtp.received.filter((m) => m.toString().includes(d.messageID)).length, 1);

    const resend = await h.post('/billing/deliveries/resend-delivery', docEnv('Update', 'Resend Delivery', { deliveryID: list[0].deliveryID }));
    assert.equal(resend.status, 200, JSON.stringify(resend.body));
    const id = Number(resend.headers.get('x-billrun-delivery-id'));
    const again = await eventually(async () => {
      const [d] = await deliveries(h, { deliveryID: id });
      return d?.status === 'sent' ? d : undefined;
    }, 'the resend');
    assert.equal(again.resendOf, list[0].deliveryID);
    assert.notEqual(again.messageID, list[0].messageID);
    assert.equal(smtp.received.length - before, 3);
    // posting is not repeated, and a bill is queued once
    assert.equal((await step(h, 'post-term', 'Post Term', { termID })).status, 409);
  });
});

describe('delivery with no SMTP configured: .eml files under the mail folder', () => {
  let h: Harness;
  let worker: Runner;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billrun-mail-'));
    h = await startHarness({ smtpUrl: undefined, mailDir: dir });
    worker = await startWorker(h.db, h.config, 2);
    await makeTemplate(h);
  });
  after(async () => {
    await worker.stop();
    await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('each e-mail is one .eml file named by its Message-ID', async () => {
    const { termID } = await postedTermWithEmails(h, 'E', 'ZONE-A');
    const list = await eventually(async () => {
      const l = await deliveries(h, { termID });
      return l.length === 2 && l.every((d) => d.status === 'sent') ? l : undefined;
    }, 'two files');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml'));
    assert.equal(files.length, 2);
    for (const d of list) {
      assert.equal(d.transport, 'file');
      const file = files.find((f) => f === `${d.messageID.replace(/[<>]/g, '')}.eml`);
      assert.ok(file, `${d.messageID} in ${files}`);
      const mail = await simpleParser(fs.readFileSync(path.join(dir, file)));
      assert.match(mail.subject ?? '', /^Your App A bill \d+: 2151\.80 KES due 14\/12\/2026$/);
      assert.equal(mail.attachments[0]!.contentType, 'application/pdf');
    }
  });
});
