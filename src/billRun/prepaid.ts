// The bill run's part of a Prepaid template (docs/templates.md, "Prepaid"): whether a
// term is Prepaid and its cycle (from the term's own version), and, per roster
// subscription, the advances earlier live bills billed that this term may settle. The
// rating is the core's (rating/prepaid.ts); what a bill was made from goes in its source
// (billSource.ts) so that verify-bill rates it again from the same advances.
import type { Queryable } from '../db/pool.ts';
import type { PrepaidAdvance, PrepaidInput, PrepaidRatedBill, RatedBill } from '../rating/index.ts';
import { comingPeriod } from '../rating/index.ts';
import type { RosterInput } from './rateRoster.ts';
import { CYCLE_MONTHS, type BillingCycleId } from '../calendar/cycles.ts';


/**
 * What a run of a Prepaid term needs beside the Postpaid context. The advance's tariff is
 * not kept here: rateRoster takes it from the context's tariff (the last of its versions),
 * so that a tariff simulation's draft prices the advance too.
 */
export type PrepaidContext = Omit<PrepaidInput, 'prepaid' | 'advanceTariff'>;

/**
 * The Prepaid context of a term, or undefined for a Postpaid one. The charging type and
 * the cycle are the term's own version's (as its post type is).
 */
export async function prepaidContext(db: Queryable, serviceVersionId: string): Promise<PrepaidContext | undefined> {
  const r = await db.query<{ charging_type: string | null; billing_cycle: number | null }>(
    `SELECT definition->>'chargingType' AS charging_type, (definition->>'billingCycle')::int AS billing_cycle FROM service_version WHERE service_version_id = $1`,
    [serviceVersionId],
  );
  const row = r.rows[0];
  if (row === undefined || row.charging_type !== 'Prepaid') return undefined;
  return { cycleMonths: CYCLE_MONTHS[(row.billing_cycle ?? 1) as BillingCycleId] ?? 1 };
}

/**
 * The advances of the chunk's roster subscriptions (ids in [fromId, toId]) billed by live
 * bills of other terms that reach into this term or its coming period, each with the
 * days other live bills settled already (their source's prepaid.settles): a day paid in
 * advance is settled (used or credited) once. Attached to the inputs as `prepaid`.
 */
export async function loadPrepaidAdvances(
  db: Queryable,
  ctx: { termId: string; start: string; end: string; prepaid?: PrepaidContext },
  byId: ReadonlyMap<string, RosterInput>,
  fromId: string,
  toId: string,
): Promise<void> {
  if (ctx.prepaid === undefined || byId.size === 0) return;
  for (const input of byId.values()) input.prepaid = [];
  const coming = comingPeriod(ctx.end, ctx.prepaid.cycleMonths);
  const r = await db.query<{ subscription_id: string; bill_id: string; bill_number: string; advance: Omit<PrepaidAdvance, 'billId' | 'billNumber'>; settled: { start: string; end: string }[] }>(
    `SELECT b.subscription_id, b.bill_id, b.bill_number, b.source->'prepaid'->'advance' AS advance,
            (SELECT coalesce(json_agg(x ORDER BY x->>'start'), '[]'::json)
               FROM bill o, json_array_elements(o.source->'prepaid'->'settles') s, json_array_elements(s->'days') x
              WHERE o.subscription_id = b.subscription_id AND (o.source->'prepaid') IS NOT NULL
                AND o.term_id <> $1 AND o.status NOT IN ('withdrawn', 'cancelled')
                AND s->>'billId' = b.bill_id::text) AS settled
       FROM term_subscription ts
       JOIN bill b ON b.subscription_id = ts.subscription_id AND (b.source->'prepaid') IS NOT NULL
      WHERE ts.term_id = $1 AND ts.subscription_id BETWEEN $2 AND $3
        AND b.term_id <> $1 AND b.status NOT IN ('withdrawn', 'cancelled')
        AND json_typeof(b.source->'prepaid'->'advance') = 'object'
        AND (b.source->'prepaid'->'advance'->>'start')::date <= $5::date
        AND (b.source->'prepaid'->'advance'->>'end')::date >= $4::date
      ORDER BY b.subscription_id, b.bill_id`,
    [ctx.termId, fromId, toId, ctx.start, coming.end],
  );
  for (const row of r.rows) {
    const input = byId.get(row.subscription_id);
    if (input === undefined) continue;
    const a: PrepaidAdvance = { ...row.advance, billId: row.bill_id, billNumber: row.bill_number };
    if (row.settled.length > 0) a.settled = row.settled;
    (input.prepaid ??= []).push(a);
  }
}

/** What a Prepaid bill records in its source (bill.source.prepaid). */
export type PrepaidSource = {
  /** The earlier advances it was rated with (verify-bill rates it again from these). */
  advances: PrepaidAdvance[];
  /** The days of each of them it settled (later bills read these: never settled twice). */
  settles: { billId: string; days: { start: string; end: string }[] }[];
  /** What it billed in advance (later bills settle it), or null. */
  advance: Omit<PrepaidAdvance, 'billId' | 'billNumber' | 'settled'> | null;
};

export function prepaidSource(input: RosterInput, bill: RatedBill): PrepaidSource | undefined {
  const p = (bill as Partial<PrepaidRatedBill>).prepaid;
  if (p === undefined) return undefined;
  return {
    advances: input.prepaid ?? [],
    settles: p.used.map((u) => ({ billId: u.advance.billId, days: u.settles })),
    advance: p.advance === null ? null : { start: p.advance.start, end: p.advance.end, lines: p.advance.lines },
  };
}
