// SQL of late payment charges: the rules in force, the bills past their grace, the
// late_charge rows, and the per-app day rows of the daily job. Runs in the caller's
// transaction; every statement works on a set of bills at once.
import type { Queryable } from '../db/pool.ts';
import type { LateChargeRule } from '../rating/lateCharge.ts';
import { todaySql } from '../calendar/calendar.ts';

export type RuleRow = { service_version_id: string; rule: LateChargeRule };

/**
 * The late-charge rules of the app's template versions that have one. A bill is charged
 * by the version its term was made with (the terms printed on it), never by a later one.
 * The app-level default of the admin API, when there is one, belongs here: a version
 * without a rule would take it.
 */
export async function loadRules(db: Queryable, appCode: number): Promise<RuleRow[]> {
  // A template version without a rule of its own takes the app's default (update-app's
  // lateCharge, migration 020), written in the rule's own shape so one check and one
  // rating apply to both; an app whose default is 'none' charges such bills nothing.
  const r = await db.query<RuleRow>(
    `SELECT v.service_version_id,
            CASE WHEN jsonb_typeof(v.definition->'lateCharge') = 'object' THEN v.definition->'lateCharge'
                 ELSE jsonb_strip_nulls(jsonb_build_object(
                        'graceDays', a.late_charge_grace_days,
                        a.late_charge_kind, a.late_charge_amount::text,
                        'minimum', a.late_charge_minimum::text,
                        'maximum', a.late_charge_maximum::text)) END AS rule
       FROM service_version v JOIN service s ON s.service_id = v.service_id JOIN app a ON a.app_code = s.app_code
      WHERE s.app_code = $1 AND (jsonb_typeof(v.definition->'lateCharge') = 'object' OR a.late_charge_kind <> 'none')
      ORDER BY v.service_version_id`,
    [appCode],
  );
  return r.rows;
}

export type OverdueBillRow = {
  entry_id: string;
  bill_id: string;
  bill_number: string;
  account_id: string;
  due_date: string;
  open_amount: string;
  service_version_id: string;
};

/**
 * The app's posted bills still unpaid (their ledger entry's open item, after settlement)
 * whose grace ended before `chargeDate`, not charged yet, among the open items with an id in
 * (afterEntry, upToEntry], of the accounts of one lane (account id modulo the lanes), in id
 * order. A range of ids, not a LIMIT: with a LIMIT, PostgreSQL (its estimate of the lane's
 * share a guess) read every open item of the app and sorted them for every page, so a run
 * over a million open bills took twice the time per bill of one over 50,000 (issue 12).
 */
export async function overdueBills(
  db: Queryable,
  appCode: number,
  chargeDate: string,
  versions: readonly string[],
  graceDays: readonly number[],
  afterEntry: string,
  upToEntry: string,
  part: { lane: number; lanes: number } = { lane: 0, lanes: 1 },
): Promise<OverdueBillRow[]> {
  const r = await db.query<OverdueBillRow>(
    `SELECT o.entry_id, b.bill_id, b.bill_number, b.account_id, b.due_date, o.open_amount, t.service_version_id
       FROM open_item o
       JOIN ledger_entry e ON e.entry_id = o.entry_id AND e.kind = 'bill'
       JOIN bill b ON b.bill_id = e.bill_id AND b.status = 'posted'
       JOIN term t ON t.term_id = b.term_id
       JOIN unnest($3::bigint[], $4::int[]) AS r(service_version_id, grace_days) ON r.service_version_id = t.service_version_id
      WHERE o.app_code = $1 AND o.entry_id > $5::bigint AND o.entry_id <= $6::bigint AND o.open_amount > 0 AND o.account_id % $7 = $8
        AND b.due_date + r.grace_days < $2::date
        AND NOT EXISTS (SELECT 1 FROM late_charge lc WHERE lc.bill_id = b.bill_id)
      ORDER BY o.entry_id`,
    [appCode, chargeDate, versions, graceDays, afterEntry, upToEntry, part.lanes, part.lane],
  );
  return r.rows;
}

/** The highest id of the app's open items: where a run's walk over them ends. */
export async function lastOpenItem(db: Queryable, appCode: number): Promise<string> {
  const r = await db.query<{ last: string | null }>('SELECT max(entry_id) AS last FROM open_item WHERE app_code = $1', [appCode]);
  return r.rows[0]?.last ?? '0';
}

/** The app's first open item after an id, or null: a run's walk jumps over ids the app has no open item at. */
export async function nextOpenItem(db: Queryable, appCode: number, after: string): Promise<string | null> {
  const r = await db.query<{ next: string | null }>('SELECT min(entry_id) AS next FROM open_item WHERE app_code = $1 AND entry_id > $2', [appCode, after]);
  return r.rows[0]?.next ?? null;
}

/**
 * The open amounts of these bill entries now, read after their accounts were locked:
 * a payment settled between the page's read and the lock is seen. An entry paid in
 * full in between has no open item and is absent.
 */
export async function openAmounts(db: Queryable, entryIds: readonly string[]): Promise<Map<string, string>> {
  const r = await db.query<{ entry_id: string; open_amount: string }>(
    'SELECT entry_id, open_amount FROM open_item WHERE entry_id = ANY($1::bigint[]) AND open_amount > 0',
    [entryIds],
  );
  return new Map(r.rows.map((x) => [x.entry_id, x.open_amount]));
}

export type NewLateCharge = {
  bill_id: string;
  account_id: string;
  overdue: string;
  amount: string;
  service_version_id: string;
  entry_id: string;
  trace: object;
};

/**
 * The late_charge rows of one page; UNIQUE (bill_id) refuses a second charge of a bill.
 * The rows travel as one JSON document: an array parameter of JSON texts costs more to
 * quote on the way out than the insert itself.
 */
export async function insertLateCharges(db: Queryable, appCode: number, chargeDate: string, by: string, rows: readonly NewLateCharge[]): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO late_charge (app_code, bill_id, account_id, charge_date, overdue, amount, service_version_id, entry_id, trace, created_by)
     SELECT $1, x.bill_id, x.account_id, $2::date, x.overdue, x.amount, x.service_version_id, x.entry_id, x.trace, $3
       FROM json_to_recordset($4::json)
            AS x(bill_id bigint, account_id bigint, overdue numeric, amount numeric, service_version_id bigint, entry_id bigint, trace json)`,
    [appCode, chargeDate, by, JSON.stringify(rows)],
  );
  return r.rowCount ?? 0;
}

/** The app's money settings: what the charge is rounded by. */
export async function appRounding(db: Queryable, appCode: number): Promise<{ minorUnits: number; rounding: string } | undefined> {
  const r = await db.query<{ minor_units: number; rounding_mode: string }>('SELECT minor_units, rounding_mode FROM app WHERE app_code = $1', [appCode]);
  const row = r.rows[0];
  return row === undefined ? undefined : { minorUnits: row.minor_units, rounding: row.rounding_mode };
}

/**
 * Serialises the runs of one app, lane by lane: a second run's page of a lane waits, then
 * finds the bills the first charged. Lanes of one run do not wait on each other.
 */
export async function lockApp(db: Queryable, appCode: number, lane = 0): Promise<void> {
  // Lane 0 keeps the key of the runs before lanes (hashtext is 603928872: no overflow).
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('late_charges') + $2, $1)`, [appCode, lane]);
}

export async function finishDay(db: Queryable, appCode: number, chargeDate: string, charged: number): Promise<void> {
  await db.query(
    `INSERT INTO late_charge_day (app_code, charge_date, finished_at, charged) VALUES ($1, $2, now(), $3)
     ON CONFLICT (app_code, charge_date) DO UPDATE SET finished_at = now(), charged = coalesce(late_charge_day.charged, 0) + $3`,
    [appCode, chargeDate, charged],
  );
}

/**
 * For every app whose today has no day row yet: the row, and the day's job on the queue,
 * in one statement (job_key per app and day). Answers how many apps were queued.
 */
export async function queueNewDays(db: Queryable, task: string): Promise<number> {
  const r = await db.query(
    `WITH due AS (
       INSERT INTO late_charge_day (app_code, charge_date)
       SELECT a.app_code, ${todaySql('a.time_zone')} FROM app a
       ON CONFLICT (app_code, charge_date) DO NOTHING
       RETURNING app_code, charge_date)
     SELECT graphile_worker.add_job($1, json_build_object('appCode', app_code, 'chargeDate', charge_date::text),
                                    job_key := 'late-charges:' || app_code || ':' || charge_date, max_attempts := 25)
       FROM due`,
    [task],
  );
  return r.rowCount ?? 0;
}

/** Queues one app's run for a day now (run-late-charges); a run of that day already waiting is kept. */
export async function queueDay(db: Queryable, task: string, appCode: number, chargeDate: string): Promise<void> {
  await db.query(
    `INSERT INTO late_charge_day (app_code, charge_date) VALUES ($1, $2) ON CONFLICT (app_code, charge_date) DO NOTHING`,
    [appCode, chargeDate],
  );
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('appCode', $2::int, 'chargeDate', $3::text),
                                    job_key := 'late-charges:' || $2 || ':' || $3, job_key_mode := 'preserve_run_at', max_attempts := 25)`,
    [task, appCode, chargeDate],
  );
}

export type ChargeToReverse = { late_charge_id: string; bill_id: string; bill_number: string; account_id: string; amount: string; entry_id: string };

/**
 * The late charges of these bills not reversed yet, in bill order. Read under the
 * caller's locks (the bills, then their accounts): a late-charge page that charged one of
 * them committed before the accounts' lock was granted, so it is seen here.
 */
export async function chargesToReverse(db: Queryable, billIds: readonly string[]): Promise<ChargeToReverse[]> {
  if (billIds.length === 0) return [];
  const r = await db.query<ChargeToReverse>(
    `SELECT lc.late_charge_id, lc.bill_id, b.bill_number, lc.account_id, lc.amount, lc.entry_id
       FROM late_charge lc JOIN bill b ON b.bill_id = lc.bill_id
      WHERE lc.bill_id = ANY($1::bigint[])
        AND NOT EXISTS (SELECT 1 FROM late_charge_reversal r WHERE r.late_charge_id = lc.late_charge_id)
      ORDER BY lc.bill_id`,
    [billIds],
  );
  return r.rows;
}

/** The reversal rows (migration 093); the primary key refuses a second reversal of a charge. */
export async function insertLateChargeReversals(
  db: Queryable,
  appCode: number,
  by: string,
  rows: readonly { lateChargeId: string; entryId: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO late_charge_reversal (late_charge_id, app_code, entry_id, created_by)
     SELECT t.late_charge_id, $1, t.entry_id, $2 FROM unnest($3::bigint[], $4::bigint[]) AS t(late_charge_id, entry_id)`,
    [appCode, by, rows.map((x) => x.lateChargeId), rows.map((x) => x.entryId)],
  );
}
