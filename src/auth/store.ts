import type { Queryable } from '../db/pool.ts';
import type { Caller, Role } from './roles.ts';
import type { RoundingMode } from '../rating/money.ts';

export type UserRow = {
  user_id: string;
  app_code: number;
  email: string;
  password_hash: string;
  role: Role;
  disabled: boolean;
  failed_logins: number;
  locked_until: Date | null;
};

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const r = await db.query<UserRow>('SELECT * FROM app_user WHERE lower(email) = lower($1)', [email]);
  return r.rows[0];
}

export async function insertToken(db: Queryable, hash: Buffer, userId: string, ttlSeconds: number): Promise<Date> {
  const r = await db.query<{ expires_at: Date }>(
    `INSERT INTO access_token (token_hash, user_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
    [hash, userId, ttlSeconds],
  );
  return r.rows[0]!.expires_at;
}

/** The caller of a live token (not expired, not revoked, its user not disabled) and when the token expires. */
export async function sessionByToken(db: Queryable, hash: Buffer): Promise<{ caller: Caller; expiresAt: Date } | undefined> {
  const r = await db.query<{ user_id: string; app_code: number; email: string; role: Role; expires_at: Date }>({
    name: 'session-by-token',
    text: `SELECT u.user_id, u.app_code, u.email, u.role, t.expires_at
       FROM access_token t JOIN app_user u USING (user_id)
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND NOT u.disabled`,
    values: [hash],
  });
  const row = r.rows[0];
  if (!row) return undefined;
  return { caller: Object.freeze({ userId: row.user_id, appCode: row.app_code, email: row.email, role: row.role, tokenHash: hash }), expiresAt: row.expires_at };
}

export async function revokeToken(db: Queryable, hash: Buffer): Promise<void> {
  await db.query('UPDATE access_token SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
}

export async function recordFailedLogin(db: Queryable, userId: string): Promise<void> {
  // From the fifth consecutive failure on, the account is locked for a doubling delay
  // (1 s, 2 s, 4 s ... at most 15 minutes): slow for a guesser, short for a typo.
  await db.query(
    `UPDATE app_user SET failed_logins = failed_logins + 1,
            locked_until = CASE WHEN failed_logins + 1 >= 5
              THEN now() + make_interval(secs => least(900, power(2, failed_logins + 1 - 5)))
              ELSE locked_until END
      WHERE user_id = $1`,
    [userId],
  );
}

export async function recordSuccessfulLogin(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE app_user SET failed_logins = 0, locked_until = NULL WHERE user_id = $1', [userId]);
}

export async function createApp(
  db: Queryable,
  name: string,
  timeZone: string,
  currency: string,
  minorUnits: number,
  rounding: RoundingMode = 'halfUp',
): Promise<number> {
  const r = await db.query<{ app_code: number }>(
    'INSERT INTO app (name, time_zone, currency, minor_units, rounding_mode) VALUES ($1, $2, $3, $4, $5) RETURNING app_code',
    [name, timeZone, currency, minorUnits, rounding],
  );
  return r.rows[0]!.app_code;
}

export type AppSettings = { appCode: number; name: string; timeZone: string; currency: string; minorUnits: number };

export async function readApp(db: Queryable, appCode: number): Promise<AppSettings | undefined> {
  const r = await db.query<AppSettings>(
    'SELECT app_code AS "appCode", name, time_zone AS "timeZone", currency, minor_units AS "minorUnits" FROM app WHERE app_code = $1',
    [appCode],
  );
  return r.rows[0];
}

export async function createUser(db: Queryable, appCode: number, email: string, passwordHash: string, role: Role): Promise<string> {
  const r = await db.query<{ user_id: string }>(
    'INSERT INTO app_user (app_code, email, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING user_id',
    [appCode, email, passwordHash, role],
  );
  return r.rows[0]!.user_id;
}

export async function countUsers(db: Queryable): Promise<number> {
  const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM app_user');
  return Number(r.rows[0]!.n);
}
