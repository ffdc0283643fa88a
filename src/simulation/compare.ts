// Rating a slice of the roster both ways, by the term's tariff and by the draft, through
// the bill run's own rateRoster: the amounts a simulation shows are the amounts a run
// with either tariff would bill. No I/O of its own.
import { Dec, type RatedBill, type Tariff } from '../rating/index.ts';
import { inForceOf, rateRoster, type FailedEntry, type RosterInput, type RunContext } from '../billRun/rateRoster.ts';

export type Refusal = { code: string; reason: string; details: { path: string; message: string }[] };

export type Comparison = {
  input: RosterInput;
  current: RatedBill | null;
  draft: RatedBill | null;
  /** Set when either side could not be rated: that side's code, reason and fields. */
  failure: { current?: Refusal; draft?: Refusal } | null;
  /** The metered quantities the bill read (the current one's, else the draft's), summed; null when neither rated. */
  consumption: string | null;
};

const refusal = (f: FailedEntry): Refusal => ({ code: f.code, reason: f.reason, details: f.details });

/**
 * The consumption a bill read: each metered input's once (several components may price the
 * same meter); a demand register's reading (kW) is no consumption to add to the kWh, as the
 * bill document's history leaves it out (docs/rating.md, "A demand register").
 */
export function billConsumption(bill: RatedBill): Dec {
  const seen = new Map<string, string>();
  for (const line of bill.lines) {
    const r = line.trace.reading;
    if (r !== undefined && r.kind !== 'maximum' && !seen.has(r.input)) seen.set(r.input, r.consumption);
  }
  let sum = new Dec(0);
  for (const c of seen.values()) sum = sum.plus(c);
  return sum;
}

/**
 * The context the draft side is rated by: the term's, with the draft as its one tariff over
 * the whole term, in place of every version in force (docs/simulation.md, "A term that spans
 * a version change"). The term's `versions` must go, and `inForce` be the draft alone: rateBill rates by them when a term has
 * them and never reads `tariff`, so a draft set beside them was ignored and every difference
 * on such a term was zero (issue 13). Every rating of the draft (the chunks, a page of
 * results rated again, the solve's tries) takes its context from here.
 */
export function draftContext(ctx: RunContext, draft: Tariff): RunContext {
  const { versions: _termVersions, ...rest } = ctx;
  // A bill whose unmetered inputs change inside it is rated in segments named by inForce:
  // the draft is then its one version too (numbered as the first in force).
  return { ...rest, tariff: draft, inForce: [{ version: inForceOf(ctx)[0]?.version ?? 1, from: ctx.start, tariff: draft }] };
}

/** Each input rated by the term's tariff (its versions in force) and by the draft, in the inputs' order. */
export async function rateBothWays(ctx: RunContext, draft: Tariff, inputs: RosterInput[]): Promise<Comparison[]> {
  const current = await rateRoster(ctx, inputs);
  const drafted = await rateRoster(draftContext(ctx, draft), inputs);
  const side = (r: Awaited<ReturnType<typeof rateRoster>>) => {
    const bills = new Map<string, RatedBill>();
    for (const x of r.rated) bills.set(x.input.subscriptionId, x.bill);
    const failed = new Map<string, Refusal>();
    for (const f of r.failed) failed.set(f.input.subscriptionId, refusal(f));
    return { bills, failed };
  };
  const a = side(current);
  const b = side(drafted);
  return inputs.map((input) => {
    const id = input.subscriptionId;
    const cur = a.bills.get(id) ?? null;
    const dra = b.bills.get(id) ?? null;
    const fc = a.failed.get(id);
    const fd = b.failed.get(id);
    const failure = fc === undefined && fd === undefined ? null : { ...(fc ? { current: fc } : {}), ...(fd ? { draft: fd } : {}) };
    const read = cur ?? dra;
    return { input, current: cur, draft: dra, failure, consumption: read === null ? null : billConsumption(read).toFixed() };
  });
}
