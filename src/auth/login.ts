import type pg from 'pg';
import { AppError } from '../errors.ts';
import { verifyPassword } from './password.ts';
import { claimLoginAttempt, findUserByEmail, forgetLoginFailures, insertToken } from './store.ts';
import { newToken } from './token.ts';
import type { Role } from './roles.ts';

export type LoginResult = { accessToken: string; expiresAt: string; user: { email: string; appCode: number; role: Role } };

/**
 * Checks the password, throttles repeated failures, and issues a token. The attempt is
 * counted before the password is checked (claimLoginAttempt), for any e-mail, per client
 * address: concurrent guesses queue on one row and the sixth is refused, an unknown
 * e-mail is throttled as a known one is (a 429 reveals nothing), and a guesser locks
 * itself out, not the user (migration 097).
 */
export async function login(db: pg.Pool, email: string, password: string, ttlSeconds: number, client: string): Promise<LoginResult> {
  const claim = await claimLoginAttempt(db, email, client);
  if (claim.lockedSeconds > 0) {
    const wait = claim.lockedSeconds;
    throw new AppError('RATE_LIMITED', `Too many failed logins; try again in ${wait} s.`, [{ path: 'data.email', message: 'temporarily locked' }], wait);
  }
  const user = await findUserByEmail(db, email);
  const good = await verifyPassword(password, user?.password_hash);
  if (!user || !good || user.disabled) {
    // The same answer for an unknown e-mail and a wrong password: no account discovery.
    throw new AppError('UNAUTHENTICATED', 'The e-mail or password is wrong.', [{ path: 'data.password', message: 'does not match' }]);
  }
  await forgetLoginFailures(db, email, client);
  const { token, hash } = newToken();
  const expiresAt = await insertToken(db, hash, user.user_id, ttlSeconds);
  return { accessToken: token, expiresAt: expiresAt.toISOString(), user: { email: user.email, appCode: user.app_code, role: user.role } };
}
