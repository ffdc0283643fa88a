// A simulation's three steps, run by the queue's jobs (tasks.ts) or, for a roster of one
// chunk, inside the request (simulateTariff.ts): the same functions either way.
//   plan:   solve the asked rate (if any), split the roster into chunks;
//   chunk:  rate a slice both ways (compare.ts), write its results, count it done;
//   finish: totals and distributions into the record's summary.
// Like the bill run's chunks, a chunk writes its results and marks itself done in one
// transaction, so a chunk run twice (a worker killed, a retry) writes nothing twice, and
// two workers share a simulation's chunks.
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { attempt, Dec, prepareTariff, type Tariff } from '../rating/index.ts';
import { moneyText } from '../rating/money.ts';
import { readTerm } from '../billRun/termStore.ts';
import { loadRosterInputs, ratchetsOf, rateRoster, runContext, type RosterInput, type RunContext } from '../billRun/rateRoster.ts';
import { rosterSlices } from '../billRun/roster.ts';
import { draftContext, rateBothWays } from './compare.ts';
import { locateRate, solveRate, withRate, type RateAddress } from './solve.ts';
import { addChunkJobs, addFinishJob } from './jobs.ts';
import { summarize } from './summary.ts';
import { batchesOf, insertResults, lockSimulation, readSimulation, SIMULATION_STATUS as S, type SimulationRow } from './store.ts';

/**
 * The bill run's context of the simulation's term, at the simulation's watermark, reading
 * the meters both tariffs use (a draft may price a meter the term's tariff does not).
 */
export async function simulationContext(db: Queryable, sim: SimulationRow): Promise<{ ctx: RunContext; draft: Tariff }> {
  const term = await readTerm(db, sim.term_id);
  if (!term) throw new Error(`term ${sim.term_id} of simulation ${sim.simulation_id} is gone`);
  const ctx = await runContext(db, term, sim.watermark);
  const draft = sim.draft as Tariff;
  const prepared = attempt(() => prepareTariff(draft));
  const codes = new Set(ctx.meteredCodes);
  if (prepared.ok) for (const m of prepared.value.meteredNeeded) codes.add(m.code);
  // A draft's ratchets read their meters' history too (rateRoster.ts, withRatchetHighs).
  const ratchets = ratchetsOf([...(ctx.inForce ?? [{ tariff: ctx.tariff }]).map((v) => v.tariff), draft]);
  return { ctx: { ...ctx, meteredCodes: [...codes], ...(Object.keys(ratchets).length > 0 ? { ratchets } : {}) }, draft };
}

/** Every roster subscription's inputs, slice by slice (the solve rates them many times). */
async function wholeRoster(db: Queryable, ctx: RunContext, chunkSize: number): Promise<RosterInput[]> {
  const all: RosterInput[] = [];
  for (const [from, to] of await rosterSlices(db, ctx.termId, chunkSize, { withBilled: true })) {
    for (const input of await loadRosterInputs(db, ctx, from, to, { withBilled: true })) all.push(input);
  }
  return all;
}

type SolveState = RateAddress & { target: string; measure?: 'total' | 'charges'; answer?: Record<string, unknown> };

/**
 * Solves the asked rate on the whole roster: revenue-neutral is the term's tariff's
 * revenue over the subscriptions both tariffs rate. Answers the draft to rate (the rate
 * found in place) and the solve's answer; no rate found leaves the draft as sent, and
 * says why.
 */
async function solveDraft(db: Queryable, sim: SimulationRow, chunkSize: number): Promise<{ draft: Tariff; solve: SolveState }> {
  const asked = sim.solve as SolveState;
  const { ctx, draft } = await simulationContext(db, sim);
  const located = locateRate(draft, asked, 'data.solve');
  if (Array.isArray(located)) throw new Error(located[0]!.message); // checked when asked
  const measure = asked.measure ?? 'total';
  // Only the inputs both tariffs rate and the current revenue are kept, not the bills:
  // the search holds the roster's inputs and one rating's bills at a time.
  let rateable = await wholeRoster(db, ctx, chunkSize);
  const draftBills = new Map((await rateRoster(draftContext(ctx, draft), rateable)).rated.map((r) => [r.input.subscriptionId, r.bill[measure]]));
  let current = new Dec(0);
  let asSent = new Dec(0);
  const both: RosterInput[] = [];
  for (const r of (await rateRoster(ctx, rateable)).rated) {
    const drafted = draftBills.get(r.input.subscriptionId);
    if (drafted === undefined) continue;
    both.push(r.input);
    current = current.plus(r.bill[measure]);
    asSent = asSent.plus(drafted);
  }
  rateable = both;
  draftBills.clear();
  const target = asked.target === 'revenueNeutral' ? current : new Dec(asked.target);
  const step = new Dec(1).div(new Dec(10).pow(ctx.minorUnits));
  const revenue = async (rate: Dec) => {
    const tried = withRate(draft, located, rate.toFixed());
    const r = await rateRoster(draftContext(ctx, tried), rateable);
    return r.rated.reduce((s, x) => s.plus(x.bill[measure]), new Dec(0));
  };
  // The draft as sent was rated above: its revenue over the same subscriptions is the search's first rate's.
  const solved = await solveRate({ start: located.current, step, target, revenue, known: { rate: located.current, revenue: asSent } });
  const answer = {
    componentCode: asked.componentCode,
    tierIndex: located.tierIndex,
    parameter: located.parameter,
    measure,
    target: asked.target,
    targetRevenue: moneyText(target, ctx.minorUnits),
    startRate: located.current.toFixed(),
    rate: solved.ok ? solved.rate.toFixed(ctx.minorUnits) : null,
    revenue: solved.ok ? moneyText(solved.revenue, ctx.minorUnits) : null,
    step: step.toFixed(),
    evaluations: solved.evaluations,
    error: solved.ok ? null : solved.reason,
  };
  return { draft: solved.ok ? withRate(draft, located, solved.rate.toFixed(ctx.minorUnits)) : draft, solve: { ...asked, answer } };
}

/** Plan: the solve, then the chunks (and their jobs when `queue`). Answers the chunk numbers to run. */
export async function planSimulation(db: pg.Pool, simulationId: string, chunkSize: number, queue: boolean): Promise<number[]> {
  const sim = await readSimulation(db, simulationId);
  if (!sim || sim.status !== S.Queued) return [];
  // The slow part, outside the transaction: every rating of the search.
  const solved = sim.solve !== null && sim.solve.answer === undefined ? await solveDraft(db, sim, chunkSize) : null;
  // The context every chunk rates by, and a page of results rates again by to show its lines.
  const { ctx } = await simulationContext(db, sim);
  return inTransaction(db, async (tx) => {
    const now = await lockSimulation(tx, simulationId);
    if (!now || now.status !== S.Queued) return [];
    const slices = await rosterSlices(tx, sim.term_id, chunkSize, { withBilled: true });
    await tx.query(
      `INSERT INTO simulation_chunk (simulation_id, chunk_no, from_id, to_id)
       SELECT $1, n, f, t FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS u(f, t, n)`,
      [simulationId, slices.map((s) => s[0]), slices.map((s) => s[1])],
    );
    const roster = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM term_subscription WHERE term_id = $1', [sim.term_id]);
    await tx.query(
      `UPDATE simulation SET status = 'Running', started_at = now(), chunks_total = $2, subscription_count = $3,
              draft = coalesce($4::jsonb, draft), solve = coalesce($5::jsonb, solve), rating_context = $6 WHERE simulation_id = $1`,
      [simulationId, slices.length, roster.rows[0]!.n, solved ? JSON.stringify(solved.draft) : null, solved ? JSON.stringify(solved.solve) : null, JSON.stringify(ctx)],
    );
    if (queue) {
      if (slices.length > 0) await addChunkJobs(tx, simulationId);
      else await addFinishJob(tx, simulationId);
    }
    return slices.map((_, i) => i + 1);
  });
}

/** One chunk: its slice rated both ways, its results written and the chunk counted, in one transaction. */
export async function runSimulationChunk(db: pg.Pool, simulationId: string, chunkNo: number, worker: string | null, queue: boolean): Promise<void> {
  const found = await db.query<{ from_id: string; to_id: string }>(
    'SELECT from_id, to_id FROM simulation_chunk WHERE simulation_id = $1 AND chunk_no = $2 AND done_at IS NULL',
    [simulationId, chunkNo],
  );
  const chunk = found.rows[0];
  if (!chunk) return;
  const sim = await readSimulation(db, simulationId);
  if (!sim || sim.status !== S.Running) return;
  // Planned since migration 063: the context kept at plan (so every chunk, and every read,
  // rates by the same one); planned before: the term's now, and the rows keep their lines.
  const { ctx, draft } = sim.rating_context !== null ? { ctx: sim.rating_context, draft: sim.draft as Tariff } : await simulationContext(db, sim);
  const compared = await rateBothWays(ctx, draft, await loadRosterInputs(db, ctx, chunk.from_id, chunk.to_id, { withBilled: true }));
  const batches = await batchesOf(db, chunk.from_id, chunk.to_id);
  await inTransaction(db, async (tx) => {
    // The simulation before its chunk, as delete-simulation takes them (its row, then the
    // chunks by cascade): the other order deadlocked a delete against a running chunk (a 500).
    const now = await lockSimulation(tx, simulationId);
    if (!now || now.status !== S.Running) return;
    const c = await tx.query('SELECT 1 FROM simulation_chunk WHERE simulation_id = $1 AND chunk_no = $2 AND done_at IS NULL FOR UPDATE', [simulationId, chunkNo]);
    if (c.rowCount === 0) return;
    await insertResults(tx, simulationId, compared, batches, sim.rating_context === null);
    await tx.query('UPDATE simulation_chunk SET done_at = now(), done_by = $3 WHERE simulation_id = $1 AND chunk_no = $2', [simulationId, chunkNo, worker]);
    const p = await tx.query<{ chunks_done: number; chunks_total: number }>(
      'UPDATE simulation SET chunks_done = chunks_done + 1 WHERE simulation_id = $1 RETURNING chunks_done, chunks_total',
      [simulationId],
    );
    const progress = p.rows[0];
    if (queue && progress && progress.chunks_done >= progress.chunks_total) await addFinishJob(tx, simulationId);
  });
}

/** Finish: the summary (totals, bands, batches) of the written results; the simulation is Done. */
export async function finishSimulation(db: pg.Pool, simulationId: string): Promise<void> {
  const sim = await readSimulation(db, simulationId);
  if (!sim || sim.status !== S.Running) return;
  const summary = await summarize(db, sim);
  await inTransaction(db, async (tx) => {
    const now = await lockSimulation(tx, simulationId);
    if (!now || now.status !== S.Running) return;
    await tx.query(`UPDATE simulation SET status = 'Done', summary = $2, finished_at = now(), last_error = NULL WHERE simulation_id = $1`, [
      simulationId,
      JSON.stringify(summary),
    ]);
  });
}
