// verify-bill's core: a stored bill rated again from what it was made from, through the
// bill run's own path (src/billRun/rateRoster.ts, then the rating core), and compared
// with what is stored, to the last decimal. Used by verify-bill (one bill) and by the
// term's verification jobs (a chunk of bills); it writes nothing.
import { decodeBillRows } from '../billLines/storedLines.ts';
import type { Queryable } from '../db/pool.ts';
import { Dec, type RatedLine, type RoundingMode, ROUNDING_MODES } from '../rating/index.ts';
import { readTerm } from '../billRun/termStore.ts';
import { rateRoster, runContext, type RosterInput, type RunContext } from '../billRun/rateRoster.ts';
import { inputOfSource, type BillSource, type SourceReading } from '../billRun/billSource.ts';
import { accountVerification, groupBills, isAccountBill } from './verifyAccountBills.ts';

/** A bill row as verification reads it. */
export type StoredBill = {
  bill_id: string;
  bill_number: string;
  term_id: string;
  /** Null on a Post Account bill (verifyAccountBills.ts). */
  subscription_id: string | null;
  account_id: string;
  period_start: string;
  period_end: string;
  charges: string;
  tax: string;
  total: string;
  balance_brought_forward: string;
  total_due: string;
  lines: unknown;
  source: BillSource | null;
  minor_units: number;
};

export const STORED_BILL_COLUMNS = `b.bill_id, b.bill_number, b.term_id, b.subscription_id, b.account_id, b.period_start, b.period_end,
  b.charges, b.tax, b.total, b.balance_brought_forward, b.total_due, b.lines, b.source, a.minor_units, b.groups`;

export type Difference = { componentCode: string | null; field: string; stored: string | null; rerated: string | null; difference: string | null };
export type Problem = { code: string; path: string; message: string };
export type Amounts = { charges: string; tax: string; total: string; balanceBroughtForward: string; totalDue: string };

export type BillVerification = {
  billID: number;
  billNumber: number;
  termID: number;
  /** Null for a Post Account bill. */
  subscriptionID: number | null;
  accountID: number;
  /** 'recorded': from the bill's recorded source (bills since migration 028); 'trace': from its own lines' trace. */
  basis: 'recorded' | 'trace';
  matches: boolean;
  stored: Amounts;
  /** Null when the bill could not be rated again (see problems). */
  rerated: Amounts | null;
  differences: Difference[];
  problems: Problem[];
};

const TOTALS = [
  ['charges', 'charges'],
  ['tax', 'tax'],
  ['total', 'total'],
  ['balanceBroughtForward', 'balance_brought_forward'],
  ['totalDue', 'total_due'],
] as const;

/** Decimal text of a stored or rated value, or null when it is not a decimal. */
function dec(x: unknown): Dec | null {
  if (typeof x !== 'string' && typeof x !== 'number') return null;
  try {
    const d = new Dec(x);
    return d.isFinite() ? d : null;
  } catch {
    return null;
  }
}

/** A value at the currency's minor unit, or with every decimal it has when it has more (an altered amount shows as stored). */
const show = (d: Dec, minorUnits: number) => d.toFixed(Math.max(minorUnits, d.decimalPlaces()));

/**
 * The same number written two ways without a decimal library: equal texts, or the stored
 * one with only zeros more ("1855.0000" against "1855.00", "7.00" against "7"). Anything
 * else is left to the decimals (a verification of a million bills compares ten million
 * values, nearly all equal as text).
 */
export function sameText(stored: unknown, rerated: string): boolean {
  if (stored === rerated) return true;
  if (typeof stored !== 'string' || stored.length <= rerated.length || !stored.startsWith(rerated)) return false;
  let i = rerated.length;
  if (!rerated.includes('.')) {
    if (stored[i] !== '.' || stored.length === i + 1) return false;
    i++;
  }
  for (; i < stored.length; i++) if (stored[i] !== '0') return false;
  return true;
}

/** Compares one value; answers whether it is equal (else adds the difference). */
function compare(componentCode: string | null, field: string, stored: unknown, rerated: string | null | undefined, minorUnits: number, out: Difference[]): boolean {
  if (typeof rerated === 'string' && sameText(stored, rerated)) return true;
  const s = dec(stored);
  const r = dec(rerated);
  if (s !== null && r !== null && s.eq(r)) return true;
  out.push({
    componentCode,
    field,
    stored: s === null ? (stored === undefined || stored === null ? null : String(stored)) : show(s, minorUnits),
    rerated: r === null ? null : show(r, minorUnits),
    difference: s !== null && r !== null ? show(s.minus(r), minorUnits) : null,
  });
  return false;
}

type StoredLine = { componentCode?: unknown; quantity?: unknown; amount?: unknown; trace?: any };

/**
 * A bill made before its source was recorded: its inputs as its own lines' trace shows
 * them. The active period is the bill's (rating only uses where the subscription's part
 * of the term starts and ends); unmetered quantities, readings, suspended days and the
 * rounding rule from the traces; the balance from the bill. The readings are then looked
 * for in the reading table (see readingProblems).
 */
function inputOfTrace(b: StoredBill, lines: StoredLine[]): { input: RosterInput; rounding: string | null } {
  const input: RosterInput = {
    subscriptionId: b.subscription_id as string,
    accountId: b.account_id,
    startDate: b.period_start,
    endDate: b.period_end,
    unmetered: {},
    balance: b.balance_brought_forward,
    readings: {},
  };
  let rounding: string | null = null;
  for (const l of lines) {
    const t = l?.trace;
    if (t === null || typeof t !== 'object') continue;
    if (typeof t.rounding === 'string' && rounding === null) rounding = t.rounding;
    const r = t.reading;
    if (r && typeof r.input === 'string' && r.previous && r.current) {
      input.readings[r.input] = {
        previous: { date: r.previous.date, value: r.previous.value },
        current: { date: r.current.date, value: r.current.value },
        estimated: r.estimated === true,
        ...(r.highest && typeof r.highest.date === 'string' ? { highest: { date: r.highest.date, value: r.highest.value } } : {}),
      };
    }
    const u = t.input;
    if (u && typeof u.input === 'string' && u.source === 'subscription') input.unmetered[u.input] = u.value;
    const p = t.proration;
    if (p && Array.isArray(p.suspended) && p.suspended.length > 0 && input.suspended === undefined) {
      input.suspended = p.suspended.map((x: { start: string; end: string }) => ({ start: x.start, end: x.end }));
    }
  }
  return { input, rounding };
}

const ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const DECIMAL = /^[0-9]{1,20}(\.[0-9]{1,20})?$/;

/** The readings a trace-based bill names that no reading row of its subscription and meter holds (date and value). */
async function readingProblems(db: Queryable, items: { key: number; input: RosterInput }[]): Promise<Map<number, Problem[]>> {
  const out = new Map<number, Problem[]>();
  const keys: number[] = [], subs: string[] = [], codes: string[] = [], dates: string[] = [], values: string[] = [], paths: string[] = [];
  for (const { key, input } of items) {
    for (const [code, r] of Object.entries(input.readings)) {
      if (r === undefined) continue;
      const points: (readonly [string, { date: string; value: string | number }])[] = r.current === undefined ? [['previous', r.previous]] : [['previous', r.previous], ['current', r.current]];
      if (r.current !== undefined && r.highest !== undefined) points.push(['highest', r.highest]);
      for (const [which, p] of points) {
        if (!ISO_DATE.test(String(p.date)) || !DECIMAL.test(String(p.value))) {
          const list = out.get(key) ?? [];
          list.push({ code: 'INVALID_TRACE', path: `readings.${code}.${which}`, message: "the bill's trace holds no valid reading date and value here" });
          out.set(key, list);
          continue;
        }
        keys.push(key); subs.push(input.subscriptionId); codes.push(code); dates.push(String(p.date)); values.push(String(p.value)); paths.push(`readings.${code}.${which}`);
      }
    }
  }
  if (keys.length === 0) return out;
  const r = await db.query<{ k: number; path: string; date: string; value: string }>(
    `SELECT u.k, u.path, u.d AS date, u.v AS value FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(k, s, c, d, v, path)
      WHERE NOT EXISTS (SELECT 1 FROM reading r WHERE r.subscription_id = u.s AND r.input_code = u.c
                          AND r.reading_date::text = u.d AND r.value = u.v::numeric)`,
    [keys, subs, codes, dates, values, paths],
  );
  for (const row of r.rows) {
    const list = out.get(row.k) ?? [];
    list.push({ code: 'READING_NOT_FOUND', path: row.path, message: `the bill's trace names a reading of ${row.value} on ${row.date} that the readings do not hold` });
    out.set(row.k, list);
  }
  return out;
}

/**
 * Verifies bills (any terms; each term's template version and context read once).
 * Answers one verification per bill, in the order given.
 */
export async function verifyBills(db: Queryable, bills: StoredBill[]): Promise<BillVerification[]> {
  // Lines and source as stored (either form, src/billLines/storedLines.ts), decoded in place.
  await decodeBillRows(db, bills);
  // A Post Account bill is verified group by group, each as the subscription bill it was rated as.
  if (bills.some(isAccountBill)) {
    const flat: StoredBill[] = [];
    for (const b of bills) flat.push(...(isAccountBill(b) ? groupBills(b) : [b]));
    const results = await verifyBills(db, flat);
    let at = 0;
    return bills.map((b) => {
      if (!isAccountBill(b)) return results[at++]!;
      const n = b.groups.length;
      at += n;
      return accountVerification(b, results.slice(at - n, at));
    });
  }
  // Contexts per term: the term's own template version, dates and currency.
  const contexts = new Map<string, RunContext>();
  for (const termId of new Set(bills.map((b) => b.term_id))) {
    const term = await readTerm(db, termId);
    if (term === undefined) throw new Error(`term ${termId} of a bill is missing`);
    contexts.set(termId, await runContext(db, term, term.reading_watermark));
  }

  // Recorded readings, read back by id in one statement.
  const ids = new Set<string>();
  for (const b of bills) {
    for (const r of Object.values(b.source?.readings ?? {})) {
      ids.add(r.previous);
      if (r.current !== null) ids.add(r.current);
      if (r.highest !== undefined) ids.add(r.highest);
      for (const id of Object.values(r.ratchet ?? {})) if (id !== null) ids.add(id);
    }
  }
  const readings = new Map<string, SourceReading>();
  if (ids.size > 0) {
    const r = await db.query<SourceReading>(
      `SELECT r.reading_id, r.subscription_id, s.account_id, r.input_code, r.reading_date, r.value, r.kind
         FROM reading r JOIN subscription s ON s.subscription_id = r.subscription_id WHERE r.reading_id = ANY($1::bigint[])`,
      [[...ids]],
    );
    for (const row of r.rows) readings.set(row.reading_id, row);
  }

  const problems: Problem[][] = bills.map(() => []);
  const inputs: (RosterInput | null)[] = [];
  const roundings: string[] = [];
  const traced: { key: number; input: RosterInput }[] = [];
  bills.forEach((b, i) => {
    const ctx = contexts.get(b.term_id)!;
    const lines = Array.isArray(b.lines) ? (b.lines as StoredLine[]) : [];
    if (b.source !== null) {
      const { input, missing } = inputOfSource(b.source, { subscriptionId: b.subscription_id as string, accountId: b.account_id }, readings);
      for (const m of missing) problems[i]!.push({ code: 'READING_NOT_FOUND', path: m.path, message: `reading ${m.id} the bill was rated from is not a reading of this subscription and meter` });
      inputs.push(input);
      roundings.push(b.source.rounding);
    } else {
      const { input, rounding } = inputOfTrace(b, lines);
      inputs.push(input);
      roundings.push(rounding ?? ctx.rounding);
      traced.push({ key: i, input });
    }
  });
  for (const [k, list] of await readingProblems(db, traced)) problems[k]!.push(...list);

  // Rate through the run's own path, grouped by term and rounding rule.
  const outcome = new Map<RosterInput, { amounts: Amounts; lines: RatedLine[] } | Problem>();
  const groups = new Map<string, { ctx: RunContext; inputs: RosterInput[] }>();
  bills.forEach((b, i) => {
    const input = inputs[i]!;
    if (problems[i]!.some((p) => p.code === 'READING_NOT_FOUND') && b.source !== null) return;
    const rounding = roundings[i]!;
    const key = `${b.term_id}:${rounding}`;
    let g = groups.get(key);
    if (g === undefined) {
      const ctx = contexts.get(b.term_id)!;
      g = { ctx: (ROUNDING_MODES as readonly string[]).includes(rounding) ? { ...ctx, rounding: rounding as RoundingMode } : ctx, inputs: [] };
      groups.set(key, g);
    }
    g.inputs.push(input);
  });
  for (const g of groups.values()) {
    const r = await rateRoster(g.ctx, g.inputs);
    for (const x of r.rated) {
      const bill = x.bill;
      outcome.set(x.input, {
        amounts: { charges: bill.charges, tax: bill.tax, total: bill.total, balanceBroughtForward: bill.balanceBroughtForward, totalDue: bill.totalDue },
        lines: bill.lines,
      });
    }
    for (const f of r.failed) outcome.set(f.input, { code: f.code, path: f.details[0]?.path ?? '', message: f.reason });
  }

  return bills.map((b, i) => {
    const mu = b.minor_units;
    const list = problems[i]!;
    const differences: Difference[] = [];
    const o = outcome.get(inputs[i]!);
    let rerated: Amounts | null = null;
    // A stored total equal to the rerated one is shown as the rerated text (no decimal work).
    const stored = {} as Amounts;
    const storedText = (field: keyof Amounts, column: (typeof TOTALS)[number][1], equal: boolean) => {
      stored[field] = equal && rerated !== null ? rerated[field] : show(new Dec(b[column]), mu);
    };
    if (o !== undefined && 'amounts' in o) {
      rerated = o.amounts;
      const storedLines = Array.isArray(b.lines) ? (b.lines as StoredLine[]) : [];
      for (let k = 0; k < o.lines.length; k++) {
        const line = o.lines[k]!;
        // Lines are stored in the template's component order: look further only when that fails.
        let s: StoredLine | undefined = storedLines[k];
        if (s?.componentCode !== line.componentCode) s = storedLines.find((x) => x?.componentCode === line.componentCode);
        compare(line.componentCode, 'amount', s?.amount, line.amount, mu, differences);
        if (s !== undefined) compare(line.componentCode, 'quantity', s.quantity, line.quantity, 0, differences);
      }
      if (storedLines.length !== o.lines.length || differences.length > 0) {
        const rated = new Set(o.lines.map((l) => l.componentCode));
        for (const s of storedLines) {
          if (typeof s?.componentCode !== 'string' || !rated.has(s.componentCode)) compare(typeof s?.componentCode === 'string' ? s.componentCode : null, 'amount', s?.amount, null, mu, differences);
        }
      }
      for (const [field, column] of TOTALS) storedText(field, column, compare(null, field, b[column], o.amounts[field], mu, differences));
    } else {
      for (const [field, column] of TOTALS) storedText(field, column, false);
      if (o !== undefined) list.push({ code: o.code, path: o.path, message: `the bill cannot be rated again: ${o.message}` });
    }
    return {
      billID: Number(b.bill_id),
      billNumber: Number(b.bill_number),
      termID: Number(b.term_id),
      subscriptionID: b.subscription_id === null ? null : Number(b.subscription_id),
      accountID: Number(b.account_id),
      basis: b.source !== null ? 'recorded' : 'trace',
      matches: differences.length === 0 && list.length === 0,
      stored,
      rerated,
      differences,
      problems: list,
    };
  });
}
