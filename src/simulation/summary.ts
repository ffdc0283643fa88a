// A finished simulation's summary: both revenues and the difference, and the difference's
// distribution by consumption band and by batch. Sums are taken in SQL over numeric (the
// results' amounts are rounded lines), written at the currency's minor unit.
import type { Queryable } from '../db/pool.ts';
import { Dec } from '../rating/index.ts';
import { moneyText } from '../rating/money.ts';
import type { SimulationSummary } from './schemas.ts';
import { bandRows, batchRows, decileBounds, totalsRow, type DistributionRow, type SimulationRow } from './store.ts';

const AMOUNTS = ['charges', 'tax', 'total'] as const;

export async function summarize(db: Queryable, sim: SimulationRow): Promise<SimulationSummary> {
  const m = sim.minor_units;
  const money = (x: string | Dec) => moneyText(x, m);
  const distribution = (r: DistributionRow | undefined) => ({
    subscriptions: r?.subscriptions ?? 0,
    currentTotal: money(r?.current_total ?? '0'),
    draftTotal: money(r?.draft_total ?? '0'),
    difference: money(r?.difference ?? '0'),
    minDifference: r?.min_difference == null ? null : money(r.min_difference),
    maxDifference: r?.max_difference == null ? null : money(r.max_difference),
    increased: r?.increased ?? 0,
    decreased: r?.decreased ?? 0,
    unchanged: r?.unchanged ?? 0,
  });

  const t = await totalsRow(db, sim.simulation_id);
  const side = (s: 'current' | 'draft') => Object.fromEntries(AMOUNTS.map((k) => [k, money(t[`${s}_${k}`])])) as Record<(typeof AMOUNTS)[number], string>;
  const difference = Object.fromEntries(AMOUNTS.map((k) => [k, money(new Dec(t[`draft_${k}`]).minus(t[`current_${k}`]))])) as Record<(typeof AMOUNTS)[number], string>;

  const given = sim.bands !== null;
  const bounds = given ? (sim.bands as string[]).map((b) => new Dec(b).toFixed()) : await decileBounds(db, sim.simulation_id);
  const byBand = new Map((await bandRows(db, sim.simulation_id, bounds)).map((r) => [Number(r.key), r]));
  // Every band asked is answered, an empty one with zeros; deciles only where rows are.
  const bands = [];
  for (let i = 0; i <= bounds.length; i++) {
    const row = byBand.get(i);
    if (!given && row === undefined) continue;
    bands.push({ from: i === 0 ? null : (bounds[i - 1] as string), to: i === bounds.length ? null : (bounds[i] as string), ...distribution(row) });
  }
  const batches = (await batchRows(db, sim.simulation_id)).map((r) => ({ batchCode: r.key, ...distribution(r) }));
  return { rated: t.rated, failed: t.failed, current: side('current'), draft: side('draft'), difference, bands, bandsKind: given ? 'given' : 'deciles', batches };
}
