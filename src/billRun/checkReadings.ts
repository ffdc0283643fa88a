// What makes a bill wrong before it is made: missing readings, consumption below zero,
// consumption far from the subscription's own history; and estimates of missing
// readings from that history. The rules are the rating core's (meterReadings.ts,
// readingHistory.ts); here is the SQL that feeds them.
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { consumptionBetween, Dec, estimateReading, meterConsumption, prepareTariff, RatingError, unusualConsumption as unusual, unusualDemand, MIN_HISTORY_PERIODS, UNUSUAL_FACTOR, type MeterHistory } from '../rating/index.ts';
import { demandCodes, LAST_FIRST, lastReadingsSql, meterReadingsOf, READINGS_SETTLED_SQL, READINGS_SQL, readingsOfMetersSql, withDemandHighs, withLastPeriodDemand, type FailedEntry, type ReadingsRow, type RunContext } from './rateRoster.ts';
import type { TermException } from './schemas.ts';
import { formatDate } from '../calendar/calendar.ts';
import { effectiveSql, insertReadings } from '../readings/store.ts';
import { idHalves } from './roster.ts';
import { lockSubscriptions } from '../readings/write.ts';

const NO_MARK = '9223372036854775807';
/** How far back the history reaches from the previous reading. */
const HISTORY_DAYS = 366;
const EFFECTIVE = (alias: string) => effectiveSql(alias, '$5::bigint');

/**
 * Switches PostgreSQL's Memoize off until the transaction ends, for the statements over a
 * whole roster. Each looks a meter's readings up by its subscription and code, a key no other
 * roster row has; once the roster has statistics (autovacuum analyzes term_subscription after
 * a large load, so a validation or a retried plan finds them), the planner put a Memoize over
 * each lookup, which never hit: a fifth to a quarter of the statement (200,000 meters: the
 * run's check 2.83 to 3.41 s against 2.06 to 2.65 s; unusual consumption's history 3.14 to
 * 3.76 s against 2.13 to 3.03 s; issue 15, docs/bill-run.md).
 */
export async function withoutMemoize(tx: Queryable): Promise<void> {
  await tx.query('SET LOCAL enable_memoize = off');
}

/** The metered inputs the term's tariff uses: of every version in force when the term spans a change (the first definition of each code). */
function meters(ctx: RunContext) {
  const found = new Map<string, ReturnType<typeof prepareTariff>['meteredNeeded'][number]>();
  for (const tariff of ctx.versions?.map((v) => v.tariff) ?? [ctx.tariff]) {
    try {
      for (const m of prepareTariff(tariff).meteredNeeded) if (!found.has(m.code)) found.set(m.code, m);
    } catch {
      // An invalid stored tariff is refused when rated, per subscription, with its reason.
    }
  }
  return found;
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

/** Reading codes that would make a bill wrong: the run fails the term on them before writing any bill. */
export const BLOCKING_CODES: readonly string[] = ['MISSING_READING', 'NEGATIVE_CONSUMPTION'];

/**
 * The run's own check when validate-term was skipped. It reads the readings as the
 * chunks do (READINGS_SQL, meterReadingsOf) and judges them with the rating's own rule
 * (meterConsumption, also rateBill's), so an exception here is, code, words and field,
 * the one validate-term's dry run shows for the same subscription. Only BLOCKING_CODES
 * are returned: other reading errors are the subscription's failure in the run, as after
 * validate-term. At most `limit`.
 *
 * It does not rate whole bills: SQL over the roster, with no bill arithmetic, keeps the
 * plan a small part of the run (docs/bill-run.md). It reads the committed roster (planRun
 * commits it first), on the pool's connections.
 */
/** What decides where a meter's fix is dated: its part of the term, and the readings it has. */
export type FixSpan = { activeStart: string; activeEnd: string; hasPrevious: boolean; currentDate: string | undefined };

/**
 * Where a blocking exception's fix is dated (TermException.readingDate, and a failure's
 * details): a missing reading at the end of the subscription's part of the term, or, for a
 * meter with no reading at all, at its start, where its consumption begins (a reading at
 * the end would only be its first, and the exception would stay, a reviewer); a reading
 * below the previous one on its own day (a term's capture-readings replaces it). The
 * console's fix row starts there; before, it offered the term's end and another meter,
 * and replaced a reading unasked.
 */
export function readingDateOf(code: string, span: FixSpan): { readingDate?: string } {
  if (code === 'MISSING_READING') return { readingDate: formatDate(span.hasPrevious ? span.activeEnd : span.activeStart) };
  if (code === 'NEGATIVE_CONSUMPTION' && span.currentDate !== undefined) return { readingDate: formatDate(span.currentDate) };
  return {};
}

/**
 * A run's failure, or a dry run's, with the day each meter's fix is dated (readingDateOf):
 * per detail naming a meter (readings.METER...).
 */
export function datedDetails(f: FailedEntry, termStart: string, termEnd: string): (FailedEntry['details'][number] & { readingDate?: string })[] {
  const activeStart = f.input.startDate > termStart ? f.input.startDate : termStart;
  const activeEnd = f.input.endDate !== null && f.input.endDate < termEnd ? f.input.endDate : termEnd;
  return f.details.map((d) => {
    const meter = d.path.startsWith('readings.') ? d.path.split('.')[1] : undefined;
    if (meter === undefined) return d;
    const readings = f.input.readings[meter];
    return { ...d, ...readingDateOf(f.code, { activeStart, activeEnd, hasPrevious: readings?.previous !== undefined, currentDate: readings?.current?.date }) };
  });
}

/**
 * `passOver`: pass over the meters READINGS_SETTLED_SQL finds settled before READINGS_SQL's
 * lookups, or not; when not given, decided from a sample of the roster (settledShare; the
 * tests give both).
 */
export async function blockingExceptions(db: pg.Pool, ctx: RunContext, limit = 100000, passOver?: boolean): Promise<TermException[]> {
  return checkRoster(db, ctx, { limit, passOver, unusual: false });
}

/**
 * What stops a run nobody validated (process-term with steps 2 to 5 skipped): the errors of
 * blockingExceptions, and consumption far above or below a subscription's own history
 * (UNUSUAL_CONSUMPTION, by validate-term's rule). product.md counts the latter among what
 * makes a bill wrong; after validate-term it is a warning the officer judges before
 * approving, but here nobody has judged it: a meter read 10 m3 a month for four months, then
 * 39,970, was billed 79,940.00 without a stop (an outside check, 2026-11-28). A reading
 * taken as the meter rolling over (METER_ROLLED_OVER) is billed by its rule and does not stop
 * the run. In the same pass over the roster as the errors (exceptionsIn).
 */
export async function runCheckExceptions(db: pg.Pool, ctx: RunContext, passOver?: boolean): Promise<TermException[]> {
  return checkRoster(db, ctx, { limit: 100000, passOver, unusual: true });
}

async function checkRoster(db: pg.Pool, ctx: RunContext, o: { limit: number; passOver: boolean | undefined; unusual: boolean }): Promise<TermException[]> {
  const { limit, passOver } = o;
  if (ctx.meteredCodes.length === 0) return [];
  // Two slices of the roster, each on a connection of its own, so that PostgreSQL works on
  // two cores: as one statement (which PostgreSQL would not run in parallel: lateral
  // lookups), a million subscriptions took 6 s of one core (issue 15, docs/bill-run.md).
  // Halves of the roster's id range (read off its key's two ends), not of its rows: counting
  // them cost a tenth of the check.
  const ends = await db.query<{ lo: string | null; hi: string | null }>(
    `SELECT (SELECT min(subscription_id) FROM term_subscription WHERE term_id = $1) AS lo,
            (SELECT max(subscription_id) FROM term_subscription WHERE term_id = $1) AS hi`,
    [ctx.termId],
  );
  const { lo, hi } = ends.rows[0]!;
  if (lo === null || hi === null) return [];
  const skip = passOver ?? (await settledShare(db, ctx, lo, hi)) > 0.5;
  const parts = await Promise.all(idHalves(lo, hi).map(([from, to]) => exceptionsIn(db, ctx, from, to, skip, o.unusual)));
  return parts.flat().slice(0, limit);
}

/** The share of the meters of a sample of the roster (ids in [lo, hi]) READINGS_SETTLED_SQL finds settled: 0 to 1 (0 for none). */
async function settledShare(db: pg.Pool, ctx: RunContext, lo: string, hi: string): Promise<number> {
  const r = await inTransaction(db, async (tx) => {
    await withoutMemoize(tx);
    // The roster subscription at or after each of SAMPLE points spread over the id range.
    return tx.query<{ share: number | null }>(
      `SELECT avg(CASE WHEN ${READINGS_SETTLED_SQL} THEN 1 ELSE 0 END)::float8 AS share
         FROM generate_series(0, $8::int - 1) AS g(k)
        CROSS JOIN LATERAL (SELECT t.subscription_id FROM term_subscription t
                             WHERE t.term_id = $1 AND t.subscription_id >= $2::bigint + ($3::bigint - $2::bigint) * g.k / $8::int
                             ORDER BY t.subscription_id LIMIT 1) ts
        CROSS JOIN unnest($7::text[]) AS m(code)`,
      [ctx.termId, lo, hi, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes, SAMPLE],
    );
  });
  return r.rows[0]?.share ?? 0;
}
/** How many roster subscriptions settledShare looks at. */
const SAMPLE = 200;

/**
 * The blocking exceptions of the roster subscriptions with ids in [fromId, toId], in id
 * order; `passOver`: the meters READINGS_SETTLED_SQL finds settled are passed over first;
 * `unusual`: with the UNUSUAL_CONSUMPTION warnings of the same meters (runCheckExceptions).
 */
async function exceptionsIn(db: pg.Pool, ctx: RunContext, fromId: string, toId: string, passOver: boolean, unusual: boolean): Promise<TermException[]> {
  // Only the meters in doubt are joined to their subscription (OFFSET 0 keeps the filter
  // inside): joined first, every roster row cost an index probe of subscription, a fifth
  // of the check (issue 15, docs/bill-run.md).
  //
  // The usual meter, read once a term, has a reading before the term and a higher one in it:
  // READINGS_SETTLED_SQL finds it so with one lookup of its last three readings and passes it
  // over before READINGS_SQL's two (a quarter less of the check). A meter it does not pass over
  // costs that lookup besides READINGS_SQL's: on a roster of meters read every five days (none
  // passed over) the check took a quarter longer. So it is used when it passes over more than
  // half the meters of a sample of the roster (settledShare; measured: docs/bill-run.md).
  //
  // Judging unusual consumption too, the settled meters are read by settledWithHistory: the
  // rows to judge of the meters its one lookup tells all of, and the other meters, read by
  // READINGS_SQL and historyLateral as before.
  const params = [ctx.termId, fromId, toId, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes];
  const rows = await inTransaction(db, async (tx) => {
    await withoutMemoize(tx);
    if (unusual && passOver) return settledWithHistory(tx, ctx, fromId, toId);
    const r = await tx.query<HistoryRow & { active_start: string }>(
      unusual
        ? `SELECT x.*, s.account_id, greatest($4::date, s.start_date) AS active_start, least($5::date, s.end_date) AS active_end,
                  h.h_date, h.h_value, coalesce(h.periods, 0)::int AS h_periods
             FROM (SELECT * FROM (${READINGS_SQL} WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3) y OFFSET 0) x
             ${historyLateral('$8', '$6')}
             JOIN subscription s ON s.subscription_id = x.subscription_id
            WHERE ${doubt('x')} OR coalesce(h.periods, 0) >= ${periodsNeeded('x.code', '$9', '$10')}
            ORDER BY x.subscription_id, x.code COLLATE "C"`
        : `SELECT x.*, s.account_id, greatest($4::date, s.start_date) AS active_start, least($5::date, s.end_date) AS active_end
             FROM (SELECT * FROM (${READINGS_SQL} WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3${passOver ? ` AND NOT ${READINGS_SETTLED_SQL}` : ''}) y
                    WHERE ${doubt('y')} OFFSET 0) x
             JOIN subscription s ON s.subscription_id = x.subscription_id
            ORDER BY x.subscription_id, x.code COLLATE "C"`,
      unusual ? [...params, HISTORY_DAYS, [...demandCodes(ctx)], MIN_HISTORY_PERIODS] : params,
    );
    return r.rows;
  });
  const byCode = meters(ctx);
  const out: TermException[] = [];
  const judged: HistoryRow[] = [];
  for (const row of rows) {
    const meter = byCode.get(row.code);
    if (meter === undefined) continue;
    try {
      meterConsumption(meter, meterReadingsOf(row), row.active_end < ctx.end ? row.active_end : null);
    } catch (err) {
      if (!(err instanceof RatingError) || !BLOCKING_CODES.includes(err.code)) continue;
      out.push({
        subscriptionID: Number(row.subscription_id),
        accountID: Number(row.account_id),
        code: err.code,
        severity: 'error',
        message: err.message,
        ...(err.details?.[0] ? { path: err.details[0].path } : {}),
        ...readingDateOf(err.code, { activeStart: row.active_start, activeEnd: row.active_end, hasPrevious: row.prev_date !== null, currentDate: row.cur_date ?? undefined }),
      });
      continue;
    }
    if (unusual) judged.push(row);
  }
  if (judged.length === 0) return out;
  const warnings = await historyWarnings(db, ctx, judged, { rollover: false });
  return [...out, ...warnings].sort((a, b) => a.subscriptionID - b.subscriptionID);
}

/** SQL: a READINGS_SQL row (`row`) a reading check could flag: a reading missing, or the current below the previous. */
const doubt = (row: string) => `${row}.cur_date IS NULL OR ${row}.prev_date IS NULL OR ${row}.cur_value < ${row}.prev_value`;

/** The history rule's readings needed: a demand register's one in the year before the previous reading, any other meter's MIN_HISTORY_PERIODS (the parameters named). */
const periodsNeeded = (code: string, demand: string, min: string) => `CASE WHEN ${code} = ANY(${demand}::text[]) THEN 1 ELSE ${min}::int END`;

/** Readings settledWithHistory looks up at once per meter: a meter read monthly has about 14 from its current one back to a year before its previous one. */
const LAST_READINGS = 16;

/**
 * The rows to judge (the errors and unusual consumption, exceptionsIn) of the roster
 * meters with ids in [fromId, toId] when most meters are settled (settledShare), in id order.
 *
 * Each meter's last LAST_READINGS effective readings up to the term's end, in one lookup,
 * tell all of it when the meter is settled (READINGS_SETTLED_SQL's test: the first of them
 * dated in the term and not below the first before the term) and they reach back past the
 * year before its previous reading (or are all it has): the first is READINGS_SQL's current
 * reading, the first before the term its previous one, and those of the year before that
 * historyLateral's. Such a meter is a row only when it has the history to judge (a settled
 * meter is in no doubt). Every other meter is read as before, by READINGS_SQL and
 * historyLateral, given by its pair (subscription, code). With three months of history, the
 * check read 44 buffers a meter in five lookups (issue 15, docs/bill-run.md).
 */
async function settledWithHistory(tx: Queryable, ctx: RunContext, fromId: string, toId: string): Promise<(HistoryRow & { active_start: string })[]> {
  const demand = [...demandCodes(ctx)];
  const wm = ctx.watermark ?? NO_MARK;
  // The rows are sorted by the subscription (the exceptions' order): in memory, not on disk.
  await tx.query(`SET LOCAL work_mem = '64MB'`);
  const first = await tx.query<HistoryRow & { active_start: string; whole: boolean }>(
    `SELECT x.*, s.account_id, greatest($4::date, s.start_date) AS active_start, least($5::date, s.end_date) AS active_end
       FROM (SELECT * FROM (
         SELECT ts.subscription_id, m.code, f.whole,
                a.d[1] AS cur_date, a.v[1] AS cur_value, a.k[1] AS cur_kind, a.i[1] AS cur_id,
                a.d[pp.p] AS prev_date, a.v[pp.p] AS prev_value, a.k[pp.p] AS prev_kind, a.i[pp.p] AS prev_id,
                a.d[h.o] AS h_date, a.v[h.o] AS h_value, coalesce(h.periods, 0)::int AS h_periods
           FROM term_subscription ts
          CROSS JOIN unnest($7::text[]) AS m(code)
          CROSS JOIN LATERAL (
            SELECT array_agg(last.reading_date ${LAST_FIRST}) AS d, array_agg(last.value ${LAST_FIRST}) AS v,
                   array_agg(last.kind ${LAST_FIRST}) AS k, array_agg(last.reading_id ${LAST_FIRST}) AS i,
                   count(*) AS n, count(*) FILTER (WHERE last.reading_date >= $4::date) + 1 AS p
              FROM ${lastReadingsSql('$11::int')}) a
          CROSS JOIN LATERAL (SELECT CASE WHEN a.p <= a.n THEN a.p END AS p) pp
          -- The year before the previous reading: the readings after it in the array (dated
          -- before it) back to the year's first day. Newest first, so the last of them is the
          -- oldest, and a date is counted once at its last reading (the next one differs).
          -- Only a meter with readings enough for the history rule is looked into (a gate on the
          -- lateral, not a scan): the bench's meters, read twice, cost a sixth more without it.
          CROSS JOIN LATERAL (
            SELECT max(u.o) AS o, count(*) FILTER (WHERE u.x IS DISTINCT FROM a.d[u.o + 1]) AS periods FROM unnest(a.d) WITH ORDINALITY AS u(x, o)
             WHERE a.n >= ${periodsNeeded('m.code', '$9', '$10')} + 2 AND u.o > pp.p AND u.x < a.d[pp.p] AND u.x >= a.d[pp.p] - $8::int) h
          CROSS JOIN LATERAL (
            SELECT coalesce(a.d[1] >= $4::date AND a.v[1] >= a.v[pp.p]
                            AND (a.n < $11::int OR a.d[$11::int] < a.d[pp.p] - $8::int), false) AS whole) f
          WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3) y
        WHERE NOT y.whole OR y.h_periods >= ${periodsNeeded('y.code', '$9', '$10')} OFFSET 0) x
       JOIN subscription s ON s.subscription_id = x.subscription_id
      ORDER BY x.subscription_id, x.code COLLATE "C"`,
    [ctx.termId, fromId, toId, ctx.start, ctx.end, wm, ctx.meteredCodes, HISTORY_DAYS, demand, MIN_HISTORY_PERIODS, LAST_READINGS],
  );
  const rest = first.rows.filter((r) => !r.whole);
  if (rest.length === 0) return first.rows;
  const others = await tx.query<HistoryRow & { active_start: string }>(
    `SELECT x.*, s.account_id, greatest($4::date, s.start_date) AS active_start, least($5::date, s.end_date) AS active_end,
            h.h_date, h.h_value, coalesce(h.periods, 0)::int AS h_periods
       FROM (SELECT * FROM (${readingsOfMetersSql('$1', '$2')}) y OFFSET 0) x
       ${historyLateral('$3', '$6')}
       JOIN subscription s ON s.subscription_id = x.subscription_id
      WHERE ${doubt('x')} OR coalesce(h.periods, 0) >= ${periodsNeeded('x.code', '$7', '$8')}`,
    [rest.map((r) => r.subscription_id), rest.map((r) => r.code), HISTORY_DAYS, ctx.start, ctx.end, wm, demand, MIN_HISTORY_PERIODS],
  );
  // Codes in byte order, as COLLATE "C" above: under a database's language collation SQL and
  // JavaScript ordered 'gas' and 'Water' apart (a reviewer).
  const order = (a: { subscription_id: string; code: string }, b: { subscription_id: string; code: string }) =>
    Number(a.subscription_id) - Number(b.subscription_id) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
  return [...first.rows.filter((r) => r.whole), ...others.rows].sort(order);
}

/** The oldest effective reading of the year before the previous one (x.prev_date) and how many dates that year holds (`days`: the parameter of HISTORY_DAYS; `watermark`: of the readings' watermark), as h. */
const historyLateral = (days: string, watermark: string) => `LEFT JOIN LATERAL (
         SELECT (array_agg(r.reading_date ORDER BY r.reading_date, r.reading_id))[1] AS h_date,
                (array_agg(r.value ORDER BY r.reading_date, r.reading_id))[1] AS h_value,
                count(DISTINCT r.reading_date) AS periods
           FROM reading r
          WHERE r.subscription_id = x.subscription_id AND r.input_code = x.code
            AND r.reading_date >= x.prev_date - ${days}::int AND r.reading_date < x.prev_date
            AND r.reading_id <= ${watermark}::bigint
            AND ${effectiveSql('r', `${watermark}::bigint`)}) h ON true`;

type HistoryRow = ReadingsRow & {
  /** A demand register: the period before's demand (withLastPeriodDemand). */
  last_demand?: string | null;
  account_id: string;
  active_end: string;
  h_date: string | null;
  h_value: string | null;
  h_periods: number;
};

/**
 * Each roster reading pair with its history: the oldest effective reading of the year
 * before the previous one, and how many effective readings that year holds before it.
 */
async function withHistory(db: Queryable, ctx: RunContext, onlyMissing: boolean): Promise<HistoryRow[]> {
  const r = await db.query<HistoryRow>(
    `SELECT x.subscription_id, x.code, least($5::date, s.end_date) AS active_end, x.cur_id, x.cur_date, x.cur_value, x.cur_kind,
            x.prev_date, x.prev_value, x.prev_kind, s.account_id, h.h_date, h.h_value, coalesce(h.periods, 0)::int AS h_periods
       FROM (${READINGS_SQL} WHERE ts.term_id = $1) x
       JOIN subscription s ON s.subscription_id = x.subscription_id
       ${historyLateral('$2', '$6')}
      WHERE x.prev_date IS NOT NULL AND ($3::boolean IS NOT TRUE OR x.cur_date IS NULL)`,
    [ctx.termId, HISTORY_DAYS, onlyMissing, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes],
  );
  return r.rows;
}

const historyOf = (row: HistoryRow): MeterHistory => ({
  oldest: row.h_date === null ? null : { date: row.h_date, value: row.h_value as string },
  periods: row.h_periods,
});
/** The reading before the term; for a demand register, valued at the period before's demand (its highest reading) when it has one. */
const previousOf = (row: HistoryRow) => ({ date: row.prev_date as string, value: row.last_demand ?? (row.prev_value as string) });

/**
 * Warnings for consumption far above or below the subscription's own daily history
 * (readingHistory.ts: the rule), and for a reading below the previous one billed as the
 * meter rolling over (consumption.ts: the rule): a new meter's low first reading after an
 * exchange reads the same way, and a subscription with no history to compare with was
 * billed 20,012 kL for it without a word (an outside check of published bills).
 */
export async function unusualConsumption(db: Queryable, ctx: RunContext): Promise<TermException[]> {
  if (ctx.meteredCodes.length === 0) return [];
  return historyWarnings(db, ctx, await withHistory(db, ctx, false), { rollover: true });
}

/** The warnings of unusualConsumption for these rows; `rollover`: with METER_ROLLED_OVER, or UNUSUAL_CONSUMPTION alone. */
async function historyWarnings(db: Queryable, ctx: RunContext, rows: HistoryRow[], o: { rollover: boolean }): Promise<TermException[]> {
  const out: TermException[] = [];
  const byCode = meters(ctx);
  const warn = (row: HistoryRow, code: 'METER_ROLLED_OVER' | 'UNUSUAL_CONSUMPTION', message: string) =>
    out.push({ subscriptionID: Number(row.subscription_id), accountID: Number(row.account_id), code, severity: 'warning', path: `readings.${row.code}`, message: `${row.code}: ${message}` });
  // A demand register is judged on the demand it bills, the period's highest reading, against
  // the period before's.
  const demand = demandCodes(ctx);
  await withDemandHighs(db, ctx.watermark, rows, demand);
  await withLastPeriodDemand(db, ctx, rows, demand);
  for (const row of rows) {
    if (row.cur_date === null) continue;
    const meter = byCode.get(row.code);
    const rolloverAt = meter?.rolloverAt ?? null;
    if (rolloverAt !== null && o.rollover) {
      const previous = new Dec(row.prev_value as string);
      const current = new Dec(row.cur_value as string);
      const c = consumptionBetween(previous, current, rolloverAt);
      if (c.kind === 'rollover') {
        warn(
          row,
          'METER_ROLLED_OVER',
          `read ${current.toFixed()} after ${previous.toFixed()}, billed as the meter rolling over at ${rolloverAt.toFixed()}: ${c.quantity.toFixed()} used; if the meter was exchanged, not rolled over, correct this reading to what was used`,
        );
      }
    }
    const current = { date: row.cur_date, value: row.cur_value as string };
    if (meter?.register === 'maximum') {
      // A demand register: its reading against the period's before (readingHistory.ts, unusualDemand).
      const d = unusualDemand(historyOf(row), previousOf(row), row.high_value == null ? current : { date: row.high_date as string, value: row.high_value });
      if (d !== null) warn(row, 'UNUSUAL_CONSUMPTION', `a demand of ${d.daily.toFixed()} is more than ${UNUSUAL_FACTOR} times ${d.direction} the period's before, ${d.history.toFixed()}`);
      continue;
    }
    const u = unusual(historyOf(row), previousOf(row), current);
    if (u !== null) {
      warn(row, 'UNUSUAL_CONSUMPTION', `${u.daily.toDecimalPlaces(3).toFixed()} a day is more than ${UNUSUAL_FACTOR} times ${u.direction} its history of ${u.history.toDecimalPlaces(3).toFixed()} a day`);
    }
  }
  return out;
}

/** What estimateMissing did: how many readings it recorded, and why each meter it left without one has none. */
export type Estimates = { estimated: number; notEstimated: Map<string, string> };
/** The key of a meter in Estimates.notEstimated. */
export const meterKey = (subscriptionId: string | number, code: string) => `${subscriptionId}|${code}`;

/**
 * Estimates the current reading of every roster meter that has none (readingHistory.ts:
 * the rule), dated the end of the subscription's active part (the term's end, or its
 * own end when it ends in the term), recorded as 'estimated' readings. Answers how many,
 * and why the meters it could not estimate were not (validate-term adds it to their
 * MISSING_READING: an outside check saw one skipped without a word).
 */
export async function estimateMissing(db: Queryable, ctx: RunContext, by: string): Promise<Estimates> {
  const notEstimated = new Map<string, string>();
  if (ctx.meteredCodes.length === 0) return { estimated: 0, notEstimated };
  const byCode = meters(ctx);
  const rows: { sub: string; code: string; date: string; value: string }[] = [];
  let missing = await withHistory(db, ctx, true);
  if (missing.length === 0) return { estimated: 0, notEstimated };
  // The meters about to be estimated are locked as every writer of readings locks them
  // (readings/write.ts), then looked at again: a reading captured meanwhile wins over
  // its estimate, and never stands beside one on the same day.
  await lockSubscriptions(db, ctx.appCode, missing.map((r) => r.subscription_id));
  missing = await withHistory(db, ctx, true);
  // A demand register's estimate is the period before's demand, not its last reading.
  await withLastPeriodDemand(db, ctx, missing, demandCodes(ctx));
  for (const row of missing) {
    const meter = byCode.get(row.code);
    if (meter === undefined) continue;
    const value = estimateReading(historyOf(row), previousOf(row), row.active_end, meter);
    if (value !== null) rows.push({ sub: row.subscription_id, code: row.code, date: row.active_end, value: value.toFixed() });
    else {
      notEstimated.set(
        meterKey(row.subscription_id, row.code),
        meter.register === 'maximum'
          ? `not estimated: the reading of ${formatDate(row.prev_date as string)} is the register's first, no period's demand to go by (no earlier reading in the year before it)`
          : `not estimated: no daily consumption to go by in the year before the reading of ${formatDate(row.prev_date as string)} (no earlier reading in that year, or consumption across a roll-over)`,
      );
    }
  }
  if (rows.length === 0) return { estimated: 0, notEstimated };
  const note = `estimated from history for term ${ctx.termId}`;
  await insertReadings(
    db,
    ctx.appCode,
    rows.map((r) => ({ subscriptionId: r.sub, inputCode: r.code, date: r.date, value: r.value, kind: 'estimated', source: 'term', note })),
    by,
  );
  return { estimated: rows.length, notEstimated };
}
