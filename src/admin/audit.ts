// The audit log: who changed what in an app's administration, when, and the record before
// and after. Written only here, always with the caller's transaction, so a change is never
// kept without its entry nor an entry without its change (migration 020).
import type { Queryable } from '../db/pool.ts';
import { localTimeSql } from '../calendar/calendar.ts';

/** Who acts: a user of the app, or the command line (no user). */
export type Actor = { userId: string | null; email: string };
export const COMMAND_LINE: Actor = Object.freeze({ userId: null, email: 'command line' });
/** The first start's app and admin (BILLRUN_ADMIN_EMAIL, admin/bootstrap.ts). */
export const FIRST_START: Actor = Object.freeze({ userId: null, email: 'first start' });

export const AUDIT_ACTIONS = ['app.make', 'app.update', 'app.clock', 'user.make', 'user.update', 'user.reset-password'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export async function writeAudit(
  tx: Queryable,
  appCode: number,
  actor: Actor,
  action: AuditAction,
  target: string,
  before: unknown,
  after: unknown,
): Promise<void> {
  await tx.query(
    'INSERT INTO audit_log (app_code, user_id, actor, action, target, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [appCode, actor.userId, actor.email, action, target, before === null ? null : JSON.stringify(before), after === null ? null : JSON.stringify(after)],
  );
}

export type AuditRow = {
  audit_id: string;
  at: string;
  user_id: string | null;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
};

/** The app's entries, newest first, optionally of one action or target. */
export async function listAudit(
  db: Queryable,
  appCode: number,
  f: { action?: string | undefined; target?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: AuditRow[]; total: number }> {
  const where = 'l.app_code = $1 AND ($2::text IS NULL OR l.action = $2) AND ($3::text IS NULL OR l.target = $3)';
  const params = [appCode, f.action ?? null, f.target ?? null];
  const total = await db.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log l WHERE ${where}`, params);
  const rows = await db.query<AuditRow>(
    `SELECT l.audit_id, ${localTimeSql('l.at')} AS at, l.user_id, l.actor, l.action, l.target, l.before, l.after
       FROM audit_log l JOIN app a ON a.app_code = l.app_code
      WHERE ${where} ORDER BY l.audit_id DESC LIMIT $4 OFFSET $5`,
    [...params, limit, offset],
  );
  return { rows: rows.rows, total: Number(total.rows[0]!.n) };
}
