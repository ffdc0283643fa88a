import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { AppError, conflict, invalidState, notFound, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { metersOf } from './captureReadings.ts';
import type { ChainResult } from './rules.ts';
import { effectiveSql, lockReading } from './store.ts';
import type { Queryable } from '../db/pool.ts';
import { formatDate, parseRecordDate } from '../calendar/calendar.ts';
import { markTariffDated } from '../billRun/termStore.ts';
import { ratchetBillsSinceSql } from '../billRun/rateRoster.ts';
import { moveTerm, type TermStatus } from '../billRun/termStates.ts';
import { lockSubscriptions, writeReadings } from './write.ts';

export type Correction = { readingID: number; value: string | number; readingDate?: string; kind?: 'actual' | 'estimated'; source?: string; note?: string };

/**
 * Corrects a reading by adding the corrected one beside it: the original is kept, and
 * from now on the correction is the effective reading. Only an effective reading can be
 * corrected (a correction is corrected in turn), and the new value must fit between
 * the readings before and after it.
 */
export async function correctReading(db: pg.Pool, caller: Caller, c: Correction): Promise<{ id: string; result: ChainResult }> {
  return inTransaction(db, async (tx) => {
    const original = await lockReading(tx, caller.appCode, c.readingID);
    if (!original) throw notFound('reading', 'data.readingID');
    if (original.corrected_by !== null) {
      throw invalidState(`Reading ${original.reading_id} was corrected by reading ${original.corrected_by}; correct that one.`, 'data.readingID');
    }
    const subs = await lockSubscriptions(tx, caller.appCode, [original.subscription_id]);
    const moved = c.readingDate === undefined ? null : parseRecordDate(c.readingDate);
    await refuseIntoFrozenTerm(tx, original.subscription_id, original.input_code, [original.reading_date, ...(moved === null ? [] : [moved])], caller.email);
    const s = subs.get(original.subscription_id)!;
    const meter = (await metersOf(tx, caller.appCode, [s.service_id])).get(s.service_id)?.get(original.input_code);
    if (!meter) {
      throw invalidState(`Meter ${original.input_code} is no longer a metered input of the subscription's template.`, 'data.readingID');
    }
    const out = await writeReadings(
      tx,
      caller.appCode,
      caller.email,
      subs,
      [
        {
          subscriptionId: s.subscription_id,
          meter,
          readingDate: c.readingDate ?? original.reading_date,
          value: c.value,
          kind: c.kind ?? original.kind,
          source: c.source ?? 'correction',
          note: c.note ?? null,
          corrects: original.reading_id,
          at: (f) => `data.${f}`,
        },
      ],
      { sameDay: 'refuse', write: 'all-or-none' },
    );
    if (out.issues.length > 0) throw new AppError('VALIDATION_FAILED', 'The correction is not valid.', out.issues.map(({ path, message }) => ({ path, message })));
    return { id: out.ids[0]!, result: out.results[0]! };
  });
}

/**
 * A reading that a term approved and not yet billed reads (its previous or current
 * reading, or one between) is not corrected: the run reads the readings as they were at
 * approval, so the bill would keep the old value while the next term started from the new
 * one, billing the difference twice (a new user's walk: 8411 corrected to 8410 inside an
 * approved term, the bill read 8411, and December would have started from 8410). Correct it
 * after the run and cancel-and-rebill the bill (docs/corrections.md), or cancel the term
 * first. A validated term goes back to Loaded, to be validated again, as for new inputs.
 */
async function refuseIntoFrozenTerm(tx: Queryable, subscriptionId: string, inputCode: string, dates: string[], by: string): Promise<void> {
  const r = await tx.query<{ term_id: string; status: TermStatus; end_date: string }>(
    `SELECT t.term_id, t.status, to_char(t.end_date, 'YYYY-MM-DD') AS end_date
       FROM term t JOIN term_subscription ts ON ts.term_id = t.term_id AND ts.subscription_id = $1
      WHERE t.status IN ('Validated', 'Approved', 'Scheduled', 'Processing')
        AND EXISTS (SELECT 1 FROM unnest($3::date[]) AS d(day)
                     WHERE d.day <= t.end_date
                       AND d.day >= coalesce((SELECT max(p.reading_date) FROM reading p
                                               WHERE p.subscription_id = $1 AND p.input_code = $2 AND p.reading_date < t.start_date AND ${effectiveSql('p')}), '-infinity'::date))
      ORDER BY t.term_id FOR UPDATE OF t`,
    [subscriptionId, inputCode, dates],
  );
  const frozen = r.rows.find((t) => t.status !== 'Validated');
  if (frozen !== undefined) {
    throw conflict(
      `Term ${frozen.term_id} (to ${formatDate(frozen.end_date)}) is ${frozen.status} and reads this reading as it was at approval: corrected now, its bill would keep the old value and the next term would start from the new one. Correct it once the run is done and cancel-and-rebill the bill, or cancel the term first.`,
      'data.readingID',
    );
  }
  for (const t of r.rows) await markTariffDated(tx, t.term_id, moveTerm(t.status, 'invalidate'), by);
  // A reading dated in the months a ratchet of the term's template looks back over (before the
  // term) changes the demand it holds to: a Validated term's preview is stale, so it goes back
  // to Loaded too (a reviewer: the approved preview said 3037.50, the run billed 2868.75). An
  // approved term is not refused: its run reads the history as it was at approval (the watermark).
  // The subscriptions a move made from this one read its history too (withRatchetHighs follows
  // the moves): their Validated terms go back as well (a reviewer: they were left Validated).
  const history = await tx.query<{ term_id: string; status: TermStatus }>(
    `WITH RECURSIVE follower(id) AS (
       SELECT $1::bigint
        UNION
       SELECT s.subscription_id FROM subscription s JOIN follower f ON s.moved_from_subscription_id = f.id)
     SELECT t.term_id, t.status
       FROM term t
      WHERE t.status = 'Validated'
        AND EXISTS (SELECT 1 FROM term_subscription ts WHERE ts.term_id = t.term_id AND ts.subscription_id IN (SELECT id FROM follower))
        AND NOT (t.term_id = ANY($4::bigint[]))
        AND EXISTS (SELECT 1 FROM service_version v, jsonb_array_elements(v.definition->'components') c, unnest($3::date[]) AS d(day)
                     WHERE v.service_id = t.service_id AND c->>'input' = $2 AND jsonb_typeof(c->'ratchet') = 'object'
                       -- The ratchet's window is the subscription's last bills (withRatchetHighs), else
                       -- its calendar months: from the earlier of the months' start (a month more: bill
                       -- periods drift by days) and the start of the last bills' periods (a template billed
                       -- every two months reaches twice as far back: a reviewer). A move keeps the account:
                       -- the bills are read through its index.
                       AND d.day < t.start_date
                       AND d.day >= least(t.start_date - make_interval(months => (c->'ratchet'->>'months')::int + 1),
                                          ${ratchetBillsSinceSql('(SELECT s.account_id FROM subscription s WHERE s.subscription_id = $1)', 'SELECT id FROM follower', 't.start_date', "(c->'ratchet'->>'months')::int")}))
      ORDER BY t.term_id FOR UPDATE OF t`,
    [subscriptionId, inputCode, dates, r.rows.map((t) => t.term_id)],
  );
  for (const t of history.rows) await markTariffDated(tx, t.term_id, moveTerm(t.status, 'invalidate'), by);
}
