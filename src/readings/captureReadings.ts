import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { MeteredInput } from '../rating/tariff.ts';
import { loadTemplates } from '../templates/context.ts';
import type { ChainResult } from './rules.ts';
import { lockSubscriptions, writeReadings, type ReadingWrite } from './write.ts';

export type ReadingInput = {
  subscriptionID: number;
  inputCode: string;
  readingDate: string;
  value: string | number;
  kind?: 'actual' | 'estimated';
  source?: string;
  note?: string;
};

/** Metered inputs by template id, then code. */
export async function metersOf(db: Queryable, appCode: number, serviceIds: string[]): Promise<Map<string, Map<string, MeteredInput>>> {
  const ts = await loadTemplates(db, appCode, { ids: [...new Set(serviceIds)] });
  return new Map(ts.map((t) => [t.serviceId, new Map(t.meteredInputs.map((m) => [m.code, m]))]));
}

/**
 * Records readings, all or none. Each must be of a metered input of the subscription's
 * template; the rest is write.ts's: within its dates and not in the future, on a date of
 * its own, and fitting between the readings before and after it (a lower value is
 * accepted only as a roll-over of the meter). Answers each reading's id and consumption
 * kind, in the order given.
 */
export async function captureReadings(db: pg.Pool, caller: Caller, readings: ReadingInput[]): Promise<{ ids: string[]; results: ChainResult[] }> {
  return inTransaction(db, async (tx) => {
    const subs = await lockSubscriptions(tx, caller.appCode, readings.map((r) => String(r.subscriptionID)));
    const missing: ErrorDetail[] = [];
    readings.forEach((r, i) => {
      if (!subs.has(String(r.subscriptionID))) missing.push({ path: `data.readings[${i}].subscriptionID`, message: 'no subscription with this value' });
    });
    if (missing.length > 0) throw new AppError('NOT_FOUND', 'subscription was not found.', missing);
    const meters = await metersOf(tx, caller.appCode, [...subs.values()].map((s) => s.service_id));
    const issues: (ErrorDetail & { i: number })[] = [];
    const writes: ReadingWrite[] = [];
    const order: number[] = [];
    readings.forEach((r, i) => {
      const at = (f: string) => `data.readings[${i}].${f}`;
      const s = subs.get(String(r.subscriptionID))!;
      const meter = meters.get(s.service_id)?.get(r.inputCode);
      if (!meter) {
        issues.push({ i, path: at('inputCode'), message: `is not a metered input of the subscription's pricing template` });
        return;
      }
      order.push(i);
      writes.push({ subscriptionId: s.subscription_id, meter, readingDate: r.readingDate, value: r.value, kind: r.kind ?? 'actual', source: r.source ?? 'api', note: r.note ?? null, at });
    });
    const out = await writeReadings(tx, caller.appCode, caller.email, subs, writes, { sameDay: 'refuse', write: issues.length > 0 ? 'none' : 'all-or-none' });
    const all = [...issues, ...out.issues.map((x) => ({ path: x.path, message: x.message, i: order[x.index]! }))].sort((a, b) => a.i - b.i);
    if (all.length > 0) throw new AppError('VALIDATION_FAILED', 'Some readings are not valid; none was recorded.', all.map(({ path, message }) => ({ path, message })));
    return { ids: out.ids, results: out.results };
  });
}
