// What a mail program shows as the subject is what the template wrote, even when the text
// looks like an encoded word (src/delivery/mailer.ts, literalSubject): composed by
// nodemailer, read back by mailparser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import nodemailer from 'nodemailer';
import { simpleParser } from 'mailparser';
import { literalSubject } from '../../src/delivery/mailer.ts';

const shown = async (subject: string) => {
  const raw = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail({ from: 'a@example.test', to: 'b@example.test', subject: literalSubject(subject), text: 'x' });
  return (await simpleParser(raw.message as Buffer)).subject;
};

for (const subject of [
  // An attacker's customer name: shown as "Hi Ltd" when passed as it is.
  'Bill 7 for =?utf-8?b?SGk=?= Ltd',
  'Your Water Co bill 12: 2151.80 KES due 14/12/2026',
  `Ünïcødé =?x?q?y?= ${'王芳'.repeat(40)}`,
  '=?',
]) {
  test(`the subject ${JSON.stringify(subject.slice(0, 40))} is shown as written`, async () => assert.equal(await shown(subject), subject));
}
