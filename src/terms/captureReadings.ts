import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { Tariff } from '../rating/index.ts';
import { parseDate } from '../calendar/calendar.ts';
import { lockSubscriptions, writeReadings, type ReadingWrite } from '../readings/write.ts';
import { canMove, moveTerm } from '../billRun/termStates.ts';
import type { ReadingRow } from './schemas.ts';
import { lockTerm, markReadingsCaptured } from '../billRun/termStore.ts';
import { inForceOf, runContext } from '../billRun/rateRoster.ts';
import { countReadings } from '../billRun/checkReadings.ts';

const MAX_REPORTED = 100;

/**
 * Step 3: meter readings for the roster, in bulk, all or nothing, checked and written by
 * readings/write.ts. A reading for a day that already has an effective reading of the
 * same meter corrects it (the old row is kept). After a validation the term goes back to Loaded: the validation is stale.
 * In a Processed term, only subscriptions that failed may get readings (to be retried).
 */
export async function captureReadings(db: pg.Pool, caller: Caller, termId: number, rows: ReadingRow[]): Promise<number> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    moveTerm(term.status, 'capture');
    const ctx = await runContext(tx, term, null);
    // The meters of every version in force over the term: a version dated inside it may add
    // one, which validate-term then asks for and this step refused (a reviewer).
    const meters = new Map<string, NonNullable<Tariff['meteredInputs']>[number]>();
    for (const v of inForceOf(ctx)) for (const m of v.tariff.meteredInputs ?? []) if (!meters.has(m.code)) meters.set(m.code, m);
    const ids = [...new Set(rows.map((r) => String(r.subscriptionID)))];
    // The lock and the checks of every reading are readings/write.ts's, as for the other
    // ways in; this step adds only the term's own: in the roster, not billed yet, a meter
    // of the term's template, not after the term.
    const subs = await lockSubscriptions(tx, caller.appCode, ids);
    const roster = await tx.query<{ subscription_id: string; billed: boolean }>(
      `SELECT ts.subscription_id,
              EXISTS (SELECT 1 FROM bill b WHERE b.term_id = ts.term_id AND b.subscription_id = ts.subscription_id AND b.status NOT IN ('withdrawn', 'cancelled'))
              -- Post Account: billed with its account (an account bill holds all of the account's roster subscriptions).
              OR EXISTS (SELECT 1 FROM subscription s JOIN bill b ON b.term_id = ts.term_id AND b.account_id = s.account_id
                          WHERE s.subscription_id = ts.subscription_id AND b.subscription_id IS NULL AND b.status NOT IN ('withdrawn', 'cancelled')) AS billed
         FROM term_subscription ts
        WHERE ts.term_id = $1 AND ts.subscription_id = ANY($2::bigint[])`,
      [term.term_id, ids],
    );
    const inRoster = new Map(roster.rows.map((r) => [r.subscription_id, r]));

    const issues: (ErrorDetail & { i: number })[] = [];
    const writes: ReadingWrite[] = [];
    const order: number[] = [];
    rows.forEach((row, i) => {
      const at = (field: string, message: string) => issues.push({ i, path: `data.readings[${i}].${field}`, message });
      const sub = String(row.subscriptionID);
      const member = inRoster.get(sub);
      if (member === undefined || !subs.has(sub)) return at('subscriptionID', "is not in this term's roster");
      if (member.billed) return at('subscriptionID', 'is billed in this term already');
      const meter = meters.get(row.inputCode);
      if (!meter) return at('inputCode', "is not a metered input of the term's template");
      const date = parseDate(row.readingDate);
      if (date !== null && date > term.end_date) return at('readingDate', 'is after the end of the term');
      order.push(i);
      writes.push({
        subscriptionId: sub,
        meter,
        readingDate: row.readingDate,
        value: row.value,
        kind: row.kind ?? 'actual',
        source: 'term',
        note: row.note ?? null,
        at: (f) => `data.readings[${i}].${f}`,
      });
    });
    const out = await writeReadings(tx, caller.appCode, caller.email, subs, writes, { sameDay: 'correct', write: issues.length > 0 ? 'none' : 'all-or-none' });
    const all = [...issues, ...out.issues.map((x) => ({ path: x.path, message: x.message, i: order[x.index]! }))].sort((a, b) => a.i - b.i);
    if (all.length > 0) throw validationFailed(all.slice(0, MAX_REPORTED).map(({ path, message }) => ({ path, message })), 'Some readings are not valid; none was recorded.');

    const status = canMove(term.status, 'invalidate') ? moveTerm(term.status, 'invalidate') : term.status;
    // New readings make a validation stale: the run validates again unless approved.
    await markReadingsCaptured(tx, term.term_id, status, caller.email, await countReadings(tx, ctx));
    return out.written;
  });
}
