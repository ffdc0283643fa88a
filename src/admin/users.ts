// The users of an app as its admins manage them: listed, made, given a role, disabled or
// enabled, their password reset. The rules (one owner each): the password rule is
// auth/password.ts's, the roles auth/roles.ts's; here, that no one raises their own role,
// that the app keeps at least one active admin, and that a disabled user's tokens end at
// once. Each change is one transaction with its audit entry (never a password or hash).
import { USER_EMAIL_PATTERN } from './appRules.ts';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError, conflict, notFound, validationFailed } from '../errors.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import { hashPassword, passwordProblem } from '../auth/password.ts';
import { createUser } from '../auth/store.ts';
import { roleAllows, ROLES, type Role } from '../auth/roles.ts';
import { writeAudit, type Actor } from './audit.ts';

export type UserRecord = { userID: number; email: string; role: Role; disabled: boolean; createdAt: string };

type Row = { user_id: string; email: string; role: Role; disabled: boolean; created_at: string };
const recordOf = (r: Row): UserRecord => ({ userID: Number(r.user_id), email: r.email, role: r.role, disabled: r.disabled, createdAt: r.created_at });
/** The audit's picture of a user: never the password or its hash. */
const pictureOf = (r: Row) => ({ userID: Number(r.user_id), email: r.email, role: r.role, disabled: r.disabled });

const COLUMNS = `u.user_id, u.email, u.role, u.disabled, ${localTimeSql('u.created_at')} AS created_at`;

export async function listUsers(
  db: Queryable,
  appCode: number,
  f: { userID?: number | undefined; email?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: UserRecord[]; total: number }> {
  const where = 'u.app_code = $1 AND ($2::bigint IS NULL OR u.user_id = $2) AND ($3::text IS NULL OR lower(u.email) = lower($3))';
  const params = [appCode, f.userID ?? null, f.email ?? null];
  const total = await db.query<{ n: string }>(`SELECT count(*) AS n FROM app_user u WHERE ${where}`, params);
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM app_user u JOIN app a ON a.app_code = u.app_code WHERE ${where} ORDER BY u.user_id LIMIT $4 OFFSET $5`, [
    ...params,
    limit,
    offset,
  ]);
  return { rows: rows.rows.map(recordOf), total: Number(total.rows[0]!.n) };
}

/** The user, locked, when it is of this app; another app's user is missing. */
async function lockUser(tx: Queryable, appCode: number, userId: number): Promise<Row> {
  const r = await tx.query<Row>(`SELECT ${COLUMNS} FROM app_user u JOIN app a ON a.app_code = u.app_code WHERE u.app_code = $1 AND u.user_id = $2 FOR UPDATE OF u`, [
    appCode,
    userId,
  ]);
  if (!r.rows[0]) throw notFound('user', 'data.userID');
  return r.rows[0];
}

const E_MAIL = new RegExp(USER_EMAIL_PATTERN);

/** make-user (and the command line's user add): a new user of the app. Answers its id. */
export async function makeUser(db: pg.Pool, appCode: number, actor: Actor, u: { email: string; password: string; role: string }, at = (f: string) => `data.${f}`): Promise<string> {
  const issues = [];
  if (!E_MAIL.test(u.email)) issues.push({ path: at('email'), message: 'must be an e-mail address' });
  const weak = passwordProblem(u.password);
  if (weak) issues.push({ path: at('password'), message: weak });
  if (!(ROLES as readonly string[]).includes(u.role)) issues.push({ path: at('role'), message: `must be one of ${ROLES.join(', ')}` });
  if (issues.length > 0) throw validationFailed(issues);
  const hash = await hashPassword(u.password);
  return inTransaction(db, async (tx) => {
    const app = await tx.query('SELECT 1 FROM app WHERE app_code = $1', [appCode]);
    if (app.rowCount === 0) throw notFound('app', at('app'));
    // E-mails are unique over every app (one e-mail logs into one app): checked first,
    // so that the answer is a CONFLICT and the transaction stays usable.
    const taken = await tx.query('SELECT 1 FROM app_user WHERE lower(email) = lower($1)', [u.email]);
    if (taken.rowCount !== 0) throw conflict(`A user with e-mail ${u.email} exists already.`, at('email'));
    let id: string;
    try {
      id = await createUser(tx, appCode, u.email, hash, u.role as Role);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw conflict(`A user with e-mail ${u.email} exists already.`, at('email'));
      throw err;
    }
    const made = await lockUser(tx, appCode, Number(id));
    await writeAudit(tx, appCode, actor, 'user.make', `user:${id}`, null, pictureOf(made));
    return id;
  });
}

/** The app's active admins other than `except`, locked (so two demotions cannot both pass). */
async function otherActiveAdmins(tx: Queryable, appCode: number, except: string): Promise<number> {
  const r = await tx.query(`SELECT user_id FROM app_user WHERE app_code = $1 AND role = 'admin' AND NOT disabled AND user_id <> $2 ORDER BY user_id FOR UPDATE`, [appCode, except]);
  return r.rowCount ?? 0;
}

/** update-user: a new role, disabled or enabled again. */
export async function updateUser(
  db: pg.Pool,
  appCode: number,
  actor: Actor & { role: Role },
  change: { userID: number; role?: Role | undefined; disabled?: boolean | undefined },
): Promise<void> {
  await inTransaction(db, async (tx) => {
    // The app's admins are locked first, in one order, before the user: every update of
    // a user of the app takes them in the same order, so two cannot deadlock.
    await tx.query(`SELECT 1 FROM app_user WHERE app_code = $1 AND role = 'admin' ORDER BY user_id FOR UPDATE`, [appCode]);
    const user = await lockUser(tx, appCode, change.userID);
    const role = change.role ?? user.role;
    const disabled = change.disabled ?? user.disabled;
    if (user.user_id === actor.userId && !roleAllows(actor.role, role)) {
      throw new AppError('FORBIDDEN', 'No one may raise their own role.', [{ path: 'data.role', message: `above your own (${actor.role})` }]);
    }
    const staysActiveAdmin = role === 'admin' && !disabled;
    if (user.role === 'admin' && !user.disabled && !staysActiveAdmin && (await otherActiveAdmins(tx, appCode, user.user_id)) === 0) {
      throw new AppError('INVALID_STATE', 'This is the last active admin of the app: it cannot be disabled or given another role.', [
        { path: change.disabled === true ? 'data.disabled' : 'data.role', message: 'the app must keep an active admin' },
      ]);
    }
    if (role === user.role && disabled === user.disabled) return; // nothing changes: nothing to audit
    await tx.query('UPDATE app_user SET role = $2, disabled = $3 WHERE user_id = $1', [user.user_id, role, disabled]);
    // A disabled user's sessions end now, and do not come back if it is enabled again.
    if (disabled && !user.disabled) await tx.query('UPDATE access_token SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [user.user_id]);
    await writeAudit(tx, appCode, actor, 'user.update', `user:${user.user_id}`, pictureOf(user), pictureOf({ ...user, role, disabled }));
  });
}

/**
 * reset-password: a new password chosen by the admin. The user's other sessions end (a
 * reset is what one does when a password leaked); the caller's own token is kept.
 */
export async function resetPassword(db: pg.Pool, appCode: number, actor: Actor & { tokenHash: Buffer }, userId: number, password: string): Promise<void> {
  const weak = passwordProblem(password);
  if (weak) throw validationFailed([{ path: 'data.password', message: weak }]);
  const hash = await hashPassword(password);
  await inTransaction(db, async (tx) => {
    const user = await lockUser(tx, appCode, userId);
    await tx.query('UPDATE app_user SET password_hash = $2 WHERE user_id = $1', [user.user_id, hash]);
    // A new password unlocks the user from everywhere (migration 097).
    await tx.query('DELETE FROM login_throttle WHERE email = lower($1)', [user.email]);
    const ended = await tx.query('UPDATE access_token SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND token_hash <> $2', [user.user_id, actor.tokenHash]);
    await writeAudit(tx, appCode, actor, 'user.reset-password', `user:${user.user_id}`, pictureOf(user), { ...pictureOf(user), sessionsEnded: ended.rowCount ?? 0 });
  });
}
