import net from 'node:net';
import { embeddedIPv4, ipv6Groups } from '../ipAddress.ts';
import type { Queryable } from '../db/pool.ts';
import type { Caller, Role } from './roles.ts';
import type { RoundingMode } from '../rating/money.ts';
import { todaySql } from '../calendar/calendar.ts';

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

/**
 * The client a throttle counts by: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or an
 * IPv6 address's /64, since one IPv6 client holds a whole /64 and would otherwise get five
 * tries at each of its 2^64 addresses (a reviewer's case).
 */
export function throttleClient(ip: string): string {
  if (!net.isIPv6(ip)) return ip;
  return embeddedIPv4(ip) ?? `${ipv6Groups(ip).slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/**
 * Counts a login attempt of this e-mail from this client before its password is checked,
 * unless the pair is locked: from the fifth attempt without a success in between, the
 * pair is locked for a doubling delay (1 s, 2 s, 4 s ... at most 15 minutes), slow for a
 * guesser, short for a typo. One statement, so concurrent attempts queue on the row.
 * Answers the seconds left of a lock (0: the attempt may go on).
 */
export async function claimLoginAttempt(db: Queryable, email: string, ip: string): Promise<{ lockedSeconds: number }> {
  const client = throttleClient(ip);
  const r = await db.query<{ failures: number }>(
    `INSERT INTO login_throttle AS t (email, client, failures) VALUES (lower($1), $2, 1)
     ON CONFLICT (email, client) DO UPDATE
        SET failures = t.failures + 1, updated_at = now(),
            locked_until = CASE WHEN t.failures + 1 >= 5
              THEN now() + make_interval(secs => least(900, power(2, t.failures + 1 - 5)))
              ELSE t.locked_until END
      WHERE t.locked_until IS NULL OR t.locked_until <= now()
     RETURNING failures`,
    [email, client],
  );
  if (r.rows.length > 0) {
    // Now and then, the pairs no longer guessing go: those never locked after a quarter of an
    // hour, the others after a day (the longest lock is 15 minutes). The table holds what is
    // being guessed now, however many e-mails a flood tries.
    if (Math.random() < 0.01) {
      await db.query("DELETE FROM login_throttle WHERE updated_at < now() - interval '1 day' OR (locked_until IS NULL AND updated_at < now() - interval '15 minutes')");
    }
    return { lockedSeconds: 0 };
  }
  const locked = await db.query<{ seconds: number }>(
    'SELECT greatest(1, ceil(extract(epoch FROM locked_until - now())))::int AS seconds FROM login_throttle WHERE email = lower($1) AND client = $2',
    [email, client],
  );
  return { lockedSeconds: locked.rows[0]?.seconds ?? 1 };
}

/** A successful login: the pair starts again from no failure. */
export async function forgetLoginFailures(db: Queryable, email: string, ip: string): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE email = lower($1) AND client = $2', [email, throttleClient(ip)]);
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

/** today: dd/mm/yyyy, the app's by its clock (the console dates readings by it). */
export type AppSettings = { appCode: number; name: string; timeZone: string; currency: string; minorUnits: number; today: string };

export async function readApp(db: Queryable, appCode: number): Promise<AppSettings | undefined> {
  const r = await db.query<AppSettings>(
    `SELECT app_code AS "appCode", name, time_zone AS "timeZone", currency, minor_units AS "minorUnits", to_char(${todaySql()}, 'DD/MM/YYYY') AS today
       FROM app a WHERE app_code = $1`,
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
