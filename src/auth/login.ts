import type pg from 'pg';
import { AppError } from '../errors.ts';
import { verifyPassword } from './password.ts';
import { findUserByEmail, insertToken, recordFailedLogin, recordSuccessfulLogin } from './store.ts';
import { newToken } from './token.ts';
import type { Role } from './roles.ts';

export type LoginResult = { accessToken: string; expiresAt: string; user: { email: string; appCode: number; role: Role } };

/** Checks the password, throttles repeated failures, and issues a token. */
export async function login(db: pg.Pool, email: string, password: string, ttlSeconds: number): Promise<LoginResult> {
  const user = await findUserByEmail(db, email);
  if (user?.locked_until && user.locked_until.getTime() > Date.now()) {
    const wait = Math.max(1, Math.ceil((user.locked_until.getTime() - Date.now()) / 1000));
    throw new AppError('RATE_LIMITED', `Too many failed logins; try again in ${wait} s.`, [{ path: 'data.email', message: 'temporarily locked' }], wait);
  }
  const good = await verifyPassword(password, user?.password_hash);
  if (!user || !good || user.disabled) {
    if (user) await recordFailedLogin(db, user.user_id);
    // The same answer for an unknown e-mail and a wrong password: no account discovery.
    throw new AppError('UNAUTHENTICATED', 'The e-mail or password is wrong.', [{ path: 'data.password', message: 'does not match' }]);
  }
  await recordSuccessfulLogin(db, user.user_id);
  const { token, hash } = newToken();
  const expiresAt = await insertToken(db, hash, user.user_id, ttlSeconds);
  return { accessToken: token, expiresAt: expiresAt.toISOString(), user: { email: user.email, appCode: user.app_code, role: user.role } };
}
