// The one path from database rows to rated bills, used by validate-term's preview and
// by the run's chunks alike: a preview that disagrees with the bills would be a bug.
import type { Queryable } from '../db/pool.ts';
import { prepareTariff, rateBill, RatingError, type RatedBill, type RoundingMode, type Tariff } from '../rating/index.ts';
import { tariffOf, type TermRow } from './store.ts';

export type RunContext = {
  termId: string;
  appCode: number;
  start: string;
  end: string;
  dueDate: string;
  /** Readings above this id are ignored (null: every reading, before approval). */
  watermark: string | null;
  tariff: Tariff;
  meteredCodes: string[];
  minorUnits: number;
  rounding: RoundingMode;
};

export type RosterInput = {
  subscriptionId: string;
  accountId: string;
  startDate: string;
  endDate: string | null;
  unmetered: Record<string, string | number>;
  balance: string;
  readings: Record<string, { previous: { date: string; value: string }; current: { date: string; value: string }; estimated: boolean } | undefined>;
};

export type RatedEntry = { input: RosterInput; bill: RatedBill };
export type FailedEntry = { input: RosterInput; code: string; reason: string; details: { path: string; message: string }[] };

// A template version never changes, so its parsed tariff (and the rating core's
// preparation, cached by object identity) is kept for the life of the process.
const tariffs = new Map<string, Tariff>();

export async function runContext(db: Queryable, term: TermRow, watermark: string | null = term.reading_watermark): Promise<RunContext> {
  let tariff = tariffs.get(term.service_version_id);
  if (tariff === undefined) {
    tariff = (await tariffOf(db, term.service_version_id)) as Tariff;
    if (tariffs.size > 100) tariffs.clear();
    tariffs.set(term.service_version_id, tariff);
  }
  // An invalid stored tariff is refused when rated, per subscription, with its reason.
  let meteredCodes: string[] = [];
  try {
    meteredCodes = prepareTariff(tariff).meteredNeeded.map((m) => m.code);
  } catch (err) {
    if (!(err instanceof RatingError)) throw err;
  }
  return {
    termId: term.term_id,
    appCode: term.app_code,
    start: term.start_date,
    end: term.end_date,
    dueDate: term.due_date,
    watermark,
    tariff,
    meteredCodes,
    minorUnits: term.minor_units,
    rounding: term.rounding_mode as RoundingMode,
  };
}

const NO_MARK = '9223372036854775807';

/**
 * The inputs of the roster subscriptions with ids in [fromId, toId] that have no live
 * bill in this term yet (so a chunk run twice rates nothing twice).
 *
 * Readings, per metered input: the current one is the last effective reading dated in
 * the term; the previous one is the last effective reading dated before the term, or,
 * for a subscription with none (a new connection), the first one in the term before
 * the current. Effective: not corrected by another row (both up to the watermark).
 */
export async function loadRosterInputs(db: Queryable, ctx: RunContext, fromId: string, toId: string): Promise<RosterInput[]> {
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
        AND NOT EXISTS (SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.subscription_id = ts.subscription_id AND b.status <> 'withdrawn')
      ORDER BY ts.subscription_id`,
    [ctx.termId, fromId, toId],
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
  if (ctx.meteredCodes.length === 0 || inputs.length === 0) return inputs;
  const byId = new Map(inputs.map((i) => [i.subscriptionId, i]));
  const readings = await db.query<{
    subscription_id: string;
    code: string;
    cur_date: string | null;
    cur_value: string | null;
    cur_kind: string | null;
    prev_date: string | null;
    prev_value: string | null;
    prev_kind: string | null;
  }>(
    `${READINGS_SQL}
      WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3`,
    [ctx.termId, fromId, toId, ctx.start, ctx.end, ctx.watermark ?? NO_MARK, ctx.meteredCodes],
  );
  for (const r of readings.rows) {
    const input = byId.get(r.subscription_id);
    if (input === undefined || r.cur_date === null || r.prev_date === null) continue; // billed meanwhile, or a reading is missing
    input.readings[r.code] = {
      previous: { date: r.prev_date, value: r.prev_value as string },
      current: { date: r.cur_date, value: r.cur_value as string },
      estimated: r.cur_kind === 'estimated' || r.prev_kind === 'estimated',
    };
  }
  return inputs;
}

/**
 * Previous and current reading per roster subscription and metered input; parameters
 * $4 start, $5 end, $6 watermark, $7 metered input codes. The caller adds the WHERE on ts.
 */
export const READINGS_SQL = `
  SELECT ts.subscription_id, m.code,
         cur.reading_date AS cur_date, cur.value AS cur_value, cur.kind AS cur_kind,
         coalesce(before.reading_date, first.reading_date) AS prev_date,
         coalesce(before.value, first.value) AS prev_value,
         coalesce(before.kind, first.kind) AS prev_kind
    FROM term_subscription ts
   CROSS JOIN unnest($7::text[]) AS m(code)
    LEFT JOIN LATERAL (
      SELECT r.reading_date, r.value, r.kind FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date BETWEEN $4::date AND $5::date AND r.reading_id <= $6::bigint
         AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id AND c.reading_id <= $6::bigint)
       ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) cur ON true
    LEFT JOIN LATERAL (
      SELECT r.reading_date, r.value, r.kind FROM reading r
       WHERE r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date < $4::date AND r.reading_id <= $6::bigint
         AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id AND c.reading_id <= $6::bigint)
       ORDER BY r.reading_date DESC, r.reading_id DESC LIMIT 1) before ON true
    LEFT JOIN LATERAL (
      SELECT r.reading_date, r.value, r.kind FROM reading r
       WHERE before.reading_date IS NULL AND cur.reading_date IS NOT NULL
         AND r.subscription_id = ts.subscription_id AND r.input_code = m.code
         AND r.reading_date >= $4::date AND r.reading_date < cur.reading_date AND r.reading_id <= $6::bigint
         AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id AND c.reading_id <= $6::bigint)
       ORDER BY r.reading_date, r.reading_id LIMIT 1) first ON true`;

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
  for (let i = 0; i < inputs.length; i++) {
    if (i % SLICE === SLICE - 1) await yieldToEventLoop();
    const input = inputs[i] as RosterInput;
    try {
      const bill = rateBill({
        tariff: ctx.tariff,
        term: { start: ctx.start, end: ctx.end },
        subscription: { startDate: input.startDate, endDate: input.endDate, unmetered: input.unmetered },
        readings: input.readings,
        minorUnits: ctx.minorUnits,
        rounding: ctx.rounding,
        balanceBroughtForward: input.balance,
      });
      rated.push({ input, bill });
    } catch (err) {
      if (err instanceof RatingError) {
        failed.push({ input, code: err.code, reason: err.message, details: err.details ?? [] });
      } else {
        // A crash of the rating code on one subscription's data is still that
        // subscription's failure: the other bills of the run go on.
        failed.push({ input, code: 'RATING_CRASHED', reason: err instanceof Error ? err.message : String(err), details: [] });
      }
    }
  }
  return { rated, failed };
}
