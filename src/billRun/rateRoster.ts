// The one path from database rows to rated bills, used by validate-term's preview and
// by the run's chunks alike: a preview that disagrees with the bills would be a bug.
import type { Queryable } from '../db/pool.ts';
import { attempt, prepareTariff, rateBill, ratePrepaidBill, RatingError, type LastReadingOnly, type MeterReadings, type PrepaidAdvance, type ReadingPoint, type RatedBill, type RoundingMode, type Tariff, type TariffVersion } from '../rating/index.ts';
import { loadPrepaidAdvances, prepaidContext, type PrepaidContext } from './prepaid.ts';
import { termVersions } from './versions.ts';
import type { TermRow } from './termStore.ts';
import { suspendedPeriods, suspensionPeriodsSql } from './suspensions.ts';
import { levelChangesSql, levelsOver, type LevelChange, type Levels } from './levels.ts';
import { effectiveSql } from '../readings/store.ts';
import { chainToEarlierBills, laterBillOverlaps, LATER_BILL_OVERLAP, successorOverlaps, termsAround, type ChainConflict, type NearTerm } from './meterChain.ts';
import type { BillSource } from './billSource.ts';

export type RunContext = {
  termId: string;
  appCode: number;
  start: string;
  end: string;
  dueDate: string;
  /** Readings above this id are ignored (null: every reading, before approval). */
  watermark: string | null;
  /** The tariff of the version in force over the whole term; with `versions`, the first one's. */
  tariff: Tariff;
  /**
   * When the term spans a version change (effective-dated versions): the versions in force,
   * in date order, each from its first day in the term. Absent when one version is in force.
   */
  versions?: TariffVersion[];
  /**
   * The versions in force over the term, one or more: a bill whose unmetered inputs change
   * inside it is rated in segments named by them. Absent from a context stored before
   * 2026-11-27 (a simulation's): inForceOf supplies it.
   */
  inForce?: TariffVersion[];
  /** Metered inputs any version in force uses. */
  meteredCodes: string[];
  minorUnits: number;
  rounding: RoundingMode;
  /** A Prepaid template's term (billRun/prepaid.ts); absent for Postpaid. */
  prepaid?: PrepaidContext;
  /**
   * The terms of the same template and batch before and after this one that hold bills
   * (meterChain.ts): a meter starts where its subscription's earlier bill ended, and a
   * subscription a later bill billed already is not billed again. Absent from a context
   * stored before 2026-11-27 (a simulation's) and on a template without meters.
   */
  earlier?: NearTerm[];
  later?: NearTerm[];
  /** The term has credit notes: a bill of it was cancelled, maybe without a rebill, and the run does not bill that again. */
  corrected?: true;
  /**
   * The demand ratchets of the tariffs rated (ratchetsOf): by meter code, the months each looks
   * back over; the run reads each meter's highest demand in them (withRatchetHighs). Absent: none.
   */
  ratchets?: Record<string, number[]>;
};

/** By demand register, the months the tariffs' ratchets look back over (components' `ratchet`); empty when none has one. */
export function ratchetsOf(tariffs: readonly Tariff[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const t of tariffs) {
    for (const c of t.components ?? []) {
      const r = (c as { ratchet?: { months: number }; input?: string }).ratchet;
      const code = (c as { input?: string }).input;
      if (r === undefined || code === undefined) continue;
      const list = (out[code] ??= []);
      if (!list.includes(r.months)) list.push(r.months);
    }
  }
  return out;
}

export type RosterInput = {
  subscriptionId: string;
  accountId: string;
  startDate: string;
  endDate: string | null;
  unmetered: Record<string, string | number>;
  /** Suspensions from its history (first and last suspended day; end null while suspended); absent when none. */
  suspended?: { start: string; end: string | null }[];
  /** Values its unmetered inputs take from a day inside the bill (levels.ts); `unmetered` is the first billed day's. Absent when none. */
  levels?: { from: string; unmetered: Record<string, string | number> }[];
  balance: string;
  /** Per metered input: both readings, or only the previous one (the rating names it in MISSING_READING), or none. */
  readings: Record<string, MeterReadings | LastReadingOnly | undefined>;
  /** With versions: effective readings dated on a change date, by input code and date (they split the consumption). */
  changeReadings?: Record<string, Record<string, string>>;
  /** The ids of the reading rows behind `readings`, recorded on the bill (its source) for verify-bill. */
  readingIds?: Record<string, { previous: string; current: string | null; highest?: string; ratchet?: Record<string, string | null> }>;
  /** A Prepaid term: the advances earlier bills billed that reach into the term or its coming period. */
  prepaid?: PrepaidAdvance[];
  /** Set when a bill of a later term billed its consumption in this one already (meterChain.ts): it fails, naming that bill. */
  laterBillOverlap?: ChainConflict;
};

export type RatedEntry = { input: RosterInput; bill: RatedBill };
export type FailedEntry = { input: RosterInput; code: string; reason: string; details: { path: string; message: string }[] };

// A template version's definition never changes, so its parsed tariff (and the rating core's
// preparation, cached by object identity) is kept for the life of the process.
const tariffs = new Map<string, Tariff>();

/** The versions in force of a context, also of one stored before it kept them (its one tariff, numbered 1). */
export function inForceOf(ctx: RunContext): TariffVersion[] {
  return ctx.inForce ?? ctx.versions ?? [{ version: 1, from: ctx.start, tariff: ctx.tariff }];
}

export async function runContext(db: Queryable, term: TermRow, watermark: string | null = term.reading_watermark): Promise<RunContext> {
  const pieces = await termVersions(db, term);
  const versions: TariffVersion[] = [];
  for (const p of pieces) versions.push({ version: p.version, from: p.start, tariff: await versionTariff(db, p.serviceVersionId) });
  const tariff = (versions[0] as TariffVersion).tariff;
  // An invalid stored tariff is refused when rated, per subscription, with its reason.
  const meteredCodes = new Set<string>();
  for (const v of versions) {
    const prepared = attempt(() => prepareTariff(v.tariff));
    if (prepared.ok) for (const m of prepared.value.meteredNeeded) meteredCodes.add(m.code);
  }
  const ctx: RunContext = {
    termId: term.term_id,
    appCode: term.app_code,
    start: term.start_date,
    end: term.end_date,
    dueDate: term.due_date,
    watermark,
    tariff,
    inForce: versions,
    meteredCodes: [...meteredCodes],
    minorUnits: term.minor_units,
    rounding: term.rounding_mode as RoundingMode,
  };
  if (versions.length > 1) ctx.versions = versions;
  const ratchets = ratchetsOf(versions.map((v) => v.tariff));
  if (Object.keys(ratchets).length > 0) ctx.ratchets = ratchets;
  const prepaid = await prepaidContext(db, term.service_version_id);
  if (prepaid !== undefined) ctx.prepaid = prepaid;
  if ((await db.query('SELECT 1 FROM credit_note WHERE term_id = $1 LIMIT 1', [term.term_id])).rowCount !== 0) ctx.corrected = true;
  if (meteredCodes.size > 0) {
    const around = await termsAround(db, term);
    if (around.earlier.length > 0) ctx.earlier = around.earlier;
    if (around.later.length > 0) ctx.later = around.later;
  }
  return ctx;
}

async function versionTariff(db: Queryable, serviceVersionId: string): Promise<Tariff> {
  let tariff = tariffs.get(serviceVersionId);
  if (tariff === undefined) {
    tariff = (await tariffOf(db, serviceVersionId)) as Tariff;
    if (tariffs.size > 100) tariffs.clear();
    tariffs.set(serviceVersionId, tariff);
  }
  return tariff;
}

export async function tariffOf(db: Queryable, serviceVersionId: string): Promise<Record<string, any>> {
  const r = await db.query<{ definition: Record<string, any> }>('SELECT definition FROM service_version WHERE service_version_id = $1', [serviceVersionId]);
  return r.rows[0]!.definition;
}

const NO_MARK = '9223372036854775807';
const NOT_BILLED = `AND NOT EXISTS (SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.subscription_id = ts.subscription_id AND b.status NOT IN ('withdrawn', 'cancelled'))`;
// A bill cancelled by a credit note without a rebill is not billed again by a retry round of
// its posted term (a reviewer: the credited customer was billed again). Read only when the
// term has credit notes (RunContext.corrected), by the credit notes' term index.
const NOT_CANCELLED = ` AND NOT EXISTS (SELECT 1 FROM credit_note cn JOIN bill cb ON cb.bill_id = cn.bill_id WHERE cn.term_id = $1 AND cb.subscription_id = ts.subscription_id)`;

/**
 * The inputs of the roster subscriptions with ids in [fromId, toId] that have no live
 * bill in this term yet (so a chunk run twice rates nothing twice); withBilled: every one
 * of them, billed or not (a tariff simulation rates a processed term's roster again).
 *
 * Suspensions come from the subscriptions' history (loadSuspensions; suspensions.ts
 * says what the dates mean).
 *
 * Readings, per metered input, over the subscription's active part of the term (from
 * the later of the term's and the subscription's start to the earlier of their ends):
 * the previous one is the last effective reading dated before the active part, or,
 * when there is none (a new connection), the first one dated in it (the opening
 * reading, on the start date); the current one is the last effective reading dated in
 * the active part after the previous one. A moved-in subscription's carried reading is
 * dated before its start, so it is the previous one. Effective: not corrected by
 * another row (both up to the watermark).
 */
export async function loadRosterInputs(
  db: Queryable,
  ctx: RunContext,
  fromId: string,
  toId: string,
  o: { withBilled?: boolean; ids?: string[] } = {},
): Promise<RosterInput[]> {
  // ids (a Post Account chunk: its accounts' subscriptions, src/billRun/accountRun.ts):
  // only these, within [fromId, toId] = their smallest and largest. Its caller has left
  // out the accounts already billed, and such a term has no bill of one subscription, so
  // the check per subscription is not made: probing a bill table emptied and refilled
  // (no statistics) was planned as a scan of every bill for every chunk, 0.4 s a chunk at
  // 100,000 account bills and growing with them.
  const only = o.ids === undefined ? '' : ' AND ts.subscription_id = ANY($4::bigint[])';
  const subs = await db.query<{
    subscription_id: string;
    account_id: string;
    start_date: string;
    end_date: string | null;
    unmetered_inputs: Record<string, string | number>;
    balance: string;
  }>(
    `SELECT s.subscription_id, s.account_id, s.start_date, s.end_date, s.unmetered_inputs, ac.balance
       FROM term_subscription ts
       JOIN subscription s ON s.subscription_id = ts.subscription_id
       JOIN account ac ON ac.account_id = s.account_id
      WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3
        ${o.withBilled || o.ids !== undefined ? '' : NOT_BILLED + (ctx.corrected ? NOT_CANCELLED : '')}${only}
      ORDER BY ts.subscription_id`,
    o.ids === undefined ? [ctx.termId, fromId, toId] : [ctx.termId, fromId, toId, o.ids],
  );
  const inputs: RosterInput[] = subs.rows.map((s) => ({
    subscriptionId: s.subscription_id,
    accountId: s.account_id,
    startDate: s.start_date,
    endDate: s.end_date,
    unmetered: s.unmetered_inputs,
    balance: s.balance,
    readings: {},
  }));
  if (inputs.length === 0) return inputs;
  const byId = new Map(inputs.map((i) => [i.subscriptionId, i]));
  await loadSuspensions(db, byId, fromId, toId, o.ids);
  await loadLevels(db, ctx, byId, fromId, toId, o.ids);
  await loadPrepaidAdvances(db, ctx, byId, fromId, toId);
  if (ctx.meteredCodes.length === 0) return inputs;
  // A term spanning a version change also reads each meter's readings on the change dates,
  // in the same statement (readingsWithChangeSql): a statement of their own was a second
  // pass over the chunk's roster, the largest part of the database's extra work on such a
  // term (issue 12).
  const params: unknown[] = [ctx.termId, fromId, toId, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes];
  const onlyIds = o.ids === undefined ? '' : ` AND ts.subscription_id = ANY($${params.push(o.ids)}::bigint[])`;
  const changeDates = ctx.versions?.slice(1).map((v) => v.from);
  const select = changeDates === undefined ? READINGS_SQL : readingsWithChangeSql(`$${params.push(changeDates)}::date[]`, changeDates.length);
  const readings = await db.query<ReadingsRow & { change?: Record<string, string> | string | null }>(
    `${select}
      WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3${onlyIds}`,
    params,
  );
  const rows = readings.rows.filter((r) => byId.has(r.subscription_id)); // others billed meanwhile
  // Each meter starts where the subscription's earlier bill ended (meterChain.ts), a running
  // total's: a demand register's bill does not start where another ends (its reading is
  // billed as read), and its period is the term's readings, so a reading of the month before
  // recorded late is that month's rebill's, not billed again by this one (a reviewer).
  const demand = demandCodes(ctx);
  const chained = demand.size === 0 ? rows : rows.filter((r) => !demand.has(r.code));
  await chainToEarlierBills(db, ctx.earlier, byId, chained);
  await withDemandHighs(db, ctx.watermark, rows, demand);
  await withRatchetHighs(db, ctx, rows, (id) => byId.get(id)!.accountId);
  for (const r of rows) {
    const input = byId.get(r.subscription_id)!;
    input.readings[r.code] = meterReadingsOf(r);
    if (r.prev_id !== null) {
      const ids: BillSource['readings'][string] = { previous: r.prev_id, current: r.cur_id };
      if (r.high_id != null && r.high_id !== r.cur_id) ids.highest = r.high_id;
      if (r.ratchet !== undefined) ids.ratchet = Object.fromEntries(Object.entries(r.ratchet).map(([months, h]) => [months, h === null ? null : h.id]));
      (input.readingIds ??= {})[r.code] = ids;
    }
    // One change date: the reading's value alone (readingsWithChangeSql).
    if (r.change != null) (input.changeReadings ??= {})[r.code] = typeof r.change === 'string' ? { [changeDates![0]!]: r.change } : r.change;
  }
  for (const [id, why] of await laterBillOverlaps(db, ctx.later, byId, chained)) byId.get(id)!.laterBillOverlap = why;
  for (const [id, why] of await successorOverlaps(db, ctx.end, byId, chained)) byId.get(id)!.laterBillOverlap ??= why;
  return inputs;
}

/**
 * The suspensions of the chunk's subscriptions, from their history: one range scan of
 * the event index over the chunk's ids (or its id list), aggregated per subscription
 * that has any, and joined here. A statement of its own, not a join in the roster's: the
 * join's estimate (no statistics on a roster just written) made PostgreSQL run the
 * aggregate again for every roster row, 5,000 times a chunk, each a probe of the index
 * for every id of a Post Account chunk's list (25,000,000 probes: docs/bill-run.md).
 */
async function loadSuspensions(db: Queryable, byId: Map<string, RosterInput>, fromId: string, toId: string, ids?: string[]): Promise<void> {
  const r = await db.query<{ subscription_id: string; periods: [string | null, string | null][] }>(
    `SELECT x.subscription_id, json_agg(json_build_array(lower(x.period), upper(x.period) - 1)) AS periods
       FROM (${suspensionPeriodsSql(ids === undefined ? 'e.subscription_id BETWEEN $1 AND $2' : 'e.subscription_id = ANY($1::bigint[])')}) x
      GROUP BY x.subscription_id`,
    ids === undefined ? [fromId, toId] : [ids],
  );
  for (const row of r.rows) {
    const input = byId.get(row.subscription_id);
    if (input === undefined) continue;
    const suspended = suspendedPeriods(row.periods, input.startDate);
    if (suspended !== undefined) input.suspended = suspended;
  }
}

/**
 * The unmetered inputs' values over each bill's days, for the subscriptions that changed them
 * (levels.ts): one probe of the history's index per chunk, rows only for those with changes.
 */
async function loadLevels(db: Queryable, ctx: RunContext, byId: Map<string, RosterInput>, fromId: string, toId: string, ids?: string[]): Promise<void> {
  const r = await db.query<{ subscription_id: string; event_id: string; date: string; before: Levels | null; after: Levels | null }>(
    levelChangesSql(ids === undefined ? 'e.subscription_id BETWEEN $1 AND $2' : 'e.subscription_id = ANY($1::bigint[])'),
    ids === undefined ? [fromId, toId] : [ids],
  );
  const bySubscription = new Map<string, LevelChange[]>();
  for (const row of r.rows) {
    let list = bySubscription.get(row.subscription_id);
    if (list === undefined) bySubscription.set(row.subscription_id, (list = []));
    list.push({ date: row.date, eventId: row.event_id, before: row.before, after: row.after });
  }
  for (const [id, changes] of bySubscription) {
    const input = byId.get(id);
    if (input === undefined) continue;
    const first = input.startDate > ctx.start ? input.startDate : ctx.start;
    const last = input.endDate !== null && input.endDate < ctx.end ? input.endDate : ctx.end;
    const over = levelsOver(changes, input.unmetered, first, last);
    input.unmetered = over.unmetered;
    if (over.levels !== undefined) input.levels = over.levels;
  }
}

/** The term's meters that are demand registers (docs/rating.md): a meter keeps its register across versions (updateService). */
export function demandCodes(ctx: Pick<RunContext, 'inForce' | 'tariff'>): Set<string> {
  const out = new Set<string>();
  for (const v of ctx.inForce ?? [{ tariff: ctx.tariff }]) for (const m of v.tariff.meteredInputs ?? []) if (m.register === 'maximum') out.add(m.code);
  return out;
}

/** A row of READINGS_SQL. */
export type ReadingsRow = {
  subscription_id: string;
  code: string;
  cur_date: string | null;
  cur_value: string | null;
  cur_kind: string | null;
  prev_date: string | null;
  prev_value: string | null;
  prev_kind: string | null;
  prev_id: string | null;
  cur_id: string | null;
  /** A demand register's highest reading after prev up to cur, when looked up (withDemandHighs). */
  high_id?: string | null;
  high_date?: string | null;
  high_value?: string | null;
  high_kind?: string | null;
  /** A ratchet's history (withRatchetHighs): by months, the highest reading in them before the term, or null. */
  ratchet?: Record<string, { id: string; date: string; value: string; kind: string } | null>;
};

/** The rating core's readings of one meter from a READINGS_SQL row (the run's check reads them the same way). */
export function meterReadingsOf(r: ReadingsRow): MeterReadings | LastReadingOnly | undefined {
  if (r.prev_date === null) return undefined;
  const previous = readingPoint(r.prev_date, r.prev_value as string, r.prev_kind);
  if (r.cur_date === null) return { previous };
  const readings: MeterReadings = { previous, current: readingPoint(r.cur_date, r.cur_value as string, r.cur_kind), estimated: r.cur_kind === 'estimated' || r.prev_kind === 'estimated' };
  if (r.high_id != null && r.high_id !== r.cur_id) readings.highest = readingPoint(r.high_date as string, r.high_value as string, r.high_kind ?? null);
  if (r.ratchet !== undefined) {
    const ratchet: Record<string, ReadingPoint | null> = {};
    for (const [months, h] of Object.entries(r.ratchet)) ratchet[months] = h === null ? null : readingPoint(h.date, h.value, h.kind);
    readings.ratchet = ratchet;
  }
  return readings;
}

/**
 * Each ratcheted demand register's highest effective reading (up to the watermark) in the
 * billing months its ratchets look back over (RunContext.ratchets), on the rows (`ratchet`, by
 * months; null when it has none there). The months are the subscription's bills: the readings
 * dated from the start of the period of its N-th bill before the term (the bills not withdrawn
 * or cancelled whose period ended before the term's start) to the day before the term. A
 * subscription with fewer bills than that (one migrated with its readings, a new one) takes its
 * last N readings before the term as its last N months (the readings after the one before
 * them), and none dated before N calendar months from the term's start. Counted in dates
 * alone, a read cycle's reading two days late a year ago was in the window though it ended the
 * twelfth month back (an outside check of a US tariff: 300 kW billed for 200). A subscription moved from another
 * (move-subscription: the same account and meter) reads the meter's readings and bills of those
 * it was moved from too: a move to another route is not a new customer (a reviewer: the carried
 * reading alone was its history). One statement for the chunk's rows of such meters; none when
 * no tariff of the term has a ratchet.
 */
export async function withRatchetHighs(db: Queryable, ctx: Pick<RunContext, 'watermark' | 'start' | 'ratchets'>, rows: ReadingsRow[], accountOf: (subscriptionId: string) => string): Promise<void> {
  const ratchets = ctx.ratchets;
  if (ratchets === undefined) return;
  const asked: { row: ReadingsRow; months: number }[] = [];
  for (const row of rows) for (const months of ratchets[row.code] ?? []) asked.push({ row, months });
  if (asked.length === 0) return;
  const found = await db.query<{ n: number; reading_id: string; reading_date: string; value: string; kind: string }>(
    `SELECT x.n, h.reading_id, h.reading_date, h.value, h.kind
       FROM unnest($1::bigint[], $2::text[], $3::int[], $6::bigint[]) WITH ORDINALITY AS x(sub, code, months, account, n)
       CROSS JOIN LATERAL (
         WITH RECURSIVE chain(id) AS (
           SELECT x.sub
           UNION ALL
           SELECT s.moved_from_subscription_id FROM subscription s JOIN chain ON s.subscription_id = chain.id WHERE s.moved_from_subscription_id IS NOT NULL)
         SELECT ARRAY(SELECT id FROM chain) AS subs,
                coalesce(${ratchetBillsSinceSql('x.account', 'SELECT id FROM chain', '$4::date', 'x.months')},
                         -- No N bills: the N readings before the term are the N months (one a month), not before N calendar months.
                         greatest(($4::date - make_interval(months => x.months))::date,
                                  (SELECT p.reading_date + 1 FROM reading p
                                    WHERE p.subscription_id IN (SELECT id FROM chain) AND p.input_code = x.code AND p.reading_date < $4::date
                                      AND p.reading_id <= $5::bigint AND ${effectiveSql('p', '$5::bigint')}
                                    ORDER BY p.reading_date DESC, p.reading_id DESC OFFSET x.months LIMIT 1))) AS since) w
       JOIN LATERAL (
         SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
          WHERE r.subscription_id = ANY (w.subs) AND r.input_code = x.code
            AND r.reading_date >= w.since AND r.reading_date < $4::date
            AND r.reading_id <= $5::bigint AND ${effectiveSql('r', '$5::bigint')}
          ORDER BY r.value DESC, r.reading_date DESC, r.reading_id DESC LIMIT 1) h ON true`,
    [asked.map((a) => a.row.subscription_id), asked.map((a) => a.row.code), asked.map((a) => a.months), ctx.start, ctx.watermark ?? NO_MARK, asked.map((a) => accountOf(a.row.subscription_id))],
  );
  for (const a of asked) (a.row.ratchet ??= {})[String(a.months)] = null;
  for (const h of found.rows) {
    const a = asked[Number(h.n) - 1]!;
    (a.row.ratchet as NonNullable<ReadingsRow['ratchet']>)[String(a.months)] = { id: h.reading_id, date: h.reading_date, value: h.value, kind: h.kind };
  }
}

/**
 * Each demand register's demand of the period before the term: its highest effective reading
 * (up to the watermark) dated in as many days before the term's start as the term has, on the
 * rows (last_demand; null when it has none there). What validate-term estimates a missing
 * demand by and judges one against: the reading before the term alone is that period's last,
 * not its demand when a check read in it was higher (a reviewer: 40.0 estimated after 60.0).
 */
export async function withLastPeriodDemand(db: Queryable, ctx: Pick<RunContext, 'watermark' | 'start' | 'end'>, rows: (ReadingsRow & { last_demand?: string | null })[], demand: ReadonlySet<string>): Promise<void> {
  if (demand.size === 0) return;
  const asked = rows.filter((r) => demand.has(r.code) && r.prev_date !== null);
  if (asked.length === 0) return;
  const found = await db.query<{ n: number; value: string | null }>(
    `SELECT x.n, (SELECT max(r.value) FROM reading r
                   WHERE r.subscription_id = x.sub AND r.input_code = x.code
                     AND r.reading_date >= $3::date - ($4::date - $3::date + 1) AND r.reading_date < $3::date
                     AND r.reading_id <= $5::bigint AND ${effectiveSql('r', '$5::bigint')})::text AS value
       FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS x(sub, code, n)`,
    [asked.map((r) => r.subscription_id), asked.map((r) => r.code), ctx.start, ctx.end, ctx.watermark ?? NO_MARK],
  );
  for (const f of found.rows) asked[Number(f.n) - 1]!.last_demand = f.value;
}

/**
 * Each demand register's highest effective reading (up to the watermark) after its previous
 * reading and up to its current one, on the rows (high_*): a register reset at a check read
 * holds less at the month's end than the month's demand (docs/rating.md, "A demand
 * register"). One statement for the rows of demand registers with a current reading; none
 * when the term has no demand register.
 */
export async function withDemandHighs(db: Queryable, watermark: string | null, rows: ReadingsRow[], demand: ReadonlySet<string>): Promise<void> {
  if (demand.size === 0) return;
  const asked = rows.filter((r) => demand.has(r.code) && r.cur_id != null && r.prev_date !== null);
  if (asked.length === 0) return;
  const found = await db.query<{ n: number; reading_id: string; reading_date: string; value: string; kind: string }>(
    `SELECT x.n, h.reading_id, h.reading_date, h.value, h.kind
       FROM unnest($1::bigint[], $2::text[], $3::date[], $4::date[]) WITH ORDINALITY AS x(sub, code, after, upto, n)
       JOIN LATERAL (
         SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
          WHERE r.subscription_id = x.sub AND r.input_code = x.code AND r.reading_date > x.after AND r.reading_date <= x.upto
            AND r.reading_id <= $5::bigint AND ${effectiveSql('r', '$5::bigint')}
          ORDER BY r.value DESC, r.reading_date DESC, r.reading_id DESC LIMIT 1) h ON true`,
    [asked.map((r) => r.subscription_id), asked.map((r) => r.code), asked.map((r) => r.prev_date), asked.map((r) => r.cur_date), watermark ?? NO_MARK],
  );
  for (const h of found.rows) {
    const r = asked[Number(h.n) - 1]!;
    r.high_id = h.reading_id;
    r.high_date = h.reading_date;
    r.high_value = h.value;
    r.high_kind = h.kind;
  }
}

/**
 * SQL: the start of the period of the N-th bill before a term (`months` of a ratchet), of the
 * subscriptions `subs` (a subquery) of the account `account`, among the bills not withdrawn or
 * cancelled whose period ended before the term's `start`; null with fewer bills. Where a
 * ratchet's billing months begin: the run (withRatchetHighs) and a reading's correction
 * (readings/correctReading.ts) read them alike.
 */
export const ratchetBillsSinceSql = (account: string, subs: string, start: string, months: string): string =>
  `(SELECT b.period_start FROM bill b
     WHERE b.account_id = ${account} AND b.subscription_id IN (${subs})
       AND b.status NOT IN ('withdrawn', 'cancelled') AND b.period_end < ${start}
     ORDER BY b.period_end DESC, b.bill_id DESC OFFSET ${months} - 1 LIMIT 1)`;

/** Each end says whether it is an estimate, so the bill says which was (`estimated` above: either). */
function readingPoint(date: string, value: string, kind: string | null): ReadingPoint {
  return kind === 'estimated' ? { date, value, estimated: true } : { date, value };
}

/**
 * Previous and current reading per roster subscription and metered input; parameters
 * $4 term start, $5 term end, $6 watermark, $7 metered input codes. The caller adds the
 * WHERE on ts. The rule is loadRosterInputs's; validate-term, the run's own check and
 * the estimates read it from here, so they agree with the bills.
 *
 * It is written with the term's dates, not the subscription's: every reading of a
 * subscription is dated within its dates (readings/, imports and the term's
 * capture-readings refuse others; estimates are dated at its end), except the readings
 * a move carries over, dated before its start and older than any other of its readings.
 * So "before the active part" and "before the term" find the same reading, or the
 * carried one is the first in the term, and "the last in the active part" is the last
 * in the term; reading the subscription row for its dates would cost a fifth more.
 */
const READINGS_COLUMNS = `
  SELECT ts.subscription_id, m.code,
         cur.reading_date AS cur_date, cur.value AS cur_value, cur.kind AS cur_kind,
         coalesce(before.reading_date, first.reading_date) AS prev_date,
         coalesce(before.value, first.value) AS prev_value,
         coalesce(before.kind, first.kind) AS prev_kind,
         coalesce(before.reading_id, first.reading_id) AS prev_id, cur.reading_id AS cur_id`;
const readingsFrom = (meters: string) => `
    FROM ${meters}
    LEFT JOIN LATERAL (
      SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date < $4::date AND r.reading_id <= $6::bigint
         AND ${effectiveSql('r', '$6::bigint')}
       ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) before ON true
    LEFT JOIN LATERAL (
      SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
       WHERE before.reading_date IS NULL
         AND r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date BETWEEN $4::date AND $5::date AND r.reading_id <= $6::bigint
         AND ${effectiveSql('r', '$6::bigint')}
       ORDER BY r.reading_date, r.reading_id LIMIT 1) first ON true
    LEFT JOIN LATERAL (
      SELECT r.reading_id, r.reading_date, r.value, r.kind FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date > coalesce(before.reading_date, first.reading_date) AND r.reading_date <= $5::date
         AND r.reading_id <= $6::bigint
         AND ${effectiveSql('r', '$6::bigint')}
       ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) cur ON true`;
const READINGS_FROM = readingsFrom('term_subscription ts\n   CROSS JOIN unnest($7::text[]) AS m(code)');
export const READINGS_SQL = READINGS_COLUMNS + READINGS_FROM;
/**
 * READINGS_SQL of given meters rather than of the roster: the parameters `subs` (bigint[])
 * and `codes` (text[]) pair a subscription with each code; the caller adds no WHERE on ts.
 */
export const readingsOfMetersSql = (subs: string, codes: string) =>
  READINGS_COLUMNS + readingsFrom(`unnest(${subs}::bigint[], ${codes}::text[]) AS ts(subscription_id, code)\n   CROSS JOIN LATERAL (SELECT ts.code) AS m(code)`);

/**
 * True for a roster meter (ts, m of READINGS_SQL, the same parameters) whose READINGS_SQL
 * row has both readings and a current one not below the previous, found from its last
 * three effective readings up to the term's end: the first dated in the term, and one of
 * the others before it. The first is then READINGS_SQL's current reading (the last up to
 * the end) and the first of the others before the term its previous one (the last before
 * the term). False for every other meter (three in the term, none before, the last before
 * the term, a current reading below the previous), so a filter `NOT` it keeps every row a
 * reading check could flag, and more. One lookup of three rows in place of READINGS_SQL's
 * two: the run's own check (checkReadings.ts) passes over the usual meter with it (issue
 * 15, docs/bill-run.md). Three, not two: a term spanning a version change often has a
 * reading on the change date.
 */
export const LAST_FIRST = 'ORDER BY last.reading_date DESC, last.reading_id DESC';
/**
 * The test of READINGS_SETTLED_SQL over `last` (lastReadingsSql), null when it has no row;
 * over more than three rows it holds for the same meters and more (three or four readings
 * in the term and one before), as the previous reading is still the first before the term.
 */
const SETTLED_TEST = `(array_agg(last.reading_date ${LAST_FIRST}))[1] >= $4::date
                   AND (array_agg(last.value ${LAST_FIRST}))[1] >= (array_agg(last.value ${LAST_FIRST}) FILTER (WHERE last.reading_date < $4::date))[1]`;
/** A roster meter's (ts, m) last `limit` effective readings up to the term's end, as `last`, newest first. */
export const lastReadingsSql = (limit: string) => `(SELECT r.reading_date, r.reading_id, r.value, r.kind FROM reading r
                     WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
                       AND r.reading_date <= $5::date AND r.reading_id <= $6::bigint
                       AND ${effectiveSql('r', '$6::bigint')}
                     ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT ${limit}) last`;
export const READINGS_SETTLED_SQL = `
  coalesce((SELECT ${SETTLED_TEST}
              FROM ${lastReadingsSql('3')}), false)`;

/**
 * READINGS_SQL and, per meter, its effective readings dated on a change date (a later
 * version's first day in the term; `dates` places the parameter), up to the watermark, as
 * an object by date (`change`, null when none): they split the consumption between the
 * segments by the readings (rating/segments.ts). In reading order, so of two on one date
 * the later is kept. A correction replaces what it corrects.
 */
function readingsWithChangeSql(dates: string, count: number): string {
  // The usual term has one change date: its reading's value alone, the last of the date, with
  // no object built per meter (a third of the lookup's cost, issue 12); the caller names it.
  if (count === 1) {
    return `${READINGS_COLUMNS}, (
      SELECT trim_scale(r.value)::text FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date = (${dates})[1] AND r.reading_id <= $6::bigint
         AND ${effectiveSql('r', '$6::bigint')}
       ORDER BY r.reading_id DESC LIMIT 1) AS change${READINGS_FROM}`;
  }
  return `${READINGS_COLUMNS}, ch.change${READINGS_FROM}
    LEFT JOIN LATERAL (
      SELECT json_object_agg(to_char(r.reading_date, 'YYYY-MM-DD'), trim_scale(r.value)::text ORDER BY r.reading_id) AS change FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date = ANY(${dates}) AND r.reading_id <= $6::bigint
         AND ${effectiveSql('r', '$6::bigint')}) ch ON true`;
}

/** Bills rated between two yields to the event loop (about 5 ms of work). */
const SLICE = 256;
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Rates each input; a subscription that cannot be rated is a failure with its reason,
 * not a stop. It yields every few milliseconds: another chunk of the same process may be
 * streaming its bills to the database while holding the run's locks, and must not wait
 * for this one's arithmetic.
 */
export async function rateRoster(ctx: RunContext, inputs: RosterInput[]): Promise<{ rated: RatedEntry[]; failed: FailedEntry[] }> {
  const rated: RatedEntry[] = [];
  const failed: FailedEntry[] = [];
  await rateEach(ctx, inputs, (r) => rated.push(r), (f) => failed.push(f));
  return { rated, failed };
}

/**
 * rateRoster's work, each bill handed to `onRated` as soon as it is rated: a chunk turns it
 * into its row at once and keeps no rated bill, so a worker holds a chunk's rows (a few
 * hundred bytes a bill) rather than its 5,000 bills with their traces (a worker's peak
 * memory went from 458 to 354 MiB, issue 15, docs/bill-run.md).
 */
export async function rateEach(ctx: RunContext, inputs: RosterInput[], onRated: (r: RatedEntry) => void, onFailed: (f: FailedEntry) => void): Promise<void> {
  for (let i = 0; i < inputs.length; i++) {
    if (i % SLICE === SLICE - 1) await yieldToEventLoop();
    const input = inputs[i] as RosterInput;
    if (input.laterBillOverlap !== undefined) {
      onFailed({ input, code: LATER_BILL_OVERLAP, reason: input.laterBillOverlap.message, details: [input.laterBillOverlap] });
      continue;
    }
    let bill: RatedBill;
    try {
      const billInput: Parameters<typeof rateBill>[0] = {
        tariff: ctx.tariff,
        term: { start: ctx.start, end: ctx.end },
        subscription: {
          startDate: input.startDate,
          endDate: input.endDate,
          unmetered: input.unmetered,
          ...(input.suspended === undefined ? {} : { suspended: input.suspended }),
          ...(input.levels === undefined ? {} : { levels: input.levels }),
        },
        readings: input.readings,
        minorUnits: ctx.minorUnits,
        rounding: ctx.rounding,
        balanceBroughtForward: input.balance,
        ...(ctx.versions === undefined
          ? input.levels === undefined
            ? {}
            : { versions: inForceOf(ctx) }
          : { versions: ctx.versions, ...(input.changeReadings === undefined ? {} : { changeReadings: input.changeReadings }) }),
      };
      // A Prepaid term's advance is priced by the version in force on its last day.
      bill =
        ctx.prepaid === undefined
          ? rateBill(billInput)
          : ratePrepaidBill(billInput, { ...ctx.prepaid, advanceTariff: ctx.versions === undefined ? ctx.tariff : (ctx.versions[ctx.versions.length - 1] as TariffVersion).tariff, prepaid: input.prepaid ?? [] });
    } catch (err) {
      if (err instanceof RatingError) {
        onFailed({ input, code: err.code, reason: err.message, details: err.details ?? [] });
      } else {
        // A crash of the rating code on one subscription's data is still that
        // subscription's failure: the other bills of the run go on.
        onFailed({ input, code: 'RATING_CRASHED', reason: err instanceof Error ? err.message : String(err), details: [] });
      }
      continue;
    }
    onRated({ input, bill });
  }
}
