// A Prepaid template's bill (docs/templates.md, "Prepaid"): for a term (the period just
// ended, as for Postpaid), on one bill,
//   - metered charges in arrears: the term's consumption, as a Postpaid bill rates it;
//   - fixed and unmetered charges for the term's days not paid in advance (a subscription
//     that started inside the term, or a template that was Postpaid before): in arrears;
//   - a credit for the days paid in advance that the subscription did not use (ended or
//     suspended inside the prepaid period), one negative line per advance line;
//   - fixed and unmetered charges in advance for the coming period (the cycle after the term).
// Pure, like the rest of the core: the advances billed before are passed in (the bill run
// reads them from earlier bills' sources), the coming period is computed from the term's
// end and the cycle's months.
import { addMonths, apiDate, dateOfDay, dayNumber } from './days.ts';
import { RatingError } from './errors.ts';
import type { Category } from './fields.ts';
import { type Dec, formatMoney, parseDecimal, roundMoney, ZERO } from './money.ts';
import { chargeModel, type ModelTrace } from './models/registry.ts';
import { prepareTariff } from './prepareTariff.ts';
import { type RateBillInput, type RatedBill, rateBill, suspendedWithin } from './rateBill.ts';
import type { RatedLine } from './rateLine.ts';
import type { TariffVersion } from './segments.ts';
import type { Tariff } from './tariff.ts';
import type { LineTrace, PrepaidTrace, SuspendedPeriod } from './trace.ts';

/** One line billed in advance, as a later bill needs it to credit unused days. */
export type PrepaidAdvanceLine = {
  componentCode: string;
  name: string;
  category: Category;
  amount: string;
  /** The line's amount goes with the days (prorated by them, or priced by the day): only such lines (and percentages of them) are credited by the day. */
  prorate: boolean;
  /** The charge model's part of the advance line's trace. */
  model: ModelTrace;
};

/** What one bill billed in advance. */
export type PrepaidAdvance = {
  /** The bill that billed it (empty on the bill being rated: its id is not known yet). */
  billId: string;
  billNumber: string;
  /** The days it paid for, both included: the subscription's connected part of the coming period. */
  start: string;
  end: string;
  lines: PrepaidAdvanceLine[];
  /** Days of it that other live bills settled already (used or credited): never settled twice. */
  settled?: SuspendedPeriod[];
};

/** An earlier advance this bill settles: its days inside the term (each either used or credited here). */
export type PrepaidUse = { advance: PrepaidAdvance; settles: SuspendedPeriod[] };

export type PrepaidInput = {
  /** Months per billing cycle (1, 2, 3, 6, 12): the coming period is the cycle after the term's end. */
  cycleMonths: number;
  /** The tariff the advance is priced by: the one in force on the term's last day. */
  advanceTariff: Tariff;
  /** Live advances of this subscription billed before, overlapping the term or the coming period. */
  prepaid: readonly PrepaidAdvance[];
};

export type PrepaidOutcome = {
  /** The coming period (whether or not the subscription is billed for it). */
  comingPeriod: { start: string; end: string };
  /** What this bill billed in advance; null when nothing (the subscription ends by the term's end). */
  advance: PrepaidAdvance | null;
  /** The earlier advances this bill settles. */
  used: PrepaidUse[];
};

export type PrepaidRatedBill = RatedBill & { prepaid: PrepaidOutcome };

type Range = [number, number];

/**
 * The coming period after a term ending on `termEnd`: from the next day, one cycle of
 * `months` months, ending the day before that day plus `months` months (addMonths: the
 * same day, or the month's last day when it is shorter, as the schedules' periods:
 * src/schedules/periods.ts). 31/01 monthly: 01/02 to 28/02 (29/02 in a leap year); 30/01
 * monthly: 31/01 to 27/02 (28/02 starts the next).
 */
export function comingPeriod(termEnd: string, months: number): { start: string; end: string } {
  if (![1, 2, 3, 6, 12].includes(months)) throw new RatingError('INVALID_PERIOD', `a billing cycle of ${months} months is not one of 1, 2, 3, 6, 12`);
  const start = dateOfDay(dayNumber(termEnd, 'term.end') + 1);
  return { start, end: dateOfDay(dayNumber(addMonths(start, months)) - 1) };
}

// ---------------------------------------------------------------- sections of a tariff

type Section = 'metered' | 'fixed';
type RawComponent = { code: string; input?: string; of?: string[] };

const sections = new WeakMap<Tariff, Record<Section, Tariff>>();

/**
 * The tariff cut to one section: 'metered', the components on a metered input; 'fixed',
 * those on no input or an unmetered one. A component computed from others (percentage,
 * commitment: `of`) follows its base into each section holding any of it, with `of`
 * cut to that section (VAT of the standing charge and the water: in advance of the
 * standing charge, in arrears of the water). Cached by the tariff object, so the rating
 * core prepares each section once.
 */
export function sectionTariff(tariff: Tariff, section: Section): Tariff {
  let made = sections.get(tariff);
  if (made === undefined) {
    made = { metered: cut(tariff, 'metered'), fixed: cut(tariff, 'fixed') };
    sections.set(tariff, made);
  }
  return made[section];
}

function cut(tariff: Tariff, section: Section): Tariff {
  const metered = new Set((tariff.meteredInputs ?? []).map((m) => m.code));
  const components = (tariff.components ?? []) as unknown as RawComponent[];
  const kept = new Set<string>();
  for (const c of components) {
    if (Array.isArray(c.of)) continue;
    const onMeter = c.input !== undefined && metered.has(c.input);
    if (onMeter === (section === 'metered')) kept.add(c.code);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of components) {
      if (Array.isArray(c.of) && !kept.has(c.code) && c.of.some((x) => kept.has(x))) {
        kept.add(c.code);
        changed = true;
      }
    }
  }
  const out = components.filter((c) => kept.has(c.code)).map((c) => (Array.isArray(c.of) ? { ...c, of: c.of.filter((x) => kept.has(x)) } : c));
  return { ...tariff, components: out as unknown as Tariff['components'] };
}

const versionSections = new WeakMap<readonly TariffVersion[], Record<Section, TariffVersion[]>>();

function sectionVersions(versions: readonly TariffVersion[], section: Section): TariffVersion[] {
  let made = versionSections.get(versions);
  if (made === undefined) {
    made = {
      metered: versions.map((v) => ({ ...v, tariff: sectionTariff(v.tariff, 'metered') })),
      fixed: versions.map((v) => ({ ...v, tariff: sectionTariff(v.tariff, 'fixed') })),
    };
    versionSections.set(versions, made);
  }
  return made[section];
}

// ---------------------------------------------------------------- day ranges

function ranges(periods: readonly SuspendedPeriod[] | undefined): Range[] {
  return (periods ?? []).map((p) => [dayNumber(p.start), dayNumber(p.end)] as Range);
}

function clip(rs: readonly Range[], a: number, b: number): Range[] {
  const out: Range[] = [];
  for (const [x, y] of rs) if (Math.max(x, a) <= Math.min(y, b)) out.push([Math.max(x, a), Math.min(y, b)]);
  return merge(out);
}

function merge(rs: Range[]): Range[] {
  const sorted = [...rs].sort((p, q) => p[0] - q[0]);
  const out: Range[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function minus(rs: readonly Range[], cuts: readonly Range[]): Range[] {
  let out: Range[] = merge([...rs]);
  for (const [c, d] of cuts) {
    const next: Range[] = [];
    for (const [a, b] of out) {
      if (d < a || c > b) next.push([a, b]);
      else {
        if (a < c) next.push([a, c - 1]);
        if (d < b) next.push([d + 1, b]);
      }
    }
    out = next;
  }
  return out;
}

const daysOf = (rs: readonly Range[]) => rs.reduce((n, [a, b]) => n + b - a + 1, 0);
const periodsOf = (rs: readonly Range[]): SuspendedPeriod[] => rs.map(([a, b]) => ({ start: dateOfDay(a), end: dateOfDay(b) }));

// ---------------------------------------------------------------- the bill

/**
 * Rates one bill of a Prepaid term. The lines, in this order: the metered section in
 * arrears (the term's consumption), the fixed section in arrears for the term's days not
 * paid in advance, the credits for prepaid days not used, the fixed section in advance
 * for the coming period. Each line's trace.prepaid says which.
 */
export function ratePrepaidBill(given: RateBillInput, p: PrepaidInput): PrepaidRatedBill {
  // A Prepaid bill is not cut at a change of its unmetered inputs: it is rated at the values
  // in force on its last day, which also price the advance for the coming period (docs/accounts.md).
  const { levels, ...kept } = given.subscription;
  const input: RateBillInput = levels === undefined || levels.length === 0 ? given : { ...given, subscription: { ...kept, unmetered: levels[levels.length - 1]!.unmetered } };
  const minorUnits = input.minorUnits;
  const rounding = input.rounding ?? 'halfUp';
  const termStart = dayNumber(input.term.start, 'term.start');
  const termEnd = dayNumber(input.term.end, 'term.end');
  const sub = input.subscription;
  const subStart = dayNumber(sub.startDate, 'subscription.startDate');
  const subEnd = sub.endDate === undefined || sub.endDate === null ? null : dayNumber(sub.endDate, 'subscription.endDate');
  const activeStart = Math.max(termStart, subStart);
  const activeEnd = subEnd === null ? termEnd : Math.min(termEnd, subEnd);
  const versions = input.versions !== undefined && input.versions.length > 1 ? input.versions : undefined;
  const tariff = input.versions !== undefined && input.versions.length === 1 ? (input.versions[0] as TariffVersion).tariff : input.tariff;

  // The whole bill's checks (dates, currency, suspensions, NOT_ACTIVE) are rateBill's: the
  // metered section is rated over the subscription's whole part of the term, even when it
  // has no component, so a Prepaid bill is refused for exactly what a Postpaid one is.
  const base: RateBillInput = { ...input, tariff: sectionTariff(tariff, 'metered'), balanceBroughtForward: input.balanceBroughtForward ?? '0' };
  if (versions !== undefined) base.versions = sectionVersions(versions, 'metered');
  else delete base.versions;
  const arrears = rateBill(base);
  const lines: RatedLine[] = [];
  for (const l of arrears.lines) lines.push(tag(l, { basis: 'arrears', start: dateOfDay(activeStart), end: dateOfDay(activeEnd), days: arrears.activeDays }));

  // ---- the term's days paid in advance by earlier bills (less what others settled)
  const used: PrepaidUse[] = [];
  const prepaidInTerm: Range[] = [];
  for (const a of p.prepaid) {
    const own = minus(clip([[dayNumber(a.start), dayNumber(a.end)]], termStart, termEnd), ranges(a.settled));
    if (own.length === 0) continue;
    used.push({ advance: a, settles: periodsOf(own) });
    prepaidInTerm.push(...own);
  }
  const prepaid = merge(prepaidInTerm);
  const connected: Range[] = [[activeStart, activeEnd]];
  const suspended = suspendedWithin(sub.suspended, activeStart, activeEnd).periods;
  const billed = minus(connected, ranges(suspended));

  // ---- the fixed section in arrears for the days not paid in advance
  const fixed = sectionTariff(tariff, 'fixed');
  const hasFixed = (fixed.components ?? []).length > 0;
  if (hasFixed) {
    for (const [a, b] of minus(connected, prepaid)) {
      if (daysOf(minus([[a, b]], ranges(suspended))) === 0) continue;
      const part: RateBillInput = {
        ...input,
        tariff: fixed,
        subscription: { ...sub, startDate: dateOfDay(a), endDate: dateOfDay(b) },
        balanceBroughtForward: '0',
      };
      if (versions !== undefined) part.versions = sectionVersions(versions, 'fixed');
      else delete part.versions;
      delete part.readings;
      const r = rateBill(part);
      for (const l of r.lines) lines.push(tag(l, { basis: 'catchUp', start: dateOfDay(a), end: dateOfDay(b), days: r.activeDays }));
    }
  }

  // ---- credits: days paid in advance that were not billed days (ended, or suspended)
  for (const u of used) {
    const unused = minus(ranges(u.settles), billed);
    if (unused.length === 0) continue;
    lines.push(...creditLines(u.advance, unused, minorUnits, rounding));
  }

  // ---- the fixed section in advance for the coming period
  const coming = comingPeriod(input.term.end, p.cycleMonths);
  let advance: PrepaidAdvance | null = null;
  const advanceFixed = sectionTariff(p.advanceTariff, 'fixed');
  if ((advanceFixed.components ?? []).length > 0) {
    const cs = dayNumber(coming.start);
    const ce = dayNumber(coming.end);
    // Days some earlier bill paid for already (a term shorter than the cycle before it) are not billed again.
    const paidAhead = merge(p.prepaid.flatMap((a) => clip([[dayNumber(a.start), dayNumber(a.end)]], cs, ce)));
    let from = Math.max(cs, subStart);
    for (const [a, b] of paidAhead) if (a <= from && b >= from) from = b + 1;
    const to = subEnd === null ? ce : Math.min(ce, subEnd);
    if (from <= to) {
      const r = rateBill({
        tariff: advanceFixed,
        term: coming,
        subscription: sub.unmetered === undefined ? { startDate: dateOfDay(from), endDate: dateOfDay(to) } : { startDate: dateOfDay(from), endDate: dateOfDay(to), unmetered: sub.unmetered },
        minorUnits,
        rounding,
      });
      const prepared = prepareTariff(advanceFixed);
      const advanceLines: PrepaidAdvanceLine[] = [];
      r.lines.forEach((l, i) => {
        lines.push(tag(l, { basis: 'advance', start: dateOfDay(from), end: dateOfDay(to), days: to - from + 1 }));
        // A line priced by the day is credited for days not used as a prorated one is (a reviewer: a capacity per kVA per day never was).
        const c = prepared.components[i];
        const byDays = c !== undefined && (c.prorate || chargeModel(c.model)?.byTheDay === true);
        advanceLines.push({ componentCode: l.componentCode, name: l.name, category: l.category, amount: l.amount, prorate: byDays, model: modelPart(l.trace) });
      });
      advance = { billId: '', billNumber: '', start: dateOfDay(from), end: dateOfDay(to), lines: advanceLines };
    }
  }

  // ---- totals: sums of the rounded lines
  let charges = ZERO;
  let tax = ZERO;
  for (const l of lines) {
    const a = parseDecimal(l.amount) as Dec;
    if (l.category === 'tax') tax = tax.plus(a);
    else charges = charges.plus(a);
  }
  const total = charges.plus(tax);
  const balance = parseDecimal(arrears.balanceBroughtForward) as Dec;
  const bill: PrepaidRatedBill = {
    ...arrears,
    lines,
    charges: formatMoney(charges, minorUnits),
    tax: formatMoney(tax, minorUnits),
    total: formatMoney(total, minorUnits),
    totalDue: formatMoney(total.plus(balance), minorUnits),
    prepaid: { comingPeriod: coming, advance, used },
  };
  return bill;
}

/** The line with its prepaid trace: a new line, since a rated line may be the lines cache's, shared and frozen (rateLine). */
function tag(line: RatedLine, t: PrepaidTrace): RatedLine {
  return { ...line, trace: { ...line.trace, prepaid: t } };
}

const NOT_MODEL = new Set(['reading', 'input', 'proration', 'limit', 'segment', 'unrounded', 'rounding', 'prepaid']);

/** The charge model's part of a line's trace (what the model answered, before proration and rounding). */
function modelPart(trace: LineTrace): ModelTrace {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(trace)) if (!NOT_MODEL.has(k)) out[k] = v;
  return out as ModelTrace;
}

/**
 * The credit of an advance's unused days, one negative line per advance line that is
 * credited: a line prorated by days gives back amount x unused days / days it paid for
 * (so all its days unused give back exactly its amount, never more); a percentage gives
 * back its percentage of the credits of the lines it was of; a line not prorated by days
 * (a charge per period) is not credited.
 */
function creditLines(a: PrepaidAdvance, unused: Range[], minorUnits: number, rounding: NonNullable<RateBillInput['rounding']>): RatedLine[] {
  const paidDays = dayNumber(a.end) - dayNumber(a.start) + 1;
  const days = daysOf(unused);
  const credits = new Map<string, Dec>();
  const out: (RatedLine | undefined)[] = new Array(a.lines.length);
  const trace = (l: PrepaidAdvanceLine): PrepaidTrace => ({
    basis: 'credit',
    start: dateOfDay((unused[0] as Range)[0]),
    end: dateOfDay((unused[unused.length - 1] as Range)[1]),
    days,
    unused: periodsOf(unused),
    advance: { billNumber: a.billNumber, start: a.start, end: a.end, days: paidDays, amount: l.amount },
  });
  a.lines.forEach((l, i) => {
    if (!l.prorate || l.model.model === 'percentage') return;
    const amount = parseDecimal(l.amount) as Dec;
    const unrounded = amount.times(days).div(paidDays).negated();
    const rounded = roundMoney(unrounded, minorUnits, rounding);
    credits.set(l.componentCode, rounded);
    out[i] = {
      componentCode: l.componentCode,
      name: l.name,
      category: l.category,
      quantity: String(days),
      amount: formatMoney(rounded, minorUnits),
      trace: { ...l.model, prepaid: trace(l), unrounded: unrounded.toFixed(), rounding } as LineTrace,
    };
  });
  // Percentages after the lines they are of (a percentage of a percentage after it).
  for (let pass = 0; pass < a.lines.length; pass++) {
    a.lines.forEach((l, i) => {
      if (out[i] !== undefined || l.model.model !== 'percentage') return;
      const m = l.model as Extract<ModelTrace, { model: 'percentage' }>;
      const codes = m.of.map((x) => x.code);
      if (codes.some((c) => a.lines.some((x) => x.componentCode === c && x.model.model === 'percentage' && !credits.has(c)))) return;
      let creditBase = ZERO;
      const of: { code: string; amount: string }[] = [];
      for (const c of codes) {
        const v = credits.get(c);
        if (v === undefined) continue;
        creditBase = creditBase.plus(v);
        of.push({ code: c, amount: formatMoney(v, minorUnits) });
      }
      if (creditBase.isZero()) {
        credits.set(l.componentCode, ZERO);
        out[i] = undefined;
        return;
      }
      const unrounded = creditBase.times(m.percentage).div(100);
      const rounded = roundMoney(unrounded, minorUnits, rounding);
      credits.set(l.componentCode, rounded);
      out[i] = {
        componentCode: l.componentCode,
        name: l.name,
        category: l.category,
        quantity: formatMoney(creditBase, minorUnits),
        amount: formatMoney(rounded, minorUnits),
        trace: { model: 'percentage', percentage: m.percentage, of, base: creditBase.toFixed(), prepaid: trace(l), unrounded: unrounded.toFixed(), rounding } as LineTrace,
      };
    });
  }
  return out.filter((x): x is RatedLine => x !== undefined && !(parseDecimal(x.amount) as Dec).isZero());
}

/** The words of a line's trace.prepaid, for the bill's explanation. */
export function explainPrepaid(t: PrepaidTrace, model: string): string {
  const period = `${apiDate(t.start)} to ${apiDate(t.end)}`;
  switch (t.basis) {
    case 'arrears':
      return `in arrears for ${period} (${t.days} day(s) billed)`;
    case 'catchUp':
      return `in arrears for ${period}, ${t.days} day(s) not billed in advance`;
    case 'advance':
      return `in advance for ${period} (${t.days} day(s))`;
    case 'credit': {
      const a = t.advance;
      const unused = (t.unused ?? []).map((u) => (u.start === u.end ? apiDate(u.start) : `${apiDate(u.start)} to ${apiDate(u.end)}`)).join(', ');
      return (
        `credit for ${t.days} unused day(s) (${unused})` +
        (a === undefined ? '' : ` of the ${a.days} day(s) ${apiDate(a.start)} to ${apiDate(a.end)} billed in advance on bill ${a.billNumber} (${a.amount})`) +
        (a === undefined || model === 'percentage' ? '' : `, given back: -${a.amount} x ${t.days}/${a.days}`)
      );
    }
  }
}
