// simulate-tariff: the checks of the request, the simulation record and its plan job in
// one transaction, and, for a roster that fits one chunk, the run itself in the request.
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { invalidState, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { listTerms } from '../billRun/termStore.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';
import { checkTariff, Dec, type Tariff } from '../rating/index.ts';
import type { SimulateTariffData } from './schemas.ts';
import { locateRate } from './solve.ts';
import { insertSimulation, recordSimulationError } from './store.ts';
import { addPlanJob } from './jobs.ts';
import { finishSimulation, planSimulation, runSimulationChunk } from './runSimulation.ts';

/** The pricing arrays of a template definition: what the rating core reads. */
export function tariffPart(d: Record<string, any>): Tariff {
  return {
    values: d.values ?? [],
    meteredInputs: d.meteredInputs ?? [],
    unmeteredInputs: d.unmeteredInputs ?? [],
    connectionInputs: d.connectionInputs ?? [],
    components: d.components ?? [],
  };
}

/** Answers the new simulation's id; it is Done when it ran in the request, else Queued for the workers. */
export async function simulateTariff(db: pg.Pool, caller: Caller, data: SimulateTariffData, o: { chunkSize: number }): Promise<string> {
  const term = (await listTerms(db, caller.appCode, { termID: data.termID }))[0];
  if (!term) throw notFound('term', 'data.termID');
  if (term.status === TERM_STATUS.Cancelled) throw invalidState('The term is cancelled: it has no roster to simulate.');
  if (term.roster_loaded_at === null) throw invalidState('The term has no roster yet: load-subscriptions first (a simulation rates the roster).');

  if ((data.draft === undefined) === (data.draftVersion === undefined)) {
    throw validationFailed([{ path: 'data.draft', message: 'give exactly one of draft (a tariff not saved) and draftVersion (a saved version)' }]);
  }
  let draft: Tariff;
  let draftVersion: number | null = null;
  if (data.draft !== undefined) {
    draft = tariffPart(data.draft);
    // The same check make-service makes of a template's pricing arrays.
    const issues = checkTariff(draft, 'data.draft');
    if (issues.length > 0) throw validationFailed(issues, 'The draft tariff is not valid.');
  } else {
    const v = await db.query<{ definition: Record<string, any> }>('SELECT definition FROM service_version WHERE service_id = $1 AND version = $2', [
      term.service_id,
      data.draftVersion,
    ]);
    if (!v.rows[0]) throw notFound(`version ${data.draftVersion} of template ${term.service_code}`, 'data.draftVersion');
    draft = tariffPart(v.rows[0].definition);
    draftVersion = data.draftVersion as number;
  }

  const issues: ErrorDetail[] = [];
  if (data.solve !== undefined) {
    const at = locateRate(draft, data.solve, 'data.solve');
    if (Array.isArray(at)) issues.push(...at);
  }
  const bands = data.bands?.map((b) => new Dec(b));
  bands?.forEach((b, i) => {
    if (i > 0 && !b.gt(bands[i - 1]!)) issues.push({ path: `data.bands[${i}]`, message: `band bounds must rise: ${b.toFixed()} is not above ${bands[i - 1]!.toFixed()}` });
  });
  if (issues.length > 0) throw validationFailed(issues);

  const roster = await db.query<{ n: number; mark: string }>(
    `SELECT (SELECT count(*)::int FROM term_subscription WHERE term_id = $1) AS n, (SELECT coalesce(max(reading_id), 0)::text FROM reading) AS mark`,
    [term.term_id],
  );
  const { n, mark } = roster.rows[0]!;
  const inline = !data.background && n <= o.chunkSize;
  const id = await inTransaction(db, async (tx) => {
    const id = await insertSimulation(tx, {
      appCode: caller.appCode,
      termId: term.term_id,
      label: data.label ?? '',
      draft,
      draftVersion,
      // A processed (or approved) term's own watermark: the readings its bills used.
      watermark: term.reading_watermark ?? mark,
      solve: data.solve ?? null,
      bands: bands?.map((b) => b.toFixed()) ?? null,
      by: caller.email,
    });
    if (!inline) await addPlanJob(tx, id);
    return id;
  });
  if (inline) {
    try {
      for (const chunk of await planSimulation(db, id, o.chunkSize, false)) await runSimulationChunk(db, id, chunk, null, false);
      await finishSimulation(db, id);
    } catch (err) {
      await recordSimulationError(db, id, err instanceof Error ? err.message : String(err), true).catch(() => {});
      throw err;
    }
  }
  return id;
}
