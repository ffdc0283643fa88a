// Passwords are kept as salted scrypt hashes: slow on purpose, so a stolen table does
// not give the passwords back by brute force.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { VISIBLE_TEXT } from '../primitives.ts';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const N = 16384;
const R = 8;
const P = 1;
const LEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, LEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

// Used for unknown e-mails too, so the time taken does not tell whether an account exists.
const DUMMY = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(LEN).toString('base64')}`;

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? DUMMY).split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024,
  });
  return stored !== undefined && crypto.timingSafeEqual(actual, expected);
}

/** The one password rule, for the command line, the first admin and the admin API alike. */
export const PASSWORD_MIN_LENGTH = 8;
const VISIBLE = new RegExp(VISIBLE_TEXT, 'u');

/** What is wrong with a new password, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  // Eight spaces passed as a password (an outside check): long enough, and nothing to guess.
  // Zero-width characters are as blank (VISIBLE_TEXT, the rule for names).
  if (!VISIBLE.test(password)) return 'must not be only spaces';
  return null;
}
