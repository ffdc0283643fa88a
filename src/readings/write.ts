// The one way meter readings are written: capture-readings and correct-reading
// (readings/), a readings import (imports/) and a term's capture-readings (terms/) all
// come here, so the lock and the checks cannot differ by path.
//
// - The lock: the subscriptions read, FOR UPDATE, in the order of their ids, in one
//   statement per call. Two writers of one meter then take turns, so neither fits its
//   reading against a history the other is changing (issue 9, defect 1: the import by
//   accountNumber + serviceCode took no lock, and four imports of one day's reading all
//   won). One order means two single-call writers never wait on each other in a circle.
// - The checks, for every path: a date within the subscription's dates and not after the
//   app's today, a value the meter can show, and a place in the meter's chain of effective
//   readings (roll-over or error, rules.ts). A day that has an effective reading already
//   is refused, pointing at the reading to correct, except on a term's capture-readings,
//   which corrects it (bill-run.md: the officer's reading of the day replaces the one
//   before); the chain is checked either way.
// - Sets, not rows: an import writes millions of readings, 5000 a call, COPYed by the import.
import type { Queryable } from '../db/pool.ts';
import type pg from 'pg';
import { copyLine } from '../db/copy.ts';
import { conflict, type ErrorDetail } from '../errors.ts';
import type { MeteredInput } from '../rating/tariff.ts';
import { carryAgain } from './carry.ts';
import { appToday, formatDate, parseRecordDate, RECORD_DATE_MESSAGE } from '../calendar/calendar.ts';
import { checkReadingValue, fitReadings, type ChainPoint, type ChainResult } from './rules.ts';
import { effectiveReadings, insertReadings, type EffectiveReading, type NewReading } from './store.ts';

export type MeterSubscription = { subscription_id: string; service_id: string; start_date: string; end_date: string | null; status: string };

declare const lockedBrand: unique symbol;
/** Subscriptions locked by lockSubscriptions: the only way to get the set writeReadings takes. */
export type LockedSubscriptions = ReadonlyMap<string, MeterSubscription> & { readonly [lockedBrand]: true };

/** The app's subscriptions of these ids, locked in the order of their ids until the transaction ends. */
export async function lockSubscriptions(tx: Queryable, appCode: number, ids: Iterable<string>): Promise<LockedSubscriptions> {
  try {
    const r = await tx.query<MeterSubscription>(
      `SELECT subscription_id, service_id, start_date, end_date, status FROM subscription
        WHERE app_code = $1 AND subscription_id = ANY($2::bigint[]) ORDER BY subscription_id FOR UPDATE`,
      [appCode, [...new Set(ids)]],
    );
    return new Map(r.rows.map((x) => [x.subscription_id, x])) as unknown as LockedSubscriptions;
  } catch (err) {
    // An import locks chunk by chunk in one transaction, so it can hold a later id while
    // another writer waits for it: PostgreSQL breaks the circle by refusing one of them.
    if ((err as { code?: string }).code === '40P01') throw conflict('Another request or import was writing readings of these meters; nothing was written. Retry it.');
    throw err;
  }
}

export type ReadingWrite = {
  subscriptionId: string;
  meter: MeteredInput;
  /** As sent: dd/mm/yyyy or YYYY-MM-DD. */
  readingDate: unknown;
  value: unknown;
  kind: string;
  source: string;
  note: string | null;
  /** Where this reading's fields are in the request (data.readings[3].value, rows[12].value). */
  at: (field: 'readingDate' | 'value') => string;
  /** correct-reading: the effective reading this one corrects (left out of the chain it is fitted in). */
  corrects?: string;
};

export type WriteOptions = {
  /** 'refuse': a day read already is refused (readings/, imports). 'correct': it is corrected (a term's capture-readings). */
  sameDay: 'refuse' | 'correct';
  /**
   * 'all-or-none': nothing is written when one reading is bad (the API's answer). 'good':
   * the good ones are written and the bad ones reported (an import, which rolls back at
   * its end but must see its own earlier rows meanwhile). 'none': only checked.
   */
  write: 'all-or-none' | 'good' | 'none';
  /**
   * For imports: write nothing and answer no ids, but the COPY lines of the good readings
   * (READING_COLUMNS), for the caller to COPY into reading later in this transaction (an
   * import checks its next chunk while the database writes them).
   */
  bulk?: 'lines';
  /** Indexes of readings whose date and value are checked, but which are neither fitted nor written (their row is bad already). */
  skip?: ReadonlySet<number>;
  /** The app's today (appToday), when the caller has just asked for it: an import asks before its last chunk's COPY, which a query here would wait for. */
  today?: string;
  /**
   * The effective readings the fit needs, when the caller has asked for them already (after
   * the lock): an import asks before its last chunk's COPY and checks this chunk while the
   * database writes that one, and asks only for the meters it writes, from before their
   * earliest new reading (effectiveReadingsSince), which holds while no reading corrects
   * another. Else every effective reading of the subscriptions is read (effectiveReadings).
   */
  history?: Promise<EffectiveReading[]>;
};

export type WriteOutcome = {
  /** Each problem, with the index of its reading in the list given. */
  issues: (ErrorDetail & { index: number })[];
  /** The new ids in the order given (empty with bulk, or when nothing was written). */
  ids: string[];
  /** Per reading given: its consumption kind and quantity since the reading before it. */
  results: ChainResult[];
  written: number;
  /** With bulk 'lines': the COPY lines of the readings to write. */
  lines?: string[];
};

/** Checks the readings and writes them under the lock of their subscriptions, as the options say. */
export async function writeReadings(
  tx: pg.PoolClient,
  appCode: number,
  by: string,
  subs: LockedSubscriptions,
  writes: ReadingWrite[],
  o: WriteOptions,
): Promise<WriteOutcome> {
  const issues: WriteOutcome['issues'] = [];
  const results: ChainResult[] = writes.map(() => ({ kind: 'first', quantity: null }));
  const today = writes.length === 0 ? '' : (o.today ?? (await appToday(tx, appCode)));
  const checked: (NewReading & { index: number; path: string })[] = [];
  writes.forEach((w, index) => {
    const s = subs.get(w.subscriptionId);
    if (!s) throw new Error(`subscription ${w.subscriptionId} was not locked before its readings were written`);
    const found: ErrorDetail[] = [];
    const date = checkReadingDate(s, w.readingDate, today, w.at('readingDate'), found);
    const value = checkReadingValue(w.meter, w.value, w.at('value'), found);
    for (const f of found) issues.push({ ...f, index });
    if (date === null || value === null || o.skip?.has(index)) return;
    checked.push({
      index,
      path: w.at('value'),
      subscriptionId: s.subscription_id,
      inputCode: w.meter.code,
      date,
      value,
      kind: w.kind,
      source: w.source,
      note: w.note,
      corrects: w.corrects ?? null,
    });
  });

  // Each meter's new readings fitted among its effective ones.
  const history = new Map<string, ChainPoint[]>();
  if (o.history !== undefined && writes.some((w) => w.corrects !== undefined)) throw new Error('a reading that corrects another is fitted against the whole history, not a given one');
  const eff = await (o.history ?? effectiveReadings(tx, [...new Set(checked.map((c) => c.subscriptionId))]));
  for (const r of eff) {
    const key = `${r.subscription_id}|${r.input_code}`;
    let h = history.get(key);
    if (!h) history.set(key, (h = []));
    h.push({ readingId: r.reading_id, date: r.reading_date, value: r.value, estimated: r.kind === 'estimated' });
  }
  const groups = new Map<string, { meter: MeteredInput; rows: typeof checked }>();
  for (const c of checked) {
    const key = `${c.subscriptionId}|${c.inputCode}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { meter: writes[c.index]!.meter, rows: [] }));
    g.rows.push(c);
  }
  const bad = new Set(issues.map((i) => i.index));
  for (const [key, g] of groups) {
    let existing = history.get(key) ?? [];
    const replaced = new Set(g.rows.map((c) => c.corrects).filter((x): x is string => !!x));
    if (o.sameDay === 'correct') {
      const byDate = new Map(existing.map((p) => [p.date, p.readingId!]));
      for (const c of g.rows) {
        const old = c.corrects ? undefined : byDate.get(c.date);
        if (old !== undefined && !replaced.has(old)) {
          c.corrects = old;
          replaced.add(old);
        }
      }
    }
    existing = existing.filter((p) => !replaced.has(p.readingId!));
    const found: ErrorDetail[] = [];
    const fitted = fitReadings(g.meter, existing, g.rows.map((c) => ({ date: c.date, value: c.value, path: c.path, estimated: c.kind === 'estimated' })), found);
    fitted.forEach((f, i) => (results[g.rows[i]!.index] = f));
    const indexOfPath = new Map(g.rows.map((c) => [c.path, c.index]));
    for (const f of found) {
      const index = indexOfPath.get(f.path)!;
      issues.push({ ...f, index });
      bad.add(index);
    }
  }

  issues.sort((a, b) => a.index - b.index);
  if (o.write === 'none' || (o.write === 'all-or-none' && issues.length > 0)) return { issues, ids: [], results, written: 0 };
  const rows = checked.filter((c) => !bad.has(c.index));
  if (o.bulk === 'lines') {
    const lines = rows.map((r) => copyLine([appCode, r.subscriptionId, r.inputCode, r.date, r.value, r.kind, r.source, r.note, r.corrects ?? null, by]));
    return { issues, ids: [], results, written: rows.length, lines };
  }
  const ids = await insertReadings(tx, appCode, rows, by);
  // A subscription moved out of: its successor's carried reading follows (readings/carry.ts).
  const { frozen } = await carryAgain(tx, appCode, by, [...new Set(rows.map((r) => r.subscriptionId))]);
  if (frozen.length > 0) {
    const f = frozen[0]!;
    const at = rows.find((r) => r.subscriptionId === f.oldId)!.path;
    throw conflict(
      `Subscription ${f.oldId} moved to subscription ${f.newId}, whose term ${f.termId} is ${f.status} with the reading carried over at the move: a reading changing the last one of ${f.oldId} would not reach that term. Record it once the term is billed, then cancel-bill the new subscription's bill (its rebill starts from it).`,
      at,
    );
  }
  return { issues, ids, results, written: rows.length };
}

/** A reading's date as ISO text, or null after pushing why it cannot be one of this subscription's readings. */
function checkReadingDate(s: MeterSubscription, raw: unknown, today: string, path: string, issues: ErrorDetail[]): string | null {
  const d = parseRecordDate(raw);
  if (d === null) {
    issues.push({ path, message: raw === undefined || raw === '' || raw === null ? 'is required' : RECORD_DATE_MESSAGE });
    return null;
  }
  if (d < s.start_date) {
    issues.push({ path, message: `must not be before the subscription's start date ${formatDate(s.start_date)}` });
    return null;
  }
  // A reading outside the subscription's dates would bill another subscription's
  // consumption (the one before a move, after a termination).
  if (s.end_date !== null && d > s.end_date) {
    issues.push({ path, message: `must not be after the subscription's end date ${formatDate(s.end_date)}` });
    return null;
  }
  // Issue 9, defect 11: a meter cannot be read on a day that has not come yet.
  if (d > today) {
    issues.push({ path, message: futureReading(today) });
    return null;
  }
  return d;
}

/** Why a reading dated after the app's today is refused: every way in says it alike (opening readings too). */
export const futureReading = (today: string) => `must not be after today (${formatDate(today)} in the app's time zone): a meter is read on or before the day it is recorded`;
