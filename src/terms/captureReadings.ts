import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound, validationFailed, type ErrorDetail } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { Tariff } from '../rating/index.ts';
import { parseDecimal } from '../rating/money.ts';
import { dmyFromIso as dmy, isoFromDmy } from './dates.ts';
import { canMove, moveTerm } from './states.ts';
import type { ReadingRow } from './schemas.ts';
import { lockTerm, setStatus } from './store.ts';
import { runContext } from './rateRoster.ts';
import { countReadings } from './checkReadings.ts';

const MAX_REPORTED = 100;

/**
 * Step 3: meter readings for the roster, in bulk, all or nothing. A reading for a day
 * that already has an effective reading of the same meter corrects it (the old row is
 * kept). After a validation the term goes back to Loaded: the validation is stale.
 * In a Processed term, only subscriptions that failed may get readings (to be retried).
 */
export async function captureReadings(db: pg.Pool, caller: Caller, termId: number, rows: ReadingRow[]): Promise<number> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    moveTerm(term.status, 'capture');
    const ctx = await runContext(tx, term, null);
    const meters = new Map(((ctx.tariff as Tariff).meteredInputs ?? []).map((m) => [m.code, m]));
    const ids = [...new Set(rows.map((r) => String(r.subscriptionID)))];
    // readings/ and imports/ write meters too, under a lock on the subscriptions: take the
    // same locks in the same order, or one day's reading sent both ways at once makes two
    // effective readings of one meter on one day (test/hardening/concurrency.test.ts).
    await tx.query('SELECT 1 FROM subscription WHERE app_code = $1 AND subscription_id = ANY($2::bigint[]) ORDER BY subscription_id FOR UPDATE', [caller.appCode, ids]);
    const roster = await tx.query<{ subscription_id: string; billed: boolean; start_date: string; end_date: string | null }>(
      `SELECT ts.subscription_id, s.start_date, s.end_date,
              EXISTS (SELECT 1 FROM bill b WHERE b.term_id = ts.term_id AND b.subscription_id = ts.subscription_id AND b.status <> 'withdrawn') AS billed
         FROM term_subscription ts JOIN subscription s ON s.subscription_id = ts.subscription_id
        WHERE ts.term_id = $1 AND ts.subscription_id = ANY($2::bigint[])`,
      [term.term_id, ids],
    );
    const inRoster = new Map(roster.rows.map((r) => [r.subscription_id, r]));

    const issues: ErrorDetail[] = [];
    const seen = new Set<string>();
    const good: { sub: string; code: string; date: string; value: string; kind: string; note: string | null }[] = [];
    rows.forEach((row, i) => {
      const at = (field: string, message: string) => issues.length < MAX_REPORTED && issues.push({ path: `data.readings[${i}].${field}`, message });
      const sub = String(row.subscriptionID);
      const member = inRoster.get(sub);
      if (member === undefined) return at('subscriptionID', "is not in this term's roster");
      if (member.billed) return at('subscriptionID', 'is billed in this term already');
      const meter = meters.get(row.inputCode);
      if (!meter) return at('inputCode', "is not a metered input of the term's template");
      const date = isoFromDmy(row.readingDate);
      if (date === null) return at('readingDate', 'is not a calendar date (dd/mm/yyyy)');
      if (date > term.end_date) return at('readingDate', 'is after the end of the term');
      // A reading outside the subscription's dates would bill another subscription's
      // consumption (the one before a move, after a termination), as readings/ refuses.
      if (member.end_date !== null && date > member.end_date) return at('readingDate', `is after the subscription's end date ${dmy(member.end_date)}`);
      if (date < member.start_date) return at('readingDate', `is before the subscription's start date ${dmy(member.start_date)}`);
      const value = parseDecimal(row.value);
      if (value === null || value.isNegative()) return at('value', 'must be a decimal number, zero or more');
      if (value.decimalPlaces() > meter.decimals) return at('value', `has more than the meter's ${meter.decimals} decimals`);
      if (meter.rolloverAt !== undefined && value.gte(parseDecimal(meter.rolloverAt)!)) return at('value', `must be below the roll-over value ${meter.rolloverAt}`);
      const key = `${sub}|${row.inputCode}|${date}`;
      if (seen.has(key)) return at('readingDate', 'a reading of this meter for this day is given twice');
      seen.add(key);
      good.push({ sub, code: row.inputCode, date, value: value.toFixed(), kind: row.kind ?? 'actual', note: row.note ?? null });
    });
    if (issues.length > 0) throw validationFailed(issues, 'Some readings are not valid; none was recorded.');

    await tx.query(
      `INSERT INTO reading (app_code, subscription_id, input_code, reading_date, value, kind, source, note, created_by, corrects_reading_id)
       SELECT $1, u.sub, u.code, u.date, u.value, u.kind, 'term', u.note, $2,
              (SELECT r.reading_id FROM reading r
                WHERE r.subscription_id = u.sub AND r.input_code = u.code AND r.reading_date = u.date
                  AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)
                ORDER BY r.reading_id DESC LIMIT 1)
         FROM unnest($3::bigint[], $4::text[], $5::date[], $6::numeric[], $7::text[], $8::text[]) AS u(sub, code, date, value, kind, note)`,
      [caller.appCode, caller.email, good.map((g) => g.sub), good.map((g) => g.code), good.map((g) => g.date), good.map((g) => g.value), good.map((g) => g.kind), good.map((g) => g.note)],
    );
    const status = canMove(term.status, 'invalidate') ? moveTerm(term.status, 'invalidate') : term.status;
    // New readings make a validation stale: the run validates again unless approved.
    await setStatus(tx, term.term_id, status, caller.email, 'reading_count = $4, validated_at = NULL', [await countReadings(tx, ctx)]);
    return good.length;
  });
}
