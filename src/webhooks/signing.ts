// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is
// 'whsec_' + base64 of random bytes; the signature of a message is HMAC-SHA256, keyed
// with those bytes, of `${webhook-id}.${webhook-timestamp}.${body}`, sent as
// 'v1,<base64>'. During a rotation's overlap the message carries one signature per valid
// secret, separated by spaces, so a receiver holding either key verifies it.
import crypto from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + crypto.randomBytes(32).toString('base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return 'v1,' + crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The three headers of one attempt, signed with every secret given. */
export function signedHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
