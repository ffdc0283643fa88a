// An app's settings as an admin reads and changes them (get-app, update-app) and as the
// command line makes them (app add). Each change is one transaction with its audit entry.
import type pg from 'pg';
import { Dec, DECIMAL_TEXT, type RoundingMode } from '../rating/money.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { formatDate, nowSql, todaySql } from '../calendar/calendar.ts';
import { readAmount } from '../ledger/common.ts';
import { incrementIssues } from '../rating/models/totalRounding.ts';
import { AppError, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import { writeAudit, type Actor } from './audit.ts';
import { CURRENCY_MESSAGE, isCurrency, isRounding, isTimeZone, MINOR_UNITS, ROUNDING_MESSAGE, TIME_ZONE_MESSAGE } from './appRules.ts';
import { markTariffDated } from '../billRun/termStore.ts';
import { moveTerm } from '../billRun/termStates.ts';

export const LATE_CHARGE_KINDS = ['none', 'flat', 'percentage'] as const;
export type LateChargeKind = (typeof LATE_CHARGE_KINDS)[number];

/** The late-charge defaults: amounts as exact decimal text, in the app's currency (a percentage for kind 'percentage'). */
export type LateCharge = { graceDays: number; kind: LateChargeKind; amount: string; minimum: string | null; maximum: string | null };

/** What an admin sets; the audit log keeps it before and after each change. */
export type AppSettingsRecord = {
  name: string;
  address: string;
  /** The supplier's tax registration (VAT) number printed on its bills; '' for none. */
  taxNumber: string;
  timeZone: string;
  currency: string;
  minorUnits: number;
  rounding: RoundingMode;
  testApp: boolean;
  lateCharge: LateCharge;
};

export type AppRecord = AppSettingsRecord & {
  appCode: number;
  /** The app's clock: its now (yyyy-mm-ddThh:mm:ss in its time zone), today and how far ahead of real time. */
  clock: { now: string; today: string; aheadSeconds: number };
  /** Whether money has been recorded (a bill or a ledger entry): currency and minor units are then fixed. */
  moneyRecorded: boolean;
};

type AppRow = {
  app_code: number;
  name: string;
  address: string;
  tax_number: string;
  time_zone: string;
  currency: string;
  minor_units: number;
  rounding_mode: RoundingMode;
  is_test: boolean;
  ahead_seconds: string;
  clock_now: string;
  today: string;
  late_charge_grace_days: number;
  late_charge_kind: LateChargeKind;
  late_charge_amount: string;
  late_charge_minimum: string | null;
  late_charge_maximum: string | null;
  money_recorded: boolean;
};

const SELECT_APP = `SELECT a.app_code, a.name, coalesce(a.address, '') AS address, coalesce(a.tax_number, '') AS tax_number, a.time_zone, a.currency, a.minor_units, a.rounding_mode, a.is_test,
         extract(epoch FROM a.clock_offset)::bigint AS ahead_seconds,
         to_char(${nowSql()} AT TIME ZONE a.time_zone, 'YYYY-MM-DD"T"HH24:MI:SS') AS clock_now, ${todaySql()} AS today,
         a.late_charge_grace_days, a.late_charge_kind, a.late_charge_amount::text, a.late_charge_minimum::text, a.late_charge_maximum::text,
         (EXISTS (SELECT 1 FROM bill b WHERE b.app_code = a.app_code) OR EXISTS (SELECT 1 FROM ledger_entry e WHERE e.app_code = a.app_code)) AS money_recorded
    FROM app a WHERE a.app_code = $1`;

const settingsOf = (r: AppRow): AppSettingsRecord => ({
  name: r.name,
  address: r.address,
  taxNumber: r.tax_number,
  timeZone: r.time_zone,
  currency: r.currency,
  minorUnits: r.minor_units,
  rounding: r.rounding_mode,
  testApp: r.is_test,
  lateCharge: {
    graceDays: r.late_charge_grace_days,
    kind: r.late_charge_kind,
    amount: r.late_charge_amount,
    minimum: r.late_charge_minimum,
    maximum: r.late_charge_maximum,
  },
});

const recordOf = (r: AppRow): AppRecord => ({
  appCode: r.app_code,
  ...settingsOf(r),
  clock: { now: r.clock_now, today: formatDate(r.today), aheadSeconds: Number(r.ahead_seconds) },
  moneyRecorded: r.money_recorded,
});

async function readRow(db: Queryable, appCode: number, lock = false): Promise<AppRow> {
  const r = await db.query<AppRow>(lock ? `${SELECT_APP} FOR UPDATE OF a` : SELECT_APP, [appCode]);
  if (!r.rows[0]) throw notFound('app');
  return r.rows[0];
}

export async function readAppRecord(db: Queryable, appCode: number): Promise<AppRecord> {
  return recordOf(await readRow(db, appCode));
}

/** The audit's picture of the app: its settings and how far its clock is ahead. */
export async function auditPicture(db: Queryable, appCode: number): Promise<AppSettingsRecord & { clockAheadSeconds: number }> {
  const r = await readRow(db, appCode);
  return { ...settingsOf(r), clockAheadSeconds: Number(r.ahead_seconds) };
}

export type AppChange = {
  name?: string | undefined;
  address?: string | undefined;
  taxNumber?: string | undefined;
  timeZone?: string | undefined;
  currency?: string | undefined;
  minorUnits?: number | undefined;
  rounding?: string | undefined;
  testApp?: boolean | undefined;
  lateCharge?: { graceDays: number; kind: string; amount?: string | undefined; minimum?: string | null | undefined; maximum?: string | null | undefined } | undefined;
};

/** The checks every setting has, whoever sets it; problems named by `at` (data.timeZone, --time-zone). */
export function checkSettings(c: AppChange, minorUnits: number, at: (field: string) => string = (f) => `data.${f}`): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  if (c.name !== undefined && c.name.trim() === '') issues.push({ path: at('name'), message: 'must not be empty' });
  if (c.timeZone !== undefined && !isTimeZone(c.timeZone)) issues.push({ path: at('timeZone'), message: TIME_ZONE_MESSAGE });
  if (c.currency !== undefined && !isCurrency(c.currency)) issues.push({ path: at('currency'), message: CURRENCY_MESSAGE });
  if (c.minorUnits !== undefined && !(Number.isInteger(c.minorUnits) && c.minorUnits >= MINOR_UNITS.minimum && c.minorUnits <= MINOR_UNITS.maximum)) {
    issues.push({ path: at('minorUnits'), message: `must be a whole number from ${MINOR_UNITS.minimum} to ${MINOR_UNITS.maximum}` });
  }
  if (c.rounding !== undefined && !isRounding(c.rounding)) issues.push({ path: at('rounding'), message: ROUNDING_MESSAGE });
  const l = c.lateCharge;
  if (l) {
    // Each amount as the ledger reads one a client sent (more than 0, no finer than the minor unit, below 10^15).
    const money = (field: 'amount' | 'minimum' | 'maximum', v: string | null | undefined, decimals: number) =>
      v === null || v === undefined ? null : readAmount(v, decimals, at(`lateCharge.${field}`), issues);
    if (!(LATE_CHARGE_KINDS as readonly string[]).includes(l.kind)) issues.push({ path: at('lateCharge.kind'), message: `must be one of ${LATE_CHARGE_KINDS.join(', ')}` });
    if (!(Number.isInteger(l.graceDays) && l.graceDays >= 0 && l.graceDays <= 365)) issues.push({ path: at('lateCharge.graceDays'), message: 'must be a whole number of days from 0 to 365' });
    if (l.kind === 'none') {
      if (l.amount !== undefined && !(DECIMAL_TEXT.test(l.amount) && new Dec(l.amount).isZero())) issues.push({ path: at('lateCharge.amount'), message: 'must be 0 (or left out) when kind is none' });
    } else if (l.amount === undefined) {
      issues.push({ path: at('lateCharge.amount'), message: `is required when kind is ${l.kind}` });
    }
    const amount = l.kind === 'none' ? null : money('amount', l.amount, l.kind === 'percentage' ? 4 : minorUnits);
    const min = money('minimum', l.minimum, minorUnits);
    const max = money('maximum', l.maximum, minorUnits);
    if (l.kind === 'percentage' && amount && amount.gt(100)) issues.push({ path: at('lateCharge.amount'), message: 'a percentage must be at most 100' });
    if (min && max && min.gt(max)) issues.push({ path: at('lateCharge.maximum'), message: 'must not be below minimum' });
  }
  return issues;
}

/**
 * A zone PostgreSQL cannot read, as the detail that says so (null when it can). The app's
 * clock is PostgreSQL's (its local times, its today), and the platform's Intl still knows
 * names the database's tz data retired: US/Pacific-New passed isTimeZone and failed at the
 * database, a 500 (an outside review). Names compare as PostgreSQL's do, without case.
 */
export async function timeZoneUnknownToDatabase(db: Queryable, timeZone: string, path: string): Promise<ErrorDetail | null> {
  const r = await db.query('SELECT 1 FROM pg_timezone_names WHERE lower(name) = lower($1) LIMIT 1', [timeZone]);
  return r.rowCount === 0 ? { path, message: `${TIME_ZONE_MESSAGE}: the database does not know "${timeZone}"` } : null;
}

/**
 * Holds the app's settings (rounding, currency, minor units) while a step reads them into a
 * term's preview or approves it: update-app locks the app row to change them and then looks
 * at the terms, so a validation or approval committed in between was not seen (a reviewer).
 */
export async function holdAppSettings(tx: Queryable, appCode: number): Promise<void> {
  await tx.query('SELECT 1 FROM app WHERE app_code = $1 FOR SHARE', [appCode]);
}

/**
 * update-app: changes what is given; currency and minor units only while no money is recorded.
 * Answers the ids of the Validated terms the change sent back to Loaded (to be validated again), in id order.
 */
export async function updateApp(db: pg.Pool, appCode: number, actor: Actor, c: AppChange): Promise<string[]> {
  return inTransaction(db, async (tx) => {
    const revalidate: string[] = [];
    const row = await readRow(tx, appCode, true);
    const before = { ...settingsOf(row), clockAheadSeconds: Number(row.ahead_seconds) };
    const issues = checkSettings(c, c.minorUnits ?? row.minor_units);
    if (issues.length > 0) throw validationFailed(issues);
    const zone = c.timeZone === undefined ? null : await timeZoneUnknownToDatabase(tx, c.timeZone, 'data.timeZone');
    if (zone !== null) throw validationFailed([zone]);
    const moneyFixed: ErrorDetail[] = [];
    if (c.currency !== undefined && c.currency !== row.currency) moneyFixed.push({ path: 'data.currency', message: 'cannot change once a bill or ledger entry exists' });
    if (c.minorUnits !== undefined && c.minorUnits !== row.minor_units) moneyFixed.push({ path: 'data.minorUnits', message: 'cannot change once a bill or ledger entry exists' });
    if (moneyFixed.length > 0 && row.money_recorded) {
      throw new AppError('INVALID_STATE', "The app has bills or ledger entries in its currency: its currency and minor units are fixed.", moneyFixed);
    }
    // A term approved on its preview is billed by the rounding and currency the preview was
    // made with: changed after, its bills no longer match what was approved (an outside check:
    // approved at -0.002 under floor, billed 0.000 under ceil; 12.49 approved, 12 billed as JPY).
    const rated: ErrorDetail[] = [];
    // Processed counts too: retry-failures bills its failures by the settings of the approval (an outside check read "not yet billed" beside a Processed term).
    const holdsThem = 'cannot change while a term is between approval and posting';
    if (c.rounding !== undefined && c.rounding !== row.rounding_mode) rated.push({ path: 'data.rounding', message: holdsThem });
    for (const d of moneyFixed) rated.push({ path: d.path, message: holdsThem });
    if (rated.length > 0) {
      const held = await tx.query<{ term_id: string; status: string; label: string }>(
        `SELECT term_id, status, label FROM term WHERE app_code = $1 AND status IN ('Approved', 'Scheduled', 'Processing', 'Processed', 'Failed') ORDER BY term_id LIMIT 1`,
        [appCode],
      );
      const t = held.rows[0];
      if (t !== undefined) {
        throw new AppError(
          'CONFLICT',
          `Term ${t.term_id} (${t.label}) is ${t.status}: its bills are made by the rounding, currency and minor units its preview was approved with. ` +
            'Change them when no term is between approval and posting: cancel an Approved, Scheduled or Failed term, post or reverse a Processed one.',
          rated,
        );
      }
      // A Validated term's preview was made with the settings before: it is to be validated
      // again (back to Loaded), as a tariff version dated inside it does (templates.md).
      const validated = await tx.query<{ term_id: string }>(`SELECT term_id FROM term WHERE app_code = $1 AND status = 'Validated' ORDER BY term_id FOR UPDATE`, [appCode]);
      for (const v of validated.rows) {
        await markTariffDated(tx, v.term_id, moveTerm('Validated', 'invalidate'), actor.email);
        revalidate.push(v.term_id);
      }
    }
    if (c.minorUnits !== undefined && c.minorUnits < row.minor_units && c.lateCharge === undefined) {
      // The stored late-charge amounts must still fit the new minor units.
      const kept = checkSettings({ lateCharge: before.lateCharge }, c.minorUnits);
      if (kept.length > 0) throw validationFailed(kept.map((d) => ({ path: d.path, message: `${d.message} (the stored late charge, with the new minorUnits)` })));
    }
    if (c.minorUnits !== undefined && c.minorUnits < row.minor_units) {
      // Every pricing template's rounding increments (any version: an old one still bills its
      // days), archived templates left out: they bill no new term, and a version cannot be
      // changed, so one would block the change for good (a reviewer's finding).
      const versions = await tx.query<{ code: string; version: number; definition: { components?: { model: string }[]; values?: { code: string; value: unknown }[] } }>(
        `SELECT s.service_code AS code, v.version, v.definition FROM service s JOIN service_version v USING (service_id)
          WHERE s.app_code = $1 AND s.archive_status = 0 AND v.definition->'components' @> '[{"model": "totalRounding"}]' ORDER BY s.service_code, v.version`,
        [appCode],
      );
      for (const v of versions.rows) {
        const finer = incrementIssues(v.definition.components ?? [], v.definition.values ?? [], c.minorUnits);
        if (finer.length > 0) {
          throw validationFailed([
            { path: 'data.minorUnits', message: `pricing template ${v.code} (version ${v.version}) rounds to an increment finer than ${c.minorUnits} decimals: ${finer[0]!.message}` },
          ]);
        }
      }
    }
    if (c.testApp === false && row.is_test && Number(row.ahead_seconds) > 0) {
      throw new AppError('INVALID_STATE', 'The app\'s clock is ahead of real time: a live app cannot run on it, so the app stays a test app.', [
        { path: 'data.testApp', message: 'the clock has been moved forward' },
      ]);
    }
    const l = c.lateCharge;
    await tx.query(
      `UPDATE app SET name = coalesce($2, name), address = coalesce($3, address), time_zone = coalesce($4, time_zone),
              currency = coalesce($5, currency), minor_units = coalesce($6, minor_units), rounding_mode = coalesce($7, rounding_mode),
              is_test = coalesce($8, is_test),
              late_charge_grace_days = CASE WHEN $9 THEN $10 ELSE late_charge_grace_days END,
              late_charge_kind = CASE WHEN $9 THEN $11 ELSE late_charge_kind END,
              late_charge_amount = CASE WHEN $9 THEN $12::numeric ELSE late_charge_amount END,
              late_charge_minimum = CASE WHEN $9 THEN $13::numeric ELSE late_charge_minimum END,
              late_charge_maximum = CASE WHEN $9 THEN $14::numeric ELSE late_charge_maximum END,
              tax_number = CASE WHEN $15::text IS NULL THEN tax_number ELSE nullif($15, '') END
        WHERE app_code = $1`,
      [
        appCode,
        c.name?.trim() ?? null,
        c.address ?? null,
        c.timeZone ?? null,
        c.currency ?? null,
        c.minorUnits ?? null,
        c.rounding ?? null,
        c.testApp ?? null,
        l !== undefined,
        l?.graceDays ?? 0,
        l?.kind ?? 'none',
        l?.amount ?? '0',
        l?.minimum ?? null,
        l?.maximum ?? null,
        c.taxNumber?.trim() ?? null,
      ],
    );
    const after = await auditPicture(tx, appCode);
    // A request that changes nothing (the same values again) leaves no entry.
    if (JSON.stringify(after) !== JSON.stringify(before)) await writeAudit(tx, appCode, actor, 'app.update', 'app', before, revalidate.length > 0 ? { ...after, termsToValidateAgain: revalidate.map(Number) } : after);
    return revalidate;
  });
}

/** app add (the command line): a new app, checked by the same rules, with its audit entry. */
export async function makeApp(
  db: pg.Pool,
  actor: Actor,
  s: { name: string; timeZone: string; currency: string; minorUnits: number; rounding: string; testApp: boolean },
  at?: (field: string) => string,
): Promise<number> {
  const issues = checkSettings(s, s.minorUnits, at);
  if (issues.length > 0) throw validationFailed(issues);
  const zone = await timeZoneUnknownToDatabase(db, s.timeZone, at ? at('timeZone') : 'data.timeZone');
  if (zone !== null) throw validationFailed([zone]);
  return inTransaction(db, async (tx) => {
    const r = await tx.query<{ app_code: number }>(
      'INSERT INTO app (name, time_zone, currency, minor_units, rounding_mode, is_test) VALUES ($1, $2, $3, $4, $5, $6) RETURNING app_code',
      [s.name.trim(), s.timeZone, s.currency, s.minorUnits, s.rounding, s.testApp],
    );
    const appCode = r.rows[0]!.app_code;
    await writeAudit(tx, appCode, actor, 'app.make', 'app', null, await auditPicture(tx, appCode));
    return appCode;
  });
}
