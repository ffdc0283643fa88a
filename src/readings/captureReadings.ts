import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError, type ErrorDetail } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { MeteredInput } from '../rating/tariff.ts';
import { loadTemplates } from '../subscriptions/templateContext.ts';
import { DATE_MESSAGE, formatDate, parseDate } from '../subscriptions/dates.ts';
import { checkReadingValue, fitReadings, type ChainPoint, type ChainResult } from './rules.ts';
import { effectiveReadings, insertReadings, type NewReading } from './store.ts';

export type ReadingInput = {
  subscriptionID: number;
  inputCode: string;
  readingDate: string;
  value: string | number;
  kind?: 'actual' | 'estimated';
  source?: string;
  note?: string;
};

export type MeterSubscription = { subscription_id: string; service_id: string; start_date: string; end_date: string | null; status: string };

/** Subscriptions of the app by id, locked so that two captures of one meter never interleave. */
export async function lockMeterSubscriptions(db: Queryable, appCode: number, ids: string[]): Promise<Map<string, MeterSubscription>> {
  const r = await db.query<MeterSubscription>(
    `SELECT subscription_id, service_id, start_date, end_date, status FROM subscription
      WHERE app_code = $1 AND subscription_id = ANY($2::bigint[]) ORDER BY subscription_id FOR UPDATE`,
    [appCode, ids],
  );
  return new Map(r.rows.map((x) => [x.subscription_id, x]));
}

/** Metered inputs by template id, then code. */
export async function metersOf(db: Queryable, appCode: number, serviceIds: string[]): Promise<Map<string, Map<string, MeteredInput>>> {
  const ts = await loadTemplates(db, appCode, { ids: [...new Set(serviceIds)] });
  return new Map(ts.map((t) => [t.serviceId, new Map(t.meteredInputs.map((m) => [m.code, m]))]));
}

export function checkReadingDate(s: MeterSubscription, raw: unknown, path: string, issues: ErrorDetail[]): string | null {
  const d = parseDate(raw);
  if (d === null) {
    issues.push({ path, message: raw === undefined || raw === '' || raw === null ? 'is required' : DATE_MESSAGE });
    return null;
  }
  if (d < s.start_date) {
    issues.push({ path, message: `must not be before the subscription's startDate ${formatDate(s.start_date)}` });
    return null;
  }
  if (s.end_date !== null && d > s.end_date) {
    issues.push({ path, message: `must not be after the subscription's endDate ${formatDate(s.end_date)}` });
    return null;
  }
  return d;
}

/** Fits each group of new readings (one subscription's meter) among its effective readings. */
export async function fitGroups(
  db: Queryable,
  groups: Map<string, { subscriptionId: string; meter: MeteredInput; points: (ChainPoint & { index: number })[] }>,
  issues: ErrorDetail[],
  results: ChainResult[],
): Promise<void> {
  const ids = [...new Set([...groups.values()].map((g) => g.subscriptionId))];
  const history = new Map<string, ChainPoint[]>();
  for (const r of await effectiveReadings(db, ids)) {
    const key = `${r.subscription_id}|${r.input_code}`;
    let h = history.get(key);
    if (!h) history.set(key, (h = []));
    h.push({ readingId: r.reading_id, date: r.reading_date, value: r.value });
  }
  for (const [key, g] of groups) {
    const fitted = fitReadings(g.meter, history.get(key) ?? [], g.points, issues);
    fitted.forEach((f, i) => (results[g.points[i]!.index] = f));
  }
}

/**
 * Records readings, all or none. Each must be of a metered input of the subscription's
 * template, within its dates, on a date of its own, and fit between the readings before
 * and after it: a lower value is accepted only as a roll-over of the meter. Answers each
 * reading's id and consumption kind, in the order given.
 */
export async function captureReadings(db: pg.Pool, caller: Caller, readings: ReadingInput[]): Promise<{ ids: string[]; results: ChainResult[] }> {
  return inTransaction(db, async (tx) => {
    const subs = await lockMeterSubscriptions(tx, caller.appCode, [...new Set(readings.map((r) => String(r.subscriptionID)))]);
    const missing: ErrorDetail[] = [];
    readings.forEach((r, i) => {
      if (!subs.has(String(r.subscriptionID))) missing.push({ path: `data.readings[${i}].subscriptionID`, message: 'no subscription with this value' });
    });
    if (missing.length > 0) throw new AppError('NOT_FOUND', 'subscription was not found.', missing);
    const meters = await metersOf(tx, caller.appCode, [...subs.values()].map((s) => s.service_id));
    const issues: ErrorDetail[] = [];
    const rows: NewReading[] = [];
    const groups = new Map<string, { subscriptionId: string; meter: MeteredInput; points: (ChainPoint & { index: number })[] }>();
    readings.forEach((r, i) => {
      const at = (f: string) => `data.readings[${i}].${f}`;
      const s = subs.get(String(r.subscriptionID))!;
      const meter = meters.get(s.service_id)?.get(r.inputCode);
      if (!meter) {
        issues.push({ path: at('inputCode'), message: `is not a metered input of the subscription's pricing template` });
        return;
      }
      const date = checkReadingDate(s, r.readingDate, at('readingDate'), issues);
      const value = checkReadingValue(meter, r.value, at('value'), issues);
      if (date === null || value === null) return;
      const key = `${s.subscription_id}|${meter.code}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { subscriptionId: s.subscription_id, meter, points: [] }));
      g.points.push({ date, value, path: at('value'), index: rows.length });
      rows.push({ subscriptionId: s.subscription_id, inputCode: meter.code, date, value, kind: r.kind ?? 'actual', source: r.source ?? 'api', note: r.note ?? null });
    });
    const results: ChainResult[] = rows.map(() => ({ kind: 'first', quantity: null }));
    await fitGroups(tx, groups, issues, results);
    if (issues.length > 0) throw new AppError('VALIDATION_FAILED', 'Some readings are not valid; none was recorded.', issues);
    const ids = await insertReadings(tx, caller.appCode, rows, caller.email);
    return { ids, results };
  });
}
