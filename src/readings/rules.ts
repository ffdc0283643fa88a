// What a meter reading's value may be, and whether a reading fits between its
// neighbours. A reading lower than the one before is a roll-over or an error (on a
// cumulative meter; a demand register's reading may go down); that
// decision is the rating core's consumptionBetween, the same one the bill run uses, so
// a reading accepted here is billed the way it was judged.
import { consumptionOfTexts, millionthsOf, textOfMillionths, type ConsumptionKind } from '../rating/consumption.ts';
import { Dec, parseDecimal } from '../rating/money.ts';
import type { MeteredInput } from '../rating/tariff.ts';
import type { ErrorDetail } from '../errors.ts';
import { formatDate } from '../calendar/calendar.ts';

export const READING_KINDS = ['actual', 'estimated'] as const;
export type ReadingKind = (typeof READING_KINDS)[number];
export const SOURCE = { pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/ -]*$', maxLength: 64 };
export const NOTE_MAX = 500;
/** Digits before the point a reading's value may have: reading.value is numeric(20,6). */
export const MAX_WHOLE_DIGITS = 14;

/** Kept per meter: made for every reading checked, the Decimals were 2% of a readings import's time (issue 15). A Decimal never changes. */
const rollovers = new WeakMap<MeteredInput, Dec | null>();

export function rolloverOf(meter: MeteredInput): Dec | null {
  let roll = rollovers.get(meter);
  if (roll === undefined) rollovers.set(meter, (roll = meter.rolloverAt === undefined ? null : new Dec(String(meter.rolloverAt))));
  return roll;
}

/** The roll-over value in millionths (consumption.ts), null for none; undefined when it is not a plain value. */
const plainRollovers = new WeakMap<MeteredInput, number | null | undefined>();
function plainRolloverOf(meter: MeteredInput): number | null | undefined {
  if (plainRollovers.has(meter)) return plainRollovers.get(meter);
  const roll = meter.rolloverAt === undefined ? null : (millionthsOf(String(meter.rolloverAt)) ?? undefined);
  plainRollovers.set(meter, roll);
  return roll;
}

/** The reading's value as exact decimal text, or null after pushing what is wrong. */
export function checkReadingValue(meter: MeteredInput, raw: unknown, path: string, issues: ErrorDetail[]): string | null {
  if (typeof raw === 'string') {
    // Most values: a plain one that passes every check below, without a Decimal.
    const n = millionthsOf(raw);
    const roll = n === null ? undefined : plainRolloverOf(meter);
    if (n !== null && roll !== undefined && (roll === null || n < roll)) {
      const text = textOfMillionths(n);
      const dot = text.indexOf('.');
      if ((dot < 0 ? 0 : text.length - dot - 1) <= meter.decimals) return text;
    }
  }
  if (raw === undefined || raw === null || raw === '') {
    issues.push({ path, message: 'is required' });
    return null;
  }
  const v = typeof raw === 'string' || typeof raw === 'number' ? parseDecimal(raw) : null;
  if (v === null) {
    issues.push({ path, message: 'must be a decimal number such as "1234.5"' });
    return null;
  }
  if (v.isNegative()) {
    issues.push({ path, message: 'must not be negative: a meter shows 0 or more' });
    return null;
  }
  if (v.decimalPlaces() > meter.decimals) {
    issues.push({ path, message: `has more decimals than meter ${meter.code} reads (${meter.decimals})` });
    return null;
  }
  const roll = rolloverOf(meter);
  if (roll !== null && v.gte(roll)) {
    issues.push({ path, message: `must be below ${roll.toString()}, where meter ${meter.code} rolls over to 0` });
    return null;
  }
  if (v.precision(true) > 20) {
    issues.push({ path, message: 'has too many digits' });
    return null;
  }
  // reading.value is numeric(20,6): 15 whole digits passed the check above and failed in the
  // database, a 500 (a reviewer's test; an import stopped "on an internal error").
  if (v.precision(true) - v.decimalPlaces() > MAX_WHOLE_DIGITS) {
    issues.push({ path, message: `has more than ${MAX_WHOLE_DIGITS} digits before the decimal point` });
    return null;
  }
  return v.toFixed();
}

export type ChainPoint = {
  readingId?: string;
  date: string;
  value: string;
  path?: string;
  /** An estimate: it binds new estimates, not a new actual reading (fitReadings). */
  estimated?: boolean;
};
export type ChainResult = { kind: ConsumptionKind | 'first'; quantity: string | null };

/**
 * Fits new readings of one meter of one subscription among its effective readings.
 * Every new reading must be on a date of its own, and the consumption from the reading
 * before it and to the reading after it must be normal or a roll-over. Pushes an issue
 * for each new reading that does not fit; answers, per new reading in the order given,
 * its consumption since the reading before it.
 *
 * An estimate before a new actual reading does not bind it: the actual is fitted after
 * the nearest actual reading before it (recorded or new). An estimate is a guess the actual
 * replaces (the cascade from estimates spreads the actual over the estimates before it,
 * docs/corrections.md), so an over-estimate must not refuse the reading that shows it: an
 * actual 80 after an estimate of 94 (and an actual 62 before it) was "lower than the
 * reading before it", and rebill-estimates could then never run (an attacker's finding).
 * A reading after it binds it whatever its kind: the cascade does not spread an estimate
 * dated after the last actual, so an actual above it would leave the meter going down.
 * A new estimate is fitted among every reading.
 *
 * A new reading refused is not written, so it binds nothing: the readings are fitted again
 * without it until none more is refused (120 between 50 and 100, sent with 10 after it, was
 * taken when the 10 was refused: a reviewer's finding).
 */
export function fitReadings(meter: MeteredInput, existing: ChainPoint[], additions: ChainPoint[], issues: ErrorDetail[]): ChainResult[] {
  const roll = rolloverOf(meter);
  type P = ChainPoint & { added: number };
  const all: P[] = [...existing.map((p) => ({ ...p, added: -1 })), ...additions.map((p, i) => ({ ...p, added: i }))];
  all.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.added - b.added));
  const results: ChainResult[] = additions.map(() => ({ kind: 'first', quantity: null }));
  const bad = new Set<number>();
  const written = (p: P) => p.added < 0 || !bad.has(p.added);
  const bindsBefore = (p: P, cur: P) => written(p) && !(p.estimated === true && cur.estimated !== true);
  const why = (from: string, to: string) =>
    roll === null
      ? `meter ${meter.code} has no roll-over value, so this is an error, not a roll-over`
      : `read as a roll-over at ${roll.toString()} it would be ${roll.minus(from).plus(to).toFixed()} units, half a turn of the dial or more, so it is an error, not a roll-over`;
  const refuse = (cur: P, message: string) => {
    bad.add(cur.added);
    results[cur.added] = { kind: 'first', quantity: null };
    issues.push({ path: cur.path ?? 'value', message });
  };
  for (let refused = -1; refused !== bad.size; ) {
    refused = bad.size;
    for (let k = 0; k < all.length; k++) {
      const cur = all[k]!;
      if (cur.added < 0 || bad.has(cur.added)) continue;
      // A day read twice: by a recorded reading (of either kind), or by another new one.
      const twin = k > 0 && all[k - 1]!.date === cur.date ? all[k - 1]! : undefined;
      if (twin !== undefined && written(twin)) {
        refuse(
          cur,
          twin.added < 0
            ? `a reading of meter ${meter.code} on ${formatDate(cur.date)} exists already (readingID ${twin.readingId}); correct that one instead`
            : `meter ${meter.code} is read twice on ${formatDate(cur.date)}`,
        );
        continue;
      }
      // A demand register's reading is the period's highest demand: lower than the last is
      // a quieter month, not a meter going backwards. Only the day read twice binds it.
      if (meter.register === 'maximum') {
        results[cur.added] = { kind: 'maximum', quantity: cur.value };
        continue;
      }
      let j = k - 1;
      while (j >= 0 && !bindsBefore(all[j]!, cur)) j--;
      const prev = j >= 0 ? all[j]! : undefined;
      if (prev !== undefined) {
        const c = consumptionOfTexts(prev.value, cur.value, roll);
        if (c.kind === 'negative') {
          refuse(cur, `${cur.value} is lower than the reading before it (${prev.value} on ${formatDate(prev.date)}); ${why(prev.value, cur.value)}`);
          continue;
        }
        results[cur.added] = { kind: c.kind, quantity: c.quantity };
      }
      // The recorded reading after it (a new one after it checks this one as its own reading before).
      let n = k + 1;
      while (n < all.length && !written(all[n]!)) n++;
      const next = n < all.length ? all[n]! : undefined;
      if (next !== undefined && next.added < 0 && consumptionOfTexts(cur.value, next.value, roll).kind === 'negative') {
        refuse(cur, `${cur.value} is higher than the reading after it (${next.value} on ${formatDate(next.date)}); ${why(cur.value, next.value)}`);
      }
    }
  }
  return results;
}
