// A stored result's lines: a simulation planned since migration 063 keeps, per result, the
// input both bills were rated from and not their lines (2 KB a row with the traces, most of
// what a simulation cost to write). A page of results is rated again here both ways by the
// same rateBothWays, with the rating context and draft kept on the record: the rating core
// is pure, so the lines are those the amounts were summed from. Rows that keep their lines
// (older simulations) are answered as stored.
import { invalidState } from '../errors.ts';
import { Dec, type Tariff } from '../rating/index.ts';
import { rateBothWays } from './compare.ts';
import { rosterInputOf, type ResultRow, type SimulationRow, type StoredInput } from './store.ts';

/** The rows with current_lines and draft_lines set on each side that was rated. */
export async function withResultLines(sim: SimulationRow, rows: ResultRow[]): Promise<ResultRow[]> {
  const rerate = rows.filter((r) => r.inputs !== null);
  if (rerate.length === 0) return rows;
  if (sim.rating_context === null) throw stale(sim.simulation_id);
  const compared = await rateBothWays(
    sim.rating_context,
    sim.draft as Tariff,
    rerate.map((r) => rosterInputOf(r as ResultRow & { inputs: StoredInput })),
  );
  const byId = new Map(compared.map((c) => [c.input.subscriptionId, c]));
  return rows.map((r) => {
    const c = byId.get(r.subscription_id);
    if (c === undefined) return r;
    // The amounts shown are the stored ones; lines that do not add up to them would be a
    // rating core changed since the simulation ran: said, not shown as if they did.
    for (const side of ['current', 'draft'] as const) {
      const bill = c[side];
      const stored = r[`${side}_total`];
      if ((stored === null) !== (bill === null) || (bill !== null && !new Dec(bill.total).eq(stored as string))) {
        throw stale(sim.simulation_id, r.subscription_id, side);
      }
    }
    return { ...r, current_lines: c.current?.lines ?? null, draft_lines: c.draft?.lines ?? null };
  });
}

// A user can read an old simulation after an upgrade changed the rating core: a clear 409
// naming what to do, not a 500.
function stale(simulationId: number | string, subscriptionId?: number | string, side?: string) {
  const why = subscriptionId === undefined ? 'it keeps no rating context' : `subscription ${subscriptionId} rated again does not give its stored ${side} amount`;
  return invalidState(`The lines of simulation ${simulationId} cannot be shown again (${why}): the rating code changed since it ran. Run the simulation again.`, 'data.simulationID');
}
