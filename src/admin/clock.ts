// A test app's clock: set-clock moves its "now" forward (never back), and everything that
// asks the calendar for the app's today or now follows (calendar.ts todaySql, nowSql,
// runAtSql; migration 020). A live app runs on real time and its clock cannot be set.
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { LOCAL_TIME_MESSAGE, parseLocalTime, runAtSql, todaySql } from '../calendar/calendar.ts';
import { AppError, validationFailed } from '../errors.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';
import { moveRunAt } from '../billRun/termStore.ts';
import { addPlanJob } from '../billRun/jobs.ts';
import { writeAudit, type Actor } from './audit.ts';

export type ClockMove = { now?: string | undefined; days?: number | undefined };

/**
 * Moves the app's clock forward to `now` (read in the app's time zone) or by `days`, and
 * brings forward the scheduled runs it passes: a Scheduled term whose sheduleTime the
 * clock now reaches has its plan job re-queued at once; one still ahead runs that much
 * earlier in real time. One transaction with its audit entry.
 */
export async function setClock(db: pg.Pool, appCode: number, actor: Actor, move: ClockMove): Promise<void> {
  if ((move.now === undefined) === (move.days === undefined)) {
    throw validationFailed([{ path: 'data.now', message: 'give either now or days' }]);
  }
  if (move.now !== undefined && parseLocalTime(move.now) === null) {
    throw validationFailed([{ path: 'data.now', message: LOCAL_TIME_MESSAGE }]);
  }
  await inTransaction(db, async (tx) => {
    const app = await tx.query<{ is_test: boolean; ahead: string; app_now: string; target_ahead: string; target: string; target_today: string; backwards: boolean }>(
      `SELECT a.is_test, extract(epoch FROM a.clock_offset)::bigint AS ahead,
              t.at < date_trunc('second', now() + a.clock_offset) AS backwards,
              to_char((now() + a.clock_offset) AT TIME ZONE a.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS app_now,
              extract(epoch FROM t.at - now()) AS target_ahead,
              to_char(t.at AT TIME ZONE a.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS target,
              to_char(${todaySql('a.time_zone', 't.at - now()')}, 'YYYY-MM-DD') AS target_today
         FROM app a,
              LATERAL (SELECT CASE WHEN $2::timestamp IS NOT NULL THEN $2::timestamp AT TIME ZONE a.time_zone
                                   ELSE now() + a.clock_offset + make_interval(days => $3::int) END AS at) t
        WHERE a.app_code = $1 FOR UPDATE OF a`,
      [appCode, move.now ?? null, move.days ?? null],
    );
    const a = app.rows[0]!;
    if (!a.is_test) {
      throw new AppError('INVALID_STATE', 'A live app always runs on real time: its clock cannot be set (make it a test app first).', [
        { path: move.now !== undefined ? 'data.now' : 'data.days', message: 'the app is not a test app' },
      ]);
    }
    if (a.backwards) {
      throw validationFailed(
        [{ path: move.now !== undefined ? 'data.now' : 'data.days', message: `is before the app's now (${a.app_now}); the clock only moves forward` }],
        "A test app's clock only moves forward.",
      );
    }
    // Past the calendar's last year the app's dates came back as 10402-10-01, and a clock
    // never moves back (a fuzzer): the last moment is 9999-12-31 23:59:59.
    if (a.target.length !== 19 || a.target > '9999-12-31T23:59:59' || a.target_today.length !== 10 || a.target_today > '9999-12-31') {
      throw validationFailed(
        [{ path: move.now !== undefined ? 'data.now' : 'data.days', message: `would take the app's clock past 31/12/9999 (to ${a.target}), the calendar's last day` }],
        "A test app's clock stops at the calendar's last day.",
      );
    }
    // The display is to the second: a now set to the one shown is not a step back.
    await tx.query(`UPDATE app SET clock_offset = greatest(clock_offset, make_interval(secs => $2::float8)) WHERE app_code = $1`, [appCode, a.target_ahead]);
    // Every run it brings forward: those whose sheduleTime it passed, at once.
    const moved = await tx.query<{ term_id: string; job_round: number; run_at: string; modified_by: string | null }>(
      `SELECT t.term_id, t.job_round, ${runAtSql('t.shedule_time')} AS run_at, t.modified_by
         FROM term t JOIN app a ON a.app_code = t.app_code
        WHERE t.app_code = $1 AND t.status = $2 AND t.run_at > ${runAtSql('t.shedule_time')}
        ORDER BY t.term_id FOR UPDATE OF t`,
      [appCode, TERM_STATUS.Scheduled],
    );
    for (const t of moved.rows) {
      await moveRunAt(tx, t.term_id, t.run_at);
      await addPlanJob(tx, t.term_id, t.job_round, t.run_at, t.modified_by ?? actor.email);
    }
    await writeAudit(
      tx,
      appCode,
      actor,
      'app.clock',
      'app',
      { now: a.app_now, clockAheadSeconds: Number(a.ahead) },
      { now: a.target, clockAheadSeconds: Math.round(Number(a.target_ahead)), runsBroughtForward: moved.rows.map((t) => Number(t.term_id)) },
    );
  });
}
