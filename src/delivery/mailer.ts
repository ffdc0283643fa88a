// Where a bill's e-mail goes: the SMTP server of SMTP_URL (pooled connections, reused
// across jobs), or, with none configured, an .eml file under the mail folder, so the
// embedded default works with no mail server. A file is written under a temporary
// name and renamed, so a crash never leaves half a message, and an attempt again
// replaces the same file (its name is the Message-ID): never two files of one delivery.
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export type Message = {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  date: Date;
  attachments: { filename: string; content: Buffer; contentType: string }[];
};

export type Sent = { transport: string };

export class PermanentFailure extends Error {}

const transports = new Map<string, Transporter>();

/**
 * A subject that holds "=?" is sent encoded whole: nodemailer passes text that looks like an
 * encoded word (=?utf-8?b?SGk=?=) as it is, and mail programs then showed a customer named
 * "=?utf-8?b?SGk=?= Ltd" as "Hi Ltd" (an attacker's finding). Base64 words of at most 45
 * bytes (75 characters each, RFC 2047), cut between characters.
 */
export function literalSubject(subject: string): string {
  if (!subject.includes('=?')) return subject;
  const words: string[] = [];
  let part = '';
  for (const ch of subject) {
    if (Buffer.byteLength(part + ch) > 45) {
      words.push(part);
      part = '';
    }
    part += ch;
  }
  words.push(part);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join(' ');
}

export async function sendMessage(config: Pick<Config, 'smtpUrl' | 'mailDir'>, message: Message): Promise<Sent> {
  const m = { ...message, subject: literalSubject(message.subject) };
  if (config.smtpUrl) {
    let t = transports.get(config.smtpUrl);
    if (!t) {
      t = nodemailer.createTransport(`${config.smtpUrl}${config.smtpUrl.includes('?') ? '&' : '?'}pool=true&maxConnections=4`);
      transports.set(config.smtpUrl, t);
    }
    try {
      await t.sendMail(m);
    } catch (err) {
      const e = err as { responseCode?: number; message?: string };
      // 5xx is the server's final no: retrying would be refused again.
      if (typeof e.responseCode === 'number' && e.responseCode >= 500) throw new PermanentFailure(e.message ?? String(err));
      throw err;
    }
    return { transport: 'smtp' };
  }
  const raw = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail(m);
  const file = path.join(config.mailDir, `${m.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9.@_-]/g, '_')}.eml`);
  await fs.mkdir(config.mailDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, raw.message as Buffer);
  await fs.rename(tmp, file);
  return { transport: 'file' };
}

/** Closes pooled SMTP connections (at shutdown, and between tests). */
export function closeMailers(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}
