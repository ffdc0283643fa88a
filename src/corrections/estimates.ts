// The cascade from estimates: a subscription's actual reading has arrived after bills
// that used estimated readings. get-estimated-bills lists, per meter, the last actual
// reading, the actual one before it, the estimates between them (with the value the
// spread gives each) and the estimated bills whose periods reach past the previous actual
// reading, made before the actual reading arrived or reading an estimate the spread
// changes (a bill made after it whose previous reading is the last estimate);
// rebill-estimates records the
// spread values as corrections of the estimates (readings/write.ts, kind 'estimated',
// source 'spread') and cancels those bills, then rebills them oldest term first, in one
// transaction, so each period bills its share of what the meter really measured.
import type pg from 'pg';
import type { Queryable } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import { AppError, invalidState, notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appToday, formatDate } from '../calendar/calendar.ts';
import { Dec, moneyText } from '../rating/money.ts';
import { lockTerm } from '../billRun/termStore.ts';
import type { TermRow } from '../billRun/termStore.ts';
import { metersOf } from '../readings/captureReadings.ts';
import type { MeteredInput } from '../rating/tariff.ts';
import { lockSubscriptions, writeReadings, type ReadingWrite } from '../readings/write.ts';
import { compareIds } from '../settlement/core.ts';
import { correctBills, correctionSummary, type TermBills } from './correctBills.ts';
import { lockBills } from './store.ts';
import { decodeStored, loadPrototypes } from '../billLines/storedLines.ts';
import type { BillSource } from '../billRun/billSource.ts';
import { refuseUncancellable } from './cancelBill.ts';
import { spreadReadings, SpreadError } from './spread.ts';

type MeterPlan = {
  inputCode: string;
  actual: { readingId: string; date: string; value: string; createdAt: string };
  previousActual: { readingId: string; date: string; value: string } | null;
  estimates: { readingId: string; date: string; value: string }[];
  /** Each estimate's spread value (spreadOf), or why there is none. */
  spread: { values: Map<string, string>; problem: string | null };
};

type EstimatedBill = { bill_id: string; bill_number: string; term_id: string; period_start: string; period_end: string; total: string; bill_date: string };

/** `inputs`: the template's metered inputs by code (their decimals spread, their rules write the spread readings). */
type Plan = { serviceId: string; minorUnits: number; inputs: Map<string, MeteredInput> | undefined; meters: MeterPlan[]; bills: EstimatedBill[] };

async function planOf(db: Queryable, appCode: number, subscriptionId: number): Promise<Plan> {
  const s = await db.query<{ service_id: string; minor_units: number }>(
    'SELECT s.service_id, a.minor_units FROM subscription s JOIN app a ON a.app_code = s.app_code WHERE s.app_code = $1 AND s.subscription_id = $2',
    [appCode, subscriptionId],
  );
  if (s.rowCount === 0) throw notFound('subscription', 'data.subscriptionID');
  const r = await db.query<{
    input_code: string;
    a_id: string;
    a_date: string;
    a_value: string;
    a_created: string;
    p_id: string | null;
    p_date: string | null;
    p_value: string | null;
    estimates: { reading_id: number; reading_date: string; value: string }[] | null;
  }>(
    `WITH eff AS (
       SELECT r.reading_id, r.input_code, r.reading_date, r.value, r.kind, r.created_at FROM reading r
        WHERE r.app_code = $1 AND r.subscription_id = $2
          AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)),
     a AS (SELECT DISTINCT ON (input_code) * FROM eff WHERE kind = 'actual' ORDER BY input_code, reading_date DESC, reading_id DESC)
     SELECT a.input_code, a.reading_id AS a_id, a.reading_date AS a_date, trim_scale(a.value) AS a_value, a.created_at::text AS a_created,
            p.reading_id AS p_id, p.reading_date AS p_date, trim_scale(p.value) AS p_value,
            (SELECT json_agg(json_build_object('reading_id', e.reading_id, 'reading_date', e.reading_date, 'value', trim_scale(e.value)::text) ORDER BY e.reading_date)
               FROM eff e WHERE e.input_code = a.input_code AND e.kind = 'estimated' AND e.reading_date < a.reading_date
                AND (p.reading_date IS NULL OR e.reading_date > p.reading_date)) AS estimates
       FROM a
       LEFT JOIN LATERAL (SELECT * FROM eff WHERE eff.input_code = a.input_code AND eff.kind = 'actual' AND eff.reading_date < a.reading_date
                           ORDER BY eff.reading_date DESC, eff.reading_id DESC LIMIT 1) p ON true
      ORDER BY a.input_code`,
    [appCode, subscriptionId],
  );
  const serviceId = s.rows[0]!.service_id;
  const inputs = (await metersOf(db, appCode, [serviceId])).get(serviceId);
  const isDemand = (code: string) => inputs?.get(code)?.register === 'maximum';
  const meters: MeterPlan[] = r.rows.map((m) => ({
    inputCode: m.input_code,
    actual: { readingId: m.a_id, date: m.a_date, value: m.a_value, createdAt: m.a_created },
    previousActual: m.p_id === null ? null : { readingId: m.p_id, date: m.p_date!, value: m.p_value! },
    // A demand register's estimates are not spread: a later actual demand says nothing of an
    // earlier period's (docs/corrections.md).
    estimates: isDemand(m.input_code) ? [] : (m.estimates ?? []).map((e) => ({ readingId: String(e.reading_id), date: e.reading_date, value: String(e.value) })),
    spread: { values: new Map(), problem: null },
  }));
  for (const m of meters) m.spread = spreadOf(m, inputs?.get(m.inputCode)?.decimals ?? 0);
  const bills = new Map<string, EstimatedBill>();
  for (const m of meters) {
    if (isDemand(m.inputCode)) {
      for (const x of await demandReplaced(db, appCode, subscriptionId, m.inputCode)) bills.set(x.bill_id, x);
      continue;
    }
    // The estimated bills of the meter's period since the previous actual reading: those
    // made before the actual reading arrived, and those made after it that read one of
    // the estimates the spread changes (a bill whose previous reading is the last
    // estimate: its consumption changes with it). A rebill of an earlier cascade reads
    // the spread values themselves, which spread again to the same: not listed again.
    const b = await db.query<EstimatedBill & { before_actual: boolean; source: unknown }>(
      `SELECT bill_id, bill_number, term_id, period_start, period_end, total, bill_date,
              created_at < $3::timestamptz AS before_actual, CASE WHEN created_at < $3::timestamptz THEN NULL ELSE source END AS source
         FROM bill
        WHERE app_code = $1 AND subscription_id = $2 AND status = 'posted' AND estimated
          AND period_start <= $4::date AND ($5::date IS NULL OR period_end > $5::date)
        ORDER BY period_start, bill_id`,
      [appCode, subscriptionId, m.actual.createdAt, m.actual.date, m.previousActual?.date ?? null],
    );
    const changed = new Set(m.estimates.filter((e) => m.spread.values.has(e.readingId) && !new Dec(m.spread.values.get(e.readingId)!).eq(e.value)).map((e) => e.readingId));
    await loadPrototypes(db, b.rows.map((x) => x.source));
    for (const { before_actual, source, ...x } of b.rows) {
      const read = source === null ? undefined : decodeStored<BillSource>(source).readings?.[m.inputCode];
      if (before_actual || (read !== undefined && (changed.has(read.previous) || (read.current !== null && changed.has(read.current))))) bills.set(x.bill_id, x);
    }
  }
  return {
    serviceId,
    minorUnits: s.rows[0]!.minor_units,
    inputs,
    meters,
    bills: [...bills.values()].sort((x, y) => (x.period_start < y.period_start ? -1 : x.period_start > y.period_start ? 1 : compareIds(x.bill_id, y.bill_id))),
  };
}

/**
 * A demand register's part of the cascade: the posted estimated bills of the subscription that
 * billed an estimated demand since replaced by another reading (correct-reading: the actual
 * read for that day), or were held by a ratchet to one, which a rebill reads. An estimate still in force is left as it is.
 */
async function demandReplaced(db: Queryable, appCode: number, subscriptionId: number, code: string): Promise<EstimatedBill[]> {
  const replaced = await db.query<{ reading_id: string }>(
    `SELECT r.reading_id FROM reading r
      WHERE r.subscription_id = $1 AND r.input_code = $2 AND r.kind = 'estimated'
        AND EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)`,
    [subscriptionId, code],
  );
  if (replaced.rowCount === 0) return [];
  const ids = new Set(replaced.rows.map((x) => x.reading_id));
  const b = await db.query<EstimatedBill & { source: unknown }>(
    `SELECT bill_id, bill_number, term_id, period_start, period_end, total, bill_date, source
       FROM bill WHERE app_code = $1 AND subscription_id = $2 AND status = 'posted' AND estimated ORDER BY period_start, bill_id`,
    [appCode, subscriptionId],
  );
  await loadPrototypes(db, b.rows.map((x) => x.source));
  return b.rows
    .filter((x) => {
      const read = x.source === null ? undefined : decodeStored<BillSource>(x.source).readings?.[code];
      // The demand billed, or the estimated demand a ratchet held it to (a reviewer: a bill held to an estimated June was never listed).
      return (
        read !== undefined &&
        ((read.current !== null && ids.has(read.current)) || (read.highest !== undefined && ids.has(read.highest)) || Object.values(read.ratchet ?? {}).some((id) => id !== null && ids.has(id)))
      );
    })
    .map(({ source: _, ...x }) => x);
}

/** Each estimate's spread value, or null (and why) when the meter's readings cannot be spread. */
function spreadOf(m: MeterPlan, decimals: number): { values: Map<string, string>; problem: string | null } {
  if (m.estimates.length === 0) return { values: new Map(), problem: null };
  if (m.previousActual === null) return { values: new Map(), problem: `meter ${m.inputCode} has no actual reading before the estimates to spread from` };
  try {
    const spread = spreadReadings(m.previousActual, m.actual, m.estimates.map((e) => e.date), decimals);
    return { values: new Map(m.estimates.map((e, i) => [e.readingId, spread[i]!.value])), problem: null };
  } catch (err) {
    if (err instanceof SpreadError) return { values: new Map(), problem: `meter ${m.inputCode}: ${err.message}` };
    throw err;
  }
}

const point = (p: { readingId: string; date: string; value: string }) => ({ readingID: Number(p.readingId), readingDate: formatDate(p.date), value: p.value });

/** get-estimated-bills: what rebill-estimates would do for this subscription. */
export async function getEstimatedBills(db: Queryable, caller: Caller, d: { subscriptionID: number }) {
  const plan = await planOf(db, caller.appCode, d.subscriptionID);
  return {
    subscriptionID: d.subscriptionID,
    meters: plan.meters.map((m) => {
      const s = m.spread;
      return {
        inputCode: m.inputCode,
        lastActual: point(m.actual),
        previousActual: m.previousActual === null ? null : point(m.previousActual),
        estimates: m.estimates.map((e) => ({ ...point(e), spreadValue: s.values.get(e.readingId) ?? null })),
        problem: s.problem,
      };
    }),
    bills: plan.bills.map((b) => ({
      billID: Number(b.bill_id),
      billNumber: Number(b.bill_number),
      termID: Number(b.term_id),
      periodStart: formatDate(b.period_start),
      periodEnd: formatDate(b.period_end),
      total: moneyText(b.total, plan.minorUnits),
    })),
  };
}

/** rebill-estimates: the spread readings recorded and the estimated bills cancelled and rebilled, in one step. */
export async function rebillEstimates(db: pg.Pool, caller: Caller, d: { subscriptionID: number; reason: string }) {
  return inTransaction(db, async (tx) => {
    const first = await planOf(tx, caller.appCode, d.subscriptionID);
    if (first.bills.length === 0) throw invalidState('The subscription has no estimated bill made before its last actual reading.', 'data.subscriptionID');
    // Lock order as everywhere: terms (in id order), then the subscription, then bills and accounts.
    const termIds = [...new Set(first.bills.map((b) => b.term_id))].sort(compareIds);
    const terms: TermRow[] = [];
    for (const id of termIds) terms.push((await lockTerm(tx, caller.appCode, id))!);
    const subs = await lockSubscriptions(tx, caller.appCode, [String(d.subscriptionID)]);
    // Read again under the locks: another correction may have run meanwhile.
    const plan = await planOf(tx, caller.appCode, d.subscriptionID);
    if (plan.bills.length === 0) throw invalidState('The subscription has no estimated bill made before its last actual reading.', 'data.subscriptionID');

    const writes: ReadingWrite[] = [];
    for (const m of plan.meters) {
      const meter = plan.inputs?.get(m.inputCode);
      if (!meter || m.estimates.length === 0) continue;
      const s = m.spread;
      if (s.problem !== null) throw invalidState(`The estimates cannot be spread: ${s.problem}.`, 'data.subscriptionID');
      const note = `spread from the actual readings of ${formatDate(m.previousActual!.date)} and ${formatDate(m.actual.date)}`;
      for (const e of m.estimates) {
        writes.push({
          subscriptionId: String(d.subscriptionID),
          meter,
          readingDate: e.date,
          value: s.values.get(e.readingId)!,
          kind: 'estimated',
          source: 'spread',
          note,
          corrects: e.readingId,
          at: (f) => `data.subscriptionID (${m.inputCode} estimate of ${formatDate(e.date)}: ${f})`,
        });
      }
    }
    const out = await writeReadings(tx, caller.appCode, caller.email, subs, writes, { sameDay: 'refuse', write: 'all-or-none' });
    if (out.issues.length > 0) throw new AppError('VALIDATION_FAILED', 'The spread readings do not fit the meter.', out.issues.map(({ path, message }) => ({ path, message })));

    // Every bill cancelled first, then the terms rebilled oldest period first
    // (correctBills), so each rebill brings forward the rebills before it and none of
    // the bills this step cancels.
    const today = await appToday(tx, caller.appCode);
    const byTerm = new Map(terms.map((t) => [t.term_id, t]));
    const locked = await lockBills(tx, caller.appCode, plan.bills.map((b) => b.bill_id), today);
    for (const b of locked) refuseUncancellable(b, 'data.subscriptionID');
    const groups: TermBills[] = [];
    for (const termId of new Set(plan.bills.map((b) => b.term_id))) {
      const term = byTerm.get(termId);
      if (!term) throw invalidState('Another correction changed these bills meanwhile; try again.', 'data.subscriptionID');
      groups.push({ term, bills: locked.filter((b) => b.term_id === termId) });
    }
    const corrected = await correctBills(tx, groups, { reason: d.reason, rebill: true, origin: 'estimates', by: caller.email, at: 'data.subscriptionID' });
    return { ...correctionSummary(corrected, plan.minorUnits), spreadReadings: out.ids.length };
  });
}
