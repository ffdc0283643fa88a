import crypto from 'node:crypto';

/** A new opaque access token; only its SHA-256 is stored. */
export function newToken(): { token: string; hash: Buffer } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: tokenHash(token) };
}

export function tokenHash(token: string): Buffer {
  return crypto.createHash('sha256').update(token).digest();
}
