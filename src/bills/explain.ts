// A bill line's trace in words, for the officer who explains a bill to a customer. The
// words come only from the trace kept with the bill, never from a new calculation. Dates
// in words are the API's dd/mm/yyyy; the trace keeps them 'YYYY-MM-DD' for programs.
import { Dec, explainModel, explainPrepaid, type RatedLine, type RoundingMode } from '../rating/index.ts';
import type { ConversionTrace } from '../rating/trace.ts';
import { explainShare } from '../rating/inputShare.ts';
import { explainBound, explainRatchet } from '../rating/levelBound.ts';
import { formatDate as day } from '../calendar/calendar.ts';

/**
 * A line's days, as fields of the line: on a bill rated in segments (a version change, or
 * unmetered inputs changed inside it), the version and the dates it was rated for (get-bills
 * had them only in the trace and the explanation: a new user's walk); on a line prorated by
 * days, how many (its quantity and rate are the whole period's: "1 x 250 = 137.10" did not
 * add up, another walk). The preview's lines and the bills' say it alike.
 */
export function lineDays(line: RatedLine): { version?: number; segment?: string; prorated?: string; days?: number } {
  const g = line.trace.segment;
  const p = line.trace.proration;
  const t = line.trace as { model: string; days?: number };
  return {
    ...(g === undefined ? {} : { version: g.version, segment: `${day(g.start)} to ${day(g.end)}` }),
    ...(p === undefined ? {} : { prorated: proratedWords(p) }),
    // A rate per unit per day: quantity x rate x these days is the amount.
    ...(t.model === 'perUnitPerDay' && t.days !== undefined ? { days: t.days } : {}),
  };
}

/** "x 1.037 = 75.701, 76 therm (rounded halfUp to 0 decimal(s))": a meter's consumption converted before it is priced. */
function conversionWords(consumption: string, c: ConversionTrace): string {
  const exact = new Dec(consumption).times(c.factor);
  if (c.earlier !== undefined) {
    const total = exact.plus(c.earlier.exact);
    const billed = new Dec(c.earlier.billed).plus(c.quantity).toFixed(c.decimals);
    return `x ${c.factor} = ${exact.toFixed()}; with the ${c.earlier.exact} of the earlier parts ${total.toFixed()}, ${billed} ${c.unit} (rounded ${c.rounding} to ${c.decimals} decimal(s)), less ${c.earlier.billed} billed in them: ${c.quantity} ${c.unit}`;
  }
  return `x ${c.factor} = ${exact.eq(c.quantity) ? `${c.quantity} ${c.unit}` : `${exact.toFixed()}, ${c.quantity} ${c.unit} (rounded ${c.rounding} to ${c.decimals} decimal(s))`}`;
}

export function explainLine(line: RatedLine): string {
  const t = line.trace;
  const parts: string[] = [];
  if (t.prepaid) parts.push(explainPrepaid(t.prepaid, t.model));
  if (t.segment) {
    // "version 1, 15/09 to 19/09": a segment is cut where a version or the unmetered inputs'
    // values change; "version 1 in force 15/09 ..." read as if the version began there (a new user's walk).
    const g = t.segment;
    parts.push(
      `version ${g.version}, ${day(g.start)} to ${day(g.end)} (${g.days} day(s) billed)` +
        (g.consumption
          ? (g.consumption.by === 'whole'
              ? `, the whole ${t.reading?.kind === 'maximum' ? 'demand' : 'quantity'}, ${g.consumption.quantity}`
              : `, ${g.consumption.quantity} of the ${t.reading?.kind === 'maximum' ? 'demand' : 'consumption'} ${g.consumption.by === 'readings' ? `by the reading${g.consumption.from ? ` of ${day(g.consumption.from.date)} (${g.consumption.from.value})` : ''}${g.consumption.to ? ` of ${day(g.consumption.to.date)} (${g.consumption.to.value})` : ''}` : 'shared by days'}`) +
            (g.consumption.conversion ? `, ${conversionWords(g.consumption.quantity, g.consumption.conversion)}` : '')
          : ''),
    );
  }
  if (t.reading) {
    const r = t.reading;
    // An estimate is not a reading: "estimated at" says which end was (bills since 2026-11-26; older ones say "read" and "(estimated)").
    const verb = (p: { estimated?: true }) => (p.estimated === true ? 'estimated at' : 'read');
    const second = verb(r.current) === verb(r.previous) ? '' : `${verb(r.current)} `;
    if (r.kind === 'maximum') {
      // A demand register: its reading is the period's highest demand, nothing subtracted.
      const h = r.highest ?? r.current;
      const since = r.previous.date < r.current.date ? `, the highest since the reading of ${day(r.previous.date)}` : '';
      const last = r.highest === undefined ? '' : `, above the last, ${r.current.value} on ${day(r.current.date)}`;
      parts.push(
        `${r.input} ${verb(h)} ${h.value} on ${day(h.date)}${since}${last} (a maximum demand register): ${r.consumption} billed${r.estimated ? ' (estimated)' : ''}` +
          (r.conversion ? `, ${conversionWords(r.consumption, r.conversion)}` : ''),
      );
    } else parts.push(
      `${r.input} ${verb(r.previous)} ${r.previous.value} on ${day(r.previous.date)} and ${second}${r.current.value} on ${day(r.current.date)}` +
        (r.kind === 'rollover' ? ` (the meter rolled over at ${r.rolloverAt})` : '') +
        `: ${r.consumption} used${r.estimated ? ' (estimated)' : ''}` +
        (r.conversion ? `, ${conversionWords(r.consumption, r.conversion)}` : ''),
    );
  }
  if (t.share) parts.push(`priced on ${explainShare(t.share, line.unit ?? '')}`);
  if (t.input) parts.push(`${t.input.input} ${t.input.value}${t.input.source === 'default' ? ' (the default)' : ''}`);
  if (t.ratchet) parts.push(explainRatchet(t.ratchet, line.unit ?? '', day));
  if (t.bound) parts.push(explainBound(t.bound, line.unit ?? ''));
  parts.push(explainModel(t));
  if (t.proration) {
    const p = t.proration;
    const suspended = p.suspendedDays
      ? ` (${p.suspendedDays} day(s) suspended, not billed: ${(p.suspended ?? []).map((s) => (s.start === s.end ? day(s.start) : `${day(s.start)} to ${day(s.end)}`)).join(', ')})`
      : '';
    parts.push(`prorated ${p.factor} ${p.basis === 'billedDays' ? 'of the days billed' : 'days'}${suspended}: ${p.before} to ${p.after}`);
  }
  if (t.limit) {
    const l = t.limit;
    // In a bill spanning a version change the limit is the bill's, less the component's earlier lines.
    const bill = l.bill
      ? ` for the whole bill (${l.bill.parts.map((p) => `${p.limit} x ${p.days}/${p.of} in version ${p.version}`).join(' + ')})${new Dec(l.bill.earlier).isZero() ? '' : ` less ${l.bill.earlier} on its earlier lines`},`
      : '';
    parts.push(`${l.applied} ${l.applied === 'minimum' ? l.minimum : l.maximum}${bill} applied to ${l.before}`);
  }
  // In words a customer reads on the bill (a new user's check found "rounded halfUp" on every
  // line): the rounding is said only where it changed the amount.
  if (t.carried !== undefined) {
    // Rounded on the running total of the charge's lines over the bill (rateLine).
    const total = new Dec(t.carried.unrounded).plus(t.unrounded).toFixed();
    const whole = new Dec(t.carried.rounded).plus(line.amount).toFixed(decimalsOf(line.amount));
    parts.push(`${t.unrounded} with the ${t.carried.unrounded} of the earlier parts: ${total} rounded ${ROUNDING_WORDS[t.rounding]} to ${whole}, less ${t.carried.rounded} billed in them: ${line.amount}`);
  } else parts.push(new Dec(t.unrounded).eq(line.amount) ? `amount ${line.amount}` : `${t.unrounded} rounded ${ROUNDING_WORDS[t.rounding]} to ${line.amount}`);
  return shortFractions(`${line.name}: ${parts.join('; ')}.`);
}

/**
 * Words, not arithmetic: a value the trace keeps exactly to 50 digits (150 x 21/31 =
 * 101.61290322580645161290322580645161290322580645161) is written to six decimals and
 * "…" (101.612903…), cut, not rounded, so it never reads as a rounded amount. The trace
 * keeps every digit; the line's rounding is said by its own words ("rounded half up to").
 */
const LONG_FRACTION = /(\d\.\d{6})\d+/g;

/** A rounding mode as the explanation says it (the trace keeps the mode's name). */
const ROUNDING_WORDS: Record<RoundingMode, string> = {
  halfUp: 'half up',
  halfEven: 'half to even',
  halfDown: 'half down',
  up: 'up (away from zero)',
  down: 'down (towards zero)',
  ceil: 'up',
  floor: 'down',
};
export const shortFractions = (words: string): string => words.replace(LONG_FRACTION, '$1…');

/** The decimals an amount is written with ("12.30": 2). */
const decimalsOf = (amount: string): number => amount.split('.')[1]?.length ?? 0;

/** A prorated line's days in words, as the bill's table prints them beside its name. */
export function proratedWords(p: RatedLine['trace']['proration']): string {
  if (p === undefined) return '';
  return p.basis === 'billedDays' ? `${p.factor} of the days billed` : `${p.activeDays} of ${p.termDays} days`;
}
