// What a bill was rated from, recorded on the bill (bill.source, migration 028) in the
// chunk's COPY, and its way back to the run's input: verify-bill (src/verification/)
// rates a stored bill again from exactly this, through the same rateRoster. Both
// directions live here so that they cannot drift apart.
import type { RatedBill, RoundingMode } from '../rating/index.ts';
import { meterReadingsOf, type ReadingsRow, type RosterInput, type RunContext } from './rateRoster.ts';
import { prepaidSource, type PrepaidSource } from './prepaid.ts';

export type BillSource = {
  v: 1;
  startDate: string;
  endDate: string | null;
  unmetered: Record<string, string | number>;
  suspended?: { start: string; end: string | null }[];
  /** Values the unmetered inputs took from a day inside the bill (levels.ts); absent when none. */
  levels?: { from: string; unmetered: Record<string, string | number> }[];
  /** The account's balance the run read: the bill's balance brought forward. */
  balance: string;
  rounding: RoundingMode;
  minorUnits: number;
  /** Per metered input, the reading rows used (ids; rows are never changed or deleted). */
  readings: Record<string, { previous: string; current: string | null; highest?: string; ratchet?: Record<string, string | null> }>;
  /** A term spanning a version change: the readings dated on a change date, by input and date (they split the consumption). */
  changeReadings?: Record<string, Record<string, string>>;
  /** A Prepaid term's bill: the earlier advances it was rated with, the days of them it settled, what it billed in advance. */
  prepaid?: PrepaidSource;
};

export function billSource(ctx: RunContext, input: RosterInput, bill?: RatedBill): BillSource {
  const s: BillSource = {
    v: 1,
    startDate: input.startDate,
    endDate: input.endDate,
    unmetered: input.unmetered,
    balance: input.balance,
    rounding: ctx.rounding,
    minorUnits: ctx.minorUnits,
    readings: input.readingIds ?? {},
  };
  if (input.suspended !== undefined) s.suspended = input.suspended;
  if (input.levels !== undefined) s.levels = input.levels;
  if (input.changeReadings !== undefined) s.changeReadings = input.changeReadings;
  const prepaid = bill === undefined ? undefined : prepaidSource(input, bill);
  if (prepaid !== undefined) s.prepaid = prepaid;
  return s;
}

/** A reading row as verification reads it back by id, with its subscription's account. */
export type SourceReading = { reading_id: string; subscription_id: string; account_id: string; input_code: string; reading_date: string; value: string; kind: string };

/**
 * The run's input of a recorded bill: the same conversion of reading rows to the rating
 * core's readings (meterReadingsOf) as the chunks. Answers the ids it could not find
 * (among `rows`, or of another subscription or meter) beside the input.
 */
export function inputOfSource(
  source: BillSource,
  bill: { subscriptionId: string; accountId: string },
  rows: ReadonlyMap<string, SourceReading>,
): { input: RosterInput; missing: { path: string; id: string }[] } {
  const input: RosterInput = {
    subscriptionId: bill.subscriptionId,
    accountId: bill.accountId,
    startDate: source.startDate,
    endDate: source.endDate,
    unmetered: source.unmetered,
    balance: source.balance,
    readings: {},
  };
  if (source.suspended !== undefined) input.suspended = source.suspended;
  if (source.levels !== undefined) input.levels = source.levels;
  if (source.changeReadings !== undefined) input.changeReadings = source.changeReadings;
  if (source.prepaid !== undefined) input.prepaid = source.prepaid.advances;
  const missing: { path: string; id: string }[] = [];
  // A ratchet's reading may be of a subscription this one was moved from (withRatchetHighs): of the same account.
  const row = (code: string, which: string, id: string, ofAccount = false): SourceReading | undefined => {
    const r = rows.get(id);
    if (r === undefined || (ofAccount ? r.account_id !== bill.accountId : r.subscription_id !== bill.subscriptionId) || r.input_code !== code) {
      missing.push({ path: `readings.${code}.${which}`, id });
      return undefined;
    }
    return r;
  };
  for (const [code, ids] of Object.entries(source.readings)) {
    const prev = row(code, 'previous', ids.previous);
    const cur = ids.current === null ? undefined : row(code, 'current', ids.current);
    const high = ids.highest === undefined ? undefined : row(code, 'highest', ids.highest);
    // A ratchet's history: by months, the reading it was held to, or null when none was read.
    let ratchet: NonNullable<ReadingsRow['ratchet']> | undefined;
    let ratchetMissing = false;
    if (ids.ratchet !== undefined) {
      ratchet = {};
      for (const [months, id] of Object.entries(ids.ratchet)) {
        const h = id === null ? null : row(code, `ratchet.${months}`, id, true);
        if (h === undefined) ratchetMissing = true;
        else ratchet[months] = h === null ? null : { id: h.reading_id, date: h.reading_date, value: h.value, kind: h.kind };
      }
    }
    if (prev === undefined || (ids.current !== null && cur === undefined) || (ids.highest !== undefined && high === undefined) || ratchetMissing) continue;
    input.readings[code] = meterReadingsOf({
      subscription_id: bill.subscriptionId,
      code,
      prev_date: prev.reading_date,
      prev_value: prev.value,
      prev_kind: prev.kind,
      prev_id: prev.reading_id,
      cur_date: cur?.reading_date ?? null,
      cur_value: cur?.value ?? null,
      cur_kind: cur?.kind ?? null,
      cur_id: cur?.reading_id ?? null,
      ...(high === undefined ? {} : { high_id: high.reading_id, high_date: high.reading_date, high_value: high.value, high_kind: high.kind }),
      ...(ratchet === undefined ? {} : { ratchet }),
    });
  }
  return { input, missing };
}
