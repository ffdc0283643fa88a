// What makes a bill wrong before it is made: missing readings, consumption below zero,
// consumption far from the subscription's own history; and estimates of missing
// readings from that history. Consumption itself is the rating core's rule.
import type { Queryable } from '../db/pool.ts';
import { consumptionBetween, dayNumber, Dec, prepareTariff, roundMoney } from '../rating/index.ts';
import { READINGS_SQL, type RunContext } from './rateRoster.ts';
import { dmyFromIso as dmy } from './dates.ts';
import type { TermException } from './schemas.ts';

const NO_MARK = '9223372036854775807';
/** Daily consumption this many times above (or below a 1/n of) the history's is flagged. */
export const UNUSUAL_FACTOR = 3;
/** How far back the history reaches from the previous reading. */
const HISTORY_DAYS = 366;
const EFFECTIVE = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = ${alias}.reading_id AND c.reading_id <= $5::bigint)`;

function meters(ctx: RunContext) {
  try {
    return new Map(prepareTariff(ctx.tariff).meteredNeeded.map((m) => [m.code, m]));
  } catch {
    return new Map();
  }
}

/**
 * Roster subscriptions with a reading for every metered input the tariff uses dated in
 * their active part of the term, after its first day when the subscription starts in
 * the term (a new connection's opening reading on its start date is where its
 * consumption starts, not a reading of the term).
 */
export async function countReadings(db: Queryable, ctx: RunContext): Promise<number> {
  if (ctx.meteredCodes.length === 0) return 0;
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM term_subscription ts JOIN subscription s ON s.subscription_id = ts.subscription_id
      WHERE ts.term_id = $1 AND NOT EXISTS (
        SELECT 1 FROM unnest($4::text[]) AS m(code)
         WHERE NOT EXISTS (
           SELECT 1 FROM reading r
            WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
              AND r.reading_date >= $2::date AND r.reading_date > s.start_date AND r.reading_date <= least($3::date, s.end_date)
              AND r.reading_id <= $5::bigint AND ${EFFECTIVE('r')}))`,
    [ctx.termId, ctx.start, ctx.end, ctx.meteredCodes, ctx.watermark ?? NO_MARK],
  );
  return r.rows[0]!.n;
}

/**
 * The run's own check when validate-term was skipped: a missing reading or a negative
 * consumption would make a bill wrong, so the term fails with these listed. At most
 * `limit` are returned.
 */
export async function blockingExceptions(db: Queryable, ctx: RunContext, limit = 100000): Promise<TermException[]> {
  if (ctx.meteredCodes.length === 0) return [];
  // One pass over the whole roster before any bill may be written, so let PostgreSQL
  // share it between cores (a quarter faster on two; the settings end with the transaction).
  await db.query('SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0; SET LOCAL min_parallel_table_scan_size = 0');
  const r = await db.query<{
    subscription_id: string;
    account_id: string;
    code: string;
    active_end: string;
    cur_date: string | null;
    cur_value: string | null;
    prev_date: string | null;
    prev_value: string | null;
  }>(
    `SELECT x.*, s.account_id, least($5::date, s.end_date) AS active_end FROM (${READINGS_SQL} WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3) x
       JOIN subscription s ON s.subscription_id = x.subscription_id
      WHERE x.cur_date IS NULL OR x.prev_date IS NULL OR x.cur_value < x.prev_value
      ORDER BY x.subscription_id, x.code LIMIT $8`,
    [ctx.termId, '0', NO_MARK, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes, limit],
  );
  const byCode = meters(ctx);
  const out: TermException[] = [];
  for (const row of r.rows) {
    const base = { subscriptionID: Number(row.subscription_id), accountID: Number(row.account_id), severity: 'error' as const, path: `readings.${row.code}` };
    if (row.prev_date === null) {
      out.push({ ...base, code: 'MISSING_READING', message: `no reading of ${row.code} to measure the consumption from (none before or in the term)` });
    } else if (row.cur_date === null) {
      out.push({
        ...base,
        code: 'MISSING_READING',
        message: `no reading of ${row.code} dated in the term after the one of ${dmy(row.prev_date)}${row.active_end < ctx.end ? ` and up to the subscription's end, ${dmy(row.active_end)}` : ''}`,
      });
    } else {
      const c = consumptionBetween(new Dec(row.prev_value as string), new Dec(row.cur_value as string), byCode.get(row.code)?.rolloverAt ?? null);
      if (c.kind === 'negative') {
        out.push({ ...base, code: 'NEGATIVE_CONSUMPTION', message: `${row.code}: ${row.cur_value} on ${row.cur_date} is below ${row.prev_value} on ${row.prev_date}` });
      }
    }
  }
  return out;
}

type HistoryRow = {
  subscription_id: string;
  account_id: string;
  code: string;
  active_end: string;
  cur_date: string | null;
  cur_value: string | null;
  prev_date: string | null;
  prev_value: string | null;
  h_date: string | null;
  h_value: string | null;
};

/** Each roster reading pair with the oldest reading of the year before it: the history. */
async function withHistory(db: Queryable, ctx: RunContext, onlyMissing: boolean): Promise<HistoryRow[]> {
  const r = await db.query<HistoryRow>(
    `SELECT x.subscription_id, x.code, least($5::date, s.end_date) AS active_end, x.cur_date, x.cur_value, x.prev_date, x.prev_value, s.account_id,
            h.reading_date AS h_date, h.value AS h_value
       FROM (${READINGS_SQL} WHERE ts.term_id = $1) x
       JOIN subscription s ON s.subscription_id = x.subscription_id
       LEFT JOIN LATERAL (
         SELECT r.reading_date, r.value FROM reading r
          WHERE r.subscription_id = x.subscription_id AND r.input_code = x.code
            AND r.reading_date >= x.prev_date - $2::int AND r.reading_date < x.prev_date
            AND r.reading_id <= $6::bigint
            AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id AND c.reading_id <= $6::bigint)
          ORDER BY r.reading_date, r.reading_id LIMIT 1) h ON true
      WHERE x.prev_date IS NOT NULL AND ($3::boolean IS NOT TRUE OR x.cur_date IS NULL)`,
    [ctx.termId, HISTORY_DAYS, onlyMissing, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes],
  );
  return r.rows;
}

const days = (from: string, to: string) => dayNumber(to) - dayNumber(from);

/** Daily consumption of the history before the previous reading, or null without one (or across a roll-over). */
function dailyHistory(row: HistoryRow): Dec | null {
  if (row.h_date === null || row.prev_date === null) return null;
  const span = days(row.h_date, row.prev_date);
  const used = new Dec(row.prev_value as string).minus(row.h_value as string);
  if (span <= 0 || used.isNegative()) return null;
  return used.div(span);
}

/** Warnings for consumption far above or below the subscription's own daily history. */
export async function unusualConsumption(db: Queryable, ctx: RunContext): Promise<TermException[]> {
  if (ctx.meteredCodes.length === 0) return [];
  const out: TermException[] = [];
  for (const row of await withHistory(db, ctx, false)) {
    const history = dailyHistory(row);
    if (history === null || row.cur_date === null || history.isZero()) continue;
    const span = days(row.prev_date as string, row.cur_date);
    const used = new Dec(row.cur_value as string).minus(row.prev_value as string);
    if (span <= 0 || used.isNegative()) continue; // a roll-over or a negative: the rating reports it
    const daily = used.div(span);
    const high = daily.gt(history.times(UNUSUAL_FACTOR));
    if (high || daily.times(UNUSUAL_FACTOR).lt(history)) {
      out.push({
        subscriptionID: Number(row.subscription_id),
        accountID: Number(row.account_id),
        code: 'UNUSUAL_CONSUMPTION',
        severity: 'warning',
        path: `readings.${row.code}`,
        message: `${row.code}: ${daily.toDecimalPlaces(3).toFixed()} a day is more than ${UNUSUAL_FACTOR} times ${high ? 'above' : 'below'} its history of ${history.toDecimalPlaces(3).toFixed()} a day`,
      });
    }
  }
  return out;
}

/**
 * Estimates the current reading of every roster meter that has none: the previous
 * reading plus the history's daily consumption up to the end of the subscription's
 * active part (the term's end, or its own end when it ends in the term), at the
 * meter's decimals, recorded as an 'estimated' reading dated that day. Answers how many.
 */
export async function estimateMissing(db: Queryable, ctx: RunContext, by: string): Promise<number> {
  if (ctx.meteredCodes.length === 0) return 0;
  const byCode = meters(ctx);
  const rows: { sub: string; code: string; date: string; value: string }[] = [];
  for (const row of await withHistory(db, ctx, true)) {
    const history = dailyHistory(row);
    const meter = byCode.get(row.code);
    // A previous reading on the last active day leaves no day to estimate.
    if (history === null || meter === undefined || (row.prev_date as string) >= row.active_end) continue;
    let value = roundMoney(new Dec(row.prev_value as string).plus(history.times(days(row.prev_date as string, row.active_end))), meter.decimals, 'halfUp');
    if (meter.rolloverAt !== null && value.gte(meter.rolloverAt)) value = value.minus(meter.rolloverAt);
    rows.push({ sub: row.subscription_id, code: row.code, date: row.active_end, value: value.toFixed() });
  }
  if (rows.length === 0) return 0;
  await db.query(
    `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, kind, source, note, created_by)
     SELECT $1, u.sub, u.code, u.day, u.value, 'estimated', 'term', $2, $3
       FROM unnest($4::bigint[], $5::text[], $6::date[], $7::numeric[]) AS u(sub, code, day, value)`,
    [ctx.appCode, `estimated from history for term ${ctx.termId}`, by, rows.map((r) => r.sub), rows.map((r) => r.code), rows.map((r) => r.date), rows.map((r) => r.value)],
  );
  return rows.length;
}
