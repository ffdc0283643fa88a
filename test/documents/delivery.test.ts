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

  // A credit note reaches the customer by e-mail (docs/corrections.md, "The credit note to the customer").
  const cancel = (billID: number, rebill: boolean) =>
    h.post('/billing/bills/cancel-bill', docEnv('Update', 'Cancel Bill', { billID, reason: 'meter misread', rebill }), h.tokens.biller);
  const sentOne = (filter: Record<string, unknown>, what: string) =>
    eventually(async () => {
      const [d, more] = await deliveries(h, filter);
      return d?.status === 'sent' && more === undefined ? d : undefined;
    }, what);
  const billsSent = (termID: number) =>
    eventually(async () => {
      const l = await deliveries(h, { termID });
      return l.length === 2 && l.every((d) => d.status === 'sent') ? l : undefined;
    }, 'the bills sent');
  const noteDocument = async (creditNoteID: number) => {
    const f = await fetchFile(h, '/billing/documents/get-credit-note-document', docEnv('Retrieve', 'Retrieve Credit Note Document', { creditNoteID }));
    assert.equal(f.status, 200);
    return f.bytes;
  };

  test('a bill cancelled without a rebill: the credit note goes in an e-mail of its own, once; the print-only account gets none', async () => {
    const { termID } = await postedTermWithEmails(h, 'N', 'Z1');
    const first = await billsSent(termID);
    const bills = (await h.post('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { termID }))).body.data.bills as any[];
    const printed = bills.find((b) => !first.some((d) => d.billID === b.billID));
    for (const b of [bills.find((x) => x.billID === first[0].billID), printed]) {
      const r = await cancel(b.billID, false);
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const notes = (await h.post('/billing/bills/get-credit-notes', docEnv('Retrieve', 'Retrieve Credit Notes', { termID }))).body.data.creditNotes as any[];
    const note = notes.find((n) => n.billID === first[0].billID);
    const d = await sentOne({ creditNoteID: note.creditNoteID }, "the credit note's e-mail");
    assert.equal(d.document, 'credit note');
    assert.equal(d.billID, first[0].billID, 'the cancelled bill');
    assert.equal(d.recipient, first[0].recipient);
    assert.match(d.messageID, /^<credit-note-/);
    const raw = smtp.received.filter((m) => m.toString().includes(d.messageID));
    assert.equal(raw.length, 1);
    const mail = await simpleParser(raw[0]!);
    const bill = bills.find((b) => b.billID === d.billID);
    assert.equal(mail.subject, `Your App A credit note ${note.creditNoteNumber}: bill ${bill.billNumber} cancelled`);
    assert.match(mail.text ?? '', new RegExp(`credit note ${note.creditNoteNumber} of \\d\\d/\\d\\d/\\d{4} \\(account [^)]+\\) cancels your bill ${bill.billNumber} of ${bill.billDate}`));
    assert.match(mail.text ?? '', /Reason: meter misread/);
    assert.match(mail.text ?? '', new RegExp(`The bill's total, ${bill.total} KES, is taken off your account`));
    assert.equal(mail.attachments.length, 1);
    assert.equal(mail.attachments[0]!.filename, `credit-note-${note.creditNoteNumber}.pdf`);
    assert.ok(mail.attachments[0]!.content.equals(await noteDocument(note.creditNoteID)), 'the attachment is the stored credit note');
    // An account's e-mails, both kinds, by accountID (an officer answering a customer's call).
    const byAccount = await deliveries(h, { accountID: d.accountID });
    assert.deepEqual(byAccount.map((x) => x.document).sort(), ['bill', 'credit note']);
    // The account that takes paper: no e-mail of its credit note.
    const other = notes.find((n) => n.billID === printed.billID);
    assert.deepEqual(await deliveries(h, { creditNoteID: other.creditNoteID }), []);
    // Resent on request: a new delivery of the same note, with its own Message-ID.
    const resend = await h.post('/billing/deliveries/resend-delivery', docEnv('Update', 'Resend Delivery', { deliveryID: d.deliveryID }));
    assert.equal(resend.status, 200, JSON.stringify(resend.body));
    const again = await eventually(async () => {
      const [x] = await deliveries(h, { deliveryID: Number(resend.headers.get('x-billrun-delivery-id')) });
      return x?.status === 'sent' ? x : undefined;
    }, 'the resend');
    assert.equal(again.document, 'credit note');
    assert.equal(again.creditNoteID, note.creditNoteID);
    assert.equal(again.resendOf, d.deliveryID);
    const resent = await simpleParser(smtp.received.find((m) => m.toString().includes(again.messageID))!);
    assert.equal(resent.subject, mail.subject);
  });

  test('a bill cancelled and rebilled: one e-mail, the rebill with the credit note attached beside it', async () => {
    const { termID } = await postedTermWithEmails(h, 'Q', 'Z2');
    const first = await billsSent(termID);
    const before = smtp.received.length;
    const r = await cancel(first[1].billID, true);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [note] = (await h.post('/billing/bills/get-credit-notes', docEnv('Retrieve', 'Retrieve Credit Notes', { billID: first[1].billID }))).body.data.creditNotes as any[];
    const d = await sentOne({ billID: note.rebillID }, "the rebill's e-mail");
    assert.equal(d.document, 'bill');
    assert.equal(d.creditNoteID, note.creditNoteID);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(smtp.received.length - before, 1, 'one message for the correction');
    assert.deepEqual((await deliveries(h, { creditNoteID: note.creditNoteID })).map((x) => x.deliveryID), [d.deliveryID]);
    const mail = await simpleParser(smtp.received.find((m) => m.toString().includes(d.messageID))!);
    assert.match(mail.text ?? '', new RegExp(`which credit note ${note.creditNoteNumber} cancelled \\(the credit note is attached too\\)`));
    const [rebill] = (await h.post('/billing/bills/get-bills', docEnv('Retrieve', 'Retrieve Bills', { billID: note.rebillID }))).body.data.bills as any[];
    assert.deepEqual(mail.attachments.map((a) => a.filename), [`bill-${rebill.billNumber}.pdf`, `credit-note-${note.creditNoteNumber}.pdf`]);
    assert.ok(mail.attachments[1]!.content.equals(await noteDocument(note.creditNoteID)));
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
