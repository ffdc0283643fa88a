// SQL of the simulation tables (migration 024). Every read by a caller is scoped by app.
import type pg from 'pg';
import type { Queryable } from '../db/pool.ts';
import { copyInto, copyLine } from '../db/copy.ts';
import { filters, statementName } from '../db/filters.ts';
import { Dec } from '../rating/index.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import type { Comparison } from './compare.ts';
import type { RosterInput, RunContext } from '../billRun/rateRoster.ts';
import type { ResultSort } from './schemas.ts';

export const SIMULATION_STATUS = Object.freeze({ Queued: 'Queued', Running: 'Running', Done: 'Done', Failed: 'Failed' } as const);

export type SimulationRow = {
  simulation_id: string;
  app_code: number;
  term_id: string;
  label: string;
  draft: Record<string, any>;
  draft_version: number | null;
  watermark: string;
  solve: Record<string, any> | null;
  bands: string[] | null;
  status: string;
  subscription_count: number;
  chunks_total: number;
  chunks_done: number;
  summary: Record<string, any> | null;
  last_error: string | null;
  created_at: string;
  created_by: string;
  finished_at: string | null;
  minor_units: number;
  /** The term's rating context when planned (migration 063); null before, or not planned yet. */
  rating_context: RunContext | null;
};

const SELECT = `
  SELECT m.simulation_id, m.app_code, m.term_id, m.label, m.draft, m.draft_version, m.watermark, m.solve,
         m.bands::text[] AS bands, m.status, m.subscription_count, m.chunks_total, m.chunks_done, m.summary, m.last_error,
         ${localTimeSql('m.created_at')} AS created_at, m.created_by, ${localTimeSql('m.finished_at')} AS finished_at, a.minor_units,
         m.rating_context
    FROM simulation m JOIN app a ON a.app_code = m.app_code`;

export async function readSimulation(db: Queryable, simulationId: string | number, appCode?: number): Promise<SimulationRow | undefined> {
  const r = await db.query<SimulationRow>(`${SELECT} WHERE m.simulation_id = $1 AND ($2::int IS NULL OR m.app_code = $2)`, [simulationId, appCode ?? null]);
  return r.rows[0];
}

export type SimulationFilter = { simulationID?: number; termID?: number; status?: string; limit?: number; offset?: number };

export async function listSimulations(db: Queryable, appCode: number, f: SimulationFilter): Promise<{ rows: SimulationRow[]; total: number }> {
  const where = `WHERE m.app_code = $1 AND ($2::bigint IS NULL OR m.simulation_id = $2) AND ($3::bigint IS NULL OR m.term_id = $3) AND ($4::text IS NULL OR m.status = $4)`;
  const params = [appCode, f.simulationID ?? null, f.termID ?? null, f.status ?? null];
  const rows = await db.query<SimulationRow>(`${SELECT} ${where} ORDER BY m.simulation_id DESC LIMIT $5 OFFSET $6`, [...params, f.limit ?? 100, f.offset ?? 0]);
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM simulation m ${where}`, params);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

export async function insertSimulation(
  db: Queryable,
  s: { appCode: number; termId: string; label: string; draft: unknown; draftVersion: number | null; watermark: string; solve: unknown; bands: string[] | null; by: string },
): Promise<string> {
  const r = await db.query<{ simulation_id: string }>(
    `INSERT INTO simulation (app_code, term_id, label, draft, draft_version, watermark, solve, bands, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::numeric[], $9) RETURNING simulation_id`,
    [s.appCode, s.termId, s.label, JSON.stringify(s.draft), s.draftVersion, s.watermark, s.solve === null ? null : JSON.stringify(s.solve), s.bands, s.by],
  );
  return r.rows[0]!.simulation_id;
}

/** The simulation row locked for a move of its status, or undefined once deleted. */
export async function lockSimulation(db: Queryable, simulationId: string): Promise<{ status: string } | undefined> {
  const r = await db.query<{ status: string }>('SELECT status FROM simulation WHERE simulation_id = $1 FOR UPDATE', [simulationId]);
  return r.rows[0];
}

export async function recordSimulationError(db: Queryable, simulationId: string, message: string, fail: boolean): Promise<void> {
  await db.query(
    `UPDATE simulation SET last_error = $2, status = CASE WHEN $3 THEN 'Failed' ELSE status END, finished_at = CASE WHEN $3 THEN now() ELSE finished_at END
      WHERE simulation_id = $1`,
    [simulationId, message.slice(0, 2000), fail],
  );
}

/** The batch of each subscription with an id in [fromId, toId]. */
export async function batchesOf(db: Queryable, fromId: string, toId: string): Promise<Map<string, string>> {
  const r = await db.query<{ subscription_id: string; batch_id: string }>('SELECT subscription_id, batch_id FROM subscription WHERE subscription_id BETWEEN $1 AND $2', [fromId, toId]);
  return new Map(r.rows.map((x) => [x.subscription_id, x.batch_id]));
}

const RESULT_COLUMNS = [
  'simulation_id', 'subscription_id', 'account_id', 'batch_id', 'consumption',
  'current_charges', 'current_tax', 'current_total', 'draft_charges', 'draft_tax', 'draft_total', 'difference',
  'inputs', 'failure',
];
const RESULT_COLUMNS_WITH_LINES = [...RESULT_COLUMNS, 'current_lines', 'draft_lines'];

/** What a result keeps of a roster input: what rateBill reads (not its ids, or the reading ids verify-bill wants). */
export type StoredInput = Omit<RosterInput, 'subscriptionId' | 'accountId' | 'readingIds'>;

/** The roster input of a stored result again, for rating it (resultLines.ts). */
export function rosterInputOf(row: { subscription_id: string; account_id: string; inputs: StoredInput }): RosterInput {
  return { ...row.inputs, subscriptionId: row.subscription_id, accountId: row.account_id };
}

const storedInput = (i: RosterInput): string => {
  const kept: StoredInput = { startDate: i.startDate, endDate: i.endDate, unmetered: i.unmetered, balance: i.balance, readings: i.readings };
  if (i.suspended !== undefined) kept.suspended = i.suspended;
  if (i.levels !== undefined) kept.levels = i.levels;
  if (i.changeReadings !== undefined) kept.changeReadings = i.changeReadings;
  return JSON.stringify(kept);
};

/**
 * One row per comparison, with one COPY (the bill run writes its bills the same way: an
 * INSERT of the same rows from JSON took twice as long). A row keeps the amounts and the
 * input both bills were rated from (some 200 bytes), not the bills' lines (2 KB with their
 * traces): they are rated again when read. `withLines`: a simulation planned before
 * migration 063 has no rating context to rate them again by, so its rows keep the lines.
 * The caller holds the chunk's row lock, so no other transaction writes the same rows.
 */
export async function insertResults(client: pg.PoolClient, simulationId: string, rows: Comparison[], batches: Map<string, string>, withLines = false): Promise<void> {
  const lines = rows.map((c) => {
    const cur = c.current;
    const dra = c.draft;
    const fields = [
      simulationId, c.input.subscriptionId, c.input.accountId, batches.get(c.input.subscriptionId) ?? null, c.consumption,
      cur?.charges, cur?.tax, cur?.total, dra?.charges, dra?.tax, dra?.total,
      c.failure === null && cur && dra ? new Dec(dra.total).minus(cur.total).toFixed() : null,
      storedInput(c.input), c.failure === null ? null : JSON.stringify(c.failure),
    ];
    if (withLines) fields.push(cur ? JSON.stringify(cur.lines) : null, dra ? JSON.stringify(dra.lines) : null);
    return copyLine(fields);
  });
  await copyInto(client, 'simulation_result', withLines ? RESULT_COLUMNS_WITH_LINES : RESULT_COLUMNS, lines);
}

export type ResultRow = {
  subscription_id: string;
  account_id: string;
  account_number: string;
  account_name: string;
  batch_code: string;
  consumption: string | null;
  current_charges: string | null;
  current_tax: string | null;
  current_total: string | null;
  draft_charges: string | null;
  draft_tax: string | null;
  draft_total: string | null;
  difference: string | null;
  current_lines: any[] | null;
  draft_lines: any[] | null;
  /** Null where the lines are kept (before migration 063), or when asked without lines. */
  inputs: StoredInput | null;
  failure: Record<string, any> | null;
};

// Each order is one of an index of simulation_result (migrations 063 and 096), so a page is
// read off an index in order and a page of a million results is not a sort of a million.
const ORDER: Record<ResultSort, string> = {
  difference: 'r.difference ASC NULLS LAST, r.subscription_id',
  '-difference': 'r.difference DESC NULLS LAST, r.subscription_id',
  size: 'abs(r.difference) DESC NULLS LAST, r.subscription_id',
  subscriptionID: 'r.subscription_id',
};

export type ResultFilter = { sort?: ResultSort; failed?: boolean; batchCode?: string; accountNumber?: string; lines?: boolean };

/**
 * A simulation's results as one query: the filters given (one statement per shape, so each
 * keeps its plan), in the order asked.
 */
function resultQuery(simulationId: string, f: ResultFilter): { text: string; where: string; params: unknown[] } {
  const w = filters('r.simulation_id = $1', simulationId);
  if (f.failed !== undefined) w.where.push(f.failed ? 'r.failure IS NOT NULL' : 'r.failure IS NULL');
  if (f.batchCode !== undefined) w.add((p) => `b.batch_code = ${p}`, f.batchCode);
  if (f.accountNumber !== undefined) w.add((p) => `ac.account_number = ${p}`, f.accountNumber);
  const lines = f.lines === false ? 'NULL::jsonb AS current_lines, NULL::jsonb AS draft_lines, NULL::json AS inputs' : 'r.current_lines, r.draft_lines, r.inputs';
  const text = `SELECT r.subscription_id, r.account_id, ac.account_number, ac.name AS account_name, b.batch_code, r.consumption::text AS consumption,
            r.current_charges, r.current_tax, r.current_total, r.draft_charges, r.draft_tax, r.draft_total, r.difference, ${lines}, r.failure
       FROM simulation_result r
       JOIN account ac ON ac.account_id = r.account_id
       JOIN batch b ON b.batch_id = r.batch_id
      WHERE ${w.sql()}
      ORDER BY ${ORDER[f.sort ?? '-difference']}`;
  return { text, where: w.sql(), params: w.params };
}

/**
 * A page of a simulation's results with the account and batch, and how many match. The
 * count of a finished simulation's results, unfiltered or filtered by failure only, is its
 * summary's: counting a million rows for every page took longer than the page.
 */
export async function resultPage(db: Queryable, sim: SimulationRow, f: ResultFilter & { limit: number; offset: number }): Promise<{ rows: ResultRow[]; total: number }> {
  const q = resultQuery(sim.simulation_id, f);
  const n = q.params.length;
  const rows = await db.query<ResultRow>({ name: statementName('simulation-results', q.text), text: `${q.text} LIMIT $${n + 1} OFFSET $${n + 2}`, values: [...q.params, f.limit, f.offset] });
  const summary = sim.status === SIMULATION_STATUS.Done ? (sim.summary as { rated?: number; failed?: number } | null) : null;
  if (summary && typeof summary.rated === 'number' && typeof summary.failed === 'number' && f.batchCode === undefined && f.accountNumber === undefined) {
    return { rows: rows.rows, total: f.failed === true ? summary.failed : f.failed === false ? summary.rated : summary.rated + summary.failed };
  }
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM simulation_result r JOIN batch b ON b.batch_id = r.batch_id JOIN account ac ON ac.account_id = r.account_id WHERE ${q.where}`,
    q.params,
  );
  return { rows: rows.rows, total: total.rows[0]!.n };
}

/**
 * Every result of a simulation, in the order asked, `size` rows at a time, read by one
 * cursor in one read-only transaction on a connection of its own (released when the
 * reading ends or stops): pages by OFFSET made an export of a million results read a
 * quarter of a million rows again for every page.
 */
export async function* allResults(db: pg.Pool, simulationId: string, f: ResultFilter, size: number): AsyncGenerator<ResultRow[]> {
  const q = resultQuery(simulationId, f);
  const client = await db.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`DECLARE results NO SCROLL CURSOR FOR ${q.text}`, q.params);
    for (;;) {
      const r = await client.query<ResultRow>(`FETCH ${size} FROM results`);
      if (r.rows.length > 0) yield r.rows;
      if (r.rows.length < size) break;
    }
    await client.query('COMMIT');
  } finally {
    // Stopped part way (the client went away): the transaction is ended before the connection goes back.
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

/** Consumption deciles of the rows rated both ways (distinct bounds, ascending). */
export async function decileBounds(db: Queryable, simulationId: string): Promise<string[]> {
  const r = await db.query<{ q: string[] | null }>(
    `SELECT percentile_disc(ARRAY[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) WITHIN GROUP (ORDER BY consumption)::text[] AS q
       FROM simulation_result WHERE simulation_id = $1 AND failure IS NULL`,
    [simulationId],
  );
  return [...new Set(r.rows[0]?.q ?? [])];
}

export type DistributionRow = {
  key: string;
  subscriptions: number;
  current_total: string;
  draft_total: string;
  difference: string;
  min_difference: string | null;
  max_difference: string | null;
  increased: number;
  decreased: number;
  unchanged: number;
};

const DISTRIBUTION = `count(*)::int AS subscriptions, coalesce(sum(r.current_total), 0) AS current_total, coalesce(sum(r.draft_total), 0) AS draft_total,
  coalesce(sum(r.difference), 0) AS difference, min(r.difference) AS min_difference, max(r.difference) AS max_difference,
  count(*) FILTER (WHERE r.difference > 0)::int AS increased, count(*) FILTER (WHERE r.difference < 0)::int AS decreased,
  count(*) FILTER (WHERE r.difference = 0)::int AS unchanged`;

/** Rows rated both ways by band: the band's index is how many bounds the consumption is above. */
export async function bandRows(db: Queryable, simulationId: string, bounds: string[]): Promise<DistributionRow[]> {
  const r = await db.query<DistributionRow>(
    `SELECT (SELECT count(*) FROM unnest($2::numeric[]) AS u(b) WHERE r.consumption > u.b)::text AS key, ${DISTRIBUTION}
       FROM simulation_result r WHERE r.simulation_id = $1 AND r.failure IS NULL GROUP BY 1`,
    [simulationId, bounds],
  );
  return r.rows;
}

export async function batchRows(db: Queryable, simulationId: string): Promise<DistributionRow[]> {
  const r = await db.query<DistributionRow>(
    `SELECT b.batch_code AS key, ${DISTRIBUTION}
       FROM simulation_result r JOIN batch b ON b.batch_id = r.batch_id
      WHERE r.simulation_id = $1 AND r.failure IS NULL GROUP BY b.batch_code ORDER BY b.batch_code`,
    [simulationId],
  );
  return r.rows;
}

export type TotalsRow = {
  rated: number;
  failed: number;
  current_charges: string;
  current_tax: string;
  current_total: string;
  draft_charges: string;
  draft_tax: string;
  draft_total: string;
};

export async function totalsRow(db: Queryable, simulationId: string): Promise<TotalsRow> {
  const r = await db.query<TotalsRow>(
    `SELECT count(*) FILTER (WHERE failure IS NULL)::int AS rated, count(*) FILTER (WHERE failure IS NOT NULL)::int AS failed,
            ${['current', 'draft'].flatMap((s) => ['charges', 'tax', 'total'].map((k) => `coalesce(sum(${s}_${k}) FILTER (WHERE failure IS NULL), 0) AS ${s}_${k}`)).join(', ')}
       FROM simulation_result WHERE simulation_id = $1`,
    [simulationId],
  );
  return r.rows[0]!;
}
