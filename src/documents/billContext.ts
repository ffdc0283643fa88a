// The data a template is filled with, read from stored bills: the bill and its lines
// (with the words of their traces), the account, the app, the pricing template version
// the term used (its bank accounts and meter labels), the readings the lines used, and
// the account's bills before this one. Nothing is calculated again: every figure is as
// the bill run stored it.
import type { Queryable } from '../db/pool.ts';
import type { RatedLine } from '../rating/index.ts';
import type { ReadingTrace } from '../rating/trace.ts';
import { moneyText } from '../rating/money.ts';
import { formatDate as dmyFromIso } from '../calendar/calendar.ts';
import { explainLine, proratedWords, shortFractions } from '../bills/explain.ts';
import { decodeStored, loadPrototypes } from '../billLines/storedLines.ts';
import { Dec } from '../rating/money.ts';
import type { BillColumns } from '../bills/getBills.ts';
import { groupInputsSql } from '../bills/accountBillRecord.ts';
import { splitGroups, type StoredGroup } from '../bills/accountBills.ts';
import type { MeteredInput } from '../rating/tariff.ts';

/**
 * What a bill's document reads of the pricing template version it was billed by (the
 * whole definition is templates/store.ts's StoredDefinition). Stated here, not imported:
 * templates/ checks its references to documents' templates, so documents/ does not
 * import templates/ back.
 */
type TemplateOnBill = {
  name: string;
  meteredInputs: MeteredInput[];
  connectionInputs?: { code: string; label: string }[];
  bankAccounts: { bankName: string; accountName?: string; accountNumber: string; branch?: string; swift?: string }[];
  invoiceTemplate: { templateID: number };
  emailTemplate: { templateID: number | null };
};
import { addressLines, type DocumentData, type ReadingData } from './context.ts';
import { paymentReference } from './paymentReference.ts';

const HISTORY = 6;

type Row = BillColumns & {
  account_number: string;
  account_name: string;
  account_address: string | null;
  account_email: string | null;
  delivery_preference: string;
  app_name: string;
  app_address: string | null;
  app_tax_number: string | null;
  currency: string;
  minor_units: number;
  service_code: string;
  definition: TemplateOnBill;
  groups: StoredGroup[] | null;
  connection_inputs: Record<string, Record<string, unknown>> | null;
  /** A bill of one subscription: that subscription (null on a Post Account bill) and its connection inputs. */
  subscription_id: string | null;
  subscription_inputs: Record<string, unknown> | null;
  replaces: { number: string; date: string; creditNoteNumber: string } | null;
  deposit: DepositRow[] | null;
  activity: { count: number; entries: { date: string; description: string; amount: string }[] | null };
  history: { bill_number: string; bill_date: string; period_start: string; period_end: string; total: string; lines: unknown; groups: StoredGroup[] | null; units: Record<string, string> | null }[];
};

/** The most entries of the account's activity a document lists (the rest are summed into its previous balance). */
export const ACTIVITY_SHOWN = 20;

/**
 * The account's ledger entries since its last bill that this bill's balance brought forward
 * holds (bill.activity, context.ts). The balance is read when a bill is rated, so the window
 * runs from the last bill's rating to this bill's: entries made after the earlier bill was
 * rated (a payment while its term waited to be posted included) and before this one was,
 * less the bills' own entries that belong to neither window (the earlier bill's, posted
 * later; this bill's; a bill rated after this one in the same transaction, as a cascade of
 * rebills is). The last bill is the account's latest earlier one that was posted (or since
 * cancelled). A late payment charge was in the balance brought forward and on no document
 * (a new user's check of a US utility bill).
 */
const ACTIVITY_SQL = `(
  SELECT json_build_object('count', count(*)::int,
           'entries', json_agg(json_build_object('date', to_char(x.entry_date, 'DD/MM/YYYY'), 'description', x.description, 'amount', x.amount::text) ORDER BY x.entry_id)
             FILTER (WHERE x.n <= ${ACTIVITY_SHOWN}))
    FROM (SELECT e.entry_id, e.entry_date, e.description, e.amount, row_number() OVER (ORDER BY e.entry_id DESC) AS n
            FROM ledger_entry e
            LEFT JOIN LATERAL (SELECT p.created_at FROM bill p
                                WHERE p.account_id = b.account_id AND p.bill_id < b.bill_id AND p.status IN ('posted', 'cancelled')
                                ORDER BY p.bill_id DESC LIMIT 1) prev ON true
            LEFT JOIN bill eb ON e.kind = 'bill' AND eb.bill_id = e.bill_id
           WHERE e.account_id = b.account_id
             AND (prev.created_at IS NULL OR e.created_at > prev.created_at)
             AND e.created_at <= b.created_at
             AND NOT (e.kind = 'bill' AND (e.bill_id >= b.bill_id OR eb.created_at <= prev.created_at))) x)`;

/**
 * The security deposits of a final bill's subscriptions (each ending in the bill's period; a
 * Post Account bill's from its groups), one row per subscription: what is held and still
 * unpaid of them now, the release as it was made (unpaid, applied, refunded) and whether it
 * was made before this bill was (then the balance brought forward holds it already: a rebill),
 * and the open amounts of the subscription's earlier bills (what a release spends it on first).
 */
const DEPOSIT_SQL = `(
  SELECT json_agg(x) FROM (
    SELECT d.subscription_id::text AS "subscriptionId",
           sum(d.amount - coalesce(o.open_amount, 0))::text AS held,
           sum(coalesce(o.open_amount, 0))::text AS "unpaidNow",
           bool_and(d.released_on IS NOT NULL) AS released,
           bool_or(r.created_at < b.created_at) AS "releasedBefore",
           sum(d.unpaid)::text AS unpaid, sum(d.applied)::text AS applied, sum(d.refunded)::text AS refunded,
           (SELECT coalesce(sum(oi.open_amount), 0) FROM bill ob
              JOIN ledger_entry le ON le.bill_id = ob.bill_id AND le.kind = 'bill'
              JOIN open_item oi ON oi.entry_id = le.entry_id
             WHERE ob.subscription_id = d.subscription_id AND ob.bill_id <> b.bill_id)::text AS "earlierOpen"
      FROM deposit d
      JOIN subscription ds ON ds.subscription_id = d.subscription_id
      LEFT JOIN open_item o ON o.entry_id = d.charge_entry_id
      LEFT JOIN ledger_entry r ON r.entry_id = d.release_entry_id
     WHERE d.subscription_id = ANY (CASE WHEN b.subscription_id IS NOT NULL THEN ARRAY[b.subscription_id]
                                         ELSE ARRAY(SELECT (g->>'subscriptionId')::bigint FROM json_array_elements(b.groups) g) END)
       AND ds.end_date BETWEEN b.period_start AND b.period_end
     GROUP BY d.subscription_id) x)`;

type DepositRow = {
  subscriptionId: string;
  held: string;
  unpaidNow: string;
  released: boolean;
  releasedBefore: boolean | null;
  unpaid: string | null;
  applied: string | null;
  refunded: string | null;
  earlierOpen: string;
};

/**
 * What the deposits of a final bill's subscriptions do to what the customer owes, as the
 * release at the term's posting does it (docs/payments.md, Deposits): the unpaid part of a
 * deposit cancelled, the rest spent on the subscription's open bills (its earlier ones, then
 * this bill's part: a Post Account bill's group), what is left refunded. As released, once
 * it is; before (the usual case: documents are rendered when the run ends), as the release
 * will. A deposit released before this bill was made (a rebill) is in its balance brought
 * forward already, and says nothing here. Answers the document's `deposit` (null when there is
 * nothing to say) and what it takes off the total due (the applied and the cancelled parts).
 */
function depositOf(b: Row, m: (x: string) => string): { deposit: DocumentData['bill']['deposit']; less: Dec } {
  let held = new Dec(0);
  let cancelled = new Dec(0);
  let applied = new Dec(0);
  let refund = new Dec(0);
  for (const d of b.deposit ?? []) {
    if (d.releasedBefore === true) continue;
    if (d.released) {
      held = held.plus(new Dec(d.applied ?? 0).plus(d.refunded ?? 0));
      cancelled = cancelled.plus(d.unpaid ?? 0);
      applied = applied.plus(d.applied ?? 0);
      refund = refund.plus(d.refunded ?? 0);
      continue;
    }
    const part = b.groups === null ? b.total : (b.groups.find((g) => g.subscriptionId === d.subscriptionId)?.total ?? '0');
    const owed = Dec.max(new Dec(d.earlierOpen).plus(part), 0);
    const spent = Dec.min(new Dec(d.held), owed);
    held = held.plus(d.held);
    cancelled = cancelled.plus(d.unpaidNow);
    applied = applied.plus(spent);
    refund = refund.plus(new Dec(d.held).minus(spent));
  }
  if (held.isZero() && cancelled.isZero()) return { deposit: null, less: new Dec(0) };
  return {
    deposit: {
      held: m(held.toFixed()),
      applied: m(applied.toFixed()),
      refund: refund.gt(0) ? m(refund.toFixed()) : '',
      cancelled: cancelled.gt(0) ? m(cancelled.toFixed()) : '',
    },
    less: applied.plus(cancelled),
  };
}

/** The entries shown, and the balance before them: the balance brought forward less what they add (the earlier ones inside it). */
function activityOf(b: Row, m: (x: string) => string): DocumentData['bill']['activity'] {
  const entries = b.activity.entries ?? [];
  const shown = entries.reduce((sum, e) => sum.plus(e.amount), new Dec(0));
  return {
    previousBalance: m(new Dec(b.balance_brought_forward).minus(shown).toFixed()),
    entries: entries.map((e) => ({ date: e.date, description: e.description, amount: m(e.amount) })),
    earlier: Math.max(0, b.activity.count - entries.length),
  };
}

export type BillDocumentSource = { billId: string; data: DocumentData; invoiceTemplateId: number; emailTemplateId: number | null; email: string | null; deliveryPreference: string };

/** The document data of these bills of the app (any order in, bill id order out). */
export async function loadDocumentData(db: Queryable, appCode: number, billIds: string[], withHistory = true): Promise<BillDocumentSource[]> {
  const r = await db.query<Row>(
    `SELECT b.bill_id, b.bill_number, b.bill_date, b.due_date, b.period_start, b.period_end, b.charges, b.tax, b.total,
            b.balance_brought_forward, b.total_due, b.estimated, b.lines, b.groups, ${groupInputsSql('b')} AS connection_inputs,
            b.subscription_id, (SELECT sub.connection_inputs FROM subscription sub WHERE sub.subscription_id = b.subscription_id) AS subscription_inputs,
            ac.account_number, ac.name AS account_name, ac.address AS account_address, ac.email AS account_email, ac.delivery_preference,
            a.name AS app_name, a.address AS app_address, a.tax_number AS app_tax_number, a.currency, a.minor_units, s.service_code, v.definition,
            CASE WHEN $3 THEN coalesce((
              SELECT json_agg(h ORDER BY h.bill_id DESC) FROM (
                SELECT p.bill_id, p.bill_number::text, p.bill_date, p.period_start, p.period_end, p.total::text,
                       p.lines, p.groups,
                       -- Its own meters' units: the account's bills may be of other templates (a reviewer: kWh printed m3).
                       (SELECT json_object_agg(m->>'code', m->>'unit') FROM term pt JOIN service_version pv ON pv.service_version_id = pt.service_version_id,
                               jsonb_array_elements(pv.definition->'meteredInputs') m WHERE pt.term_id = p.term_id) AS units
                  FROM bill p WHERE p.account_id = b.account_id AND p.bill_id < b.bill_id AND p.status NOT IN ('withdrawn', 'cancelled')
                 ORDER BY p.bill_id DESC LIMIT ${HISTORY}) h), '[]') ELSE '[]' END AS history,
            (SELECT json_build_object('number', c.bill_number::text, 'date', to_char(c.bill_date, 'DD/MM/YYYY'), 'creditNoteNumber', n.credit_note_number::text)
               FROM bill c JOIN credit_note n ON n.bill_id = c.bill_id WHERE c.bill_id = b.corrects_bill_id) AS replaces,
            ${ACTIVITY_SQL} AS activity,
            ${DEPOSIT_SQL} AS deposit
       FROM bill b
       JOIN account ac ON ac.account_id = b.account_id
       JOIN app a ON a.app_code = b.app_code
       JOIN term t ON t.term_id = b.term_id
       JOIN service s ON s.service_id = t.service_id
       JOIN service_version v ON v.service_version_id = t.service_version_id
      WHERE b.app_code = $1 AND b.bill_id = ANY($2::bigint[])
      ORDER BY b.bill_id`,
    [appCode, billIds, withHistory],
  );
  await loadPrototypes(db, r.rows.flatMap((b) => [b.lines, ...b.history.map((h) => h.lines)]));
  for (const b of r.rows) b.lines = decodeStored<RatedLine[]>(b.lines);
  return r.rows.map(toSource);
}

/** Whether a total due is to be paid, or the credit it leaves (a positive amount): DocumentData's payable and credit. */
export function payableOf(totalDue: string): { payable: boolean; credit: string } {
  if (totalDue.startsWith('-') && /[1-9]/.test(totalDue)) return { payable: false, credit: totalDue.slice(1) };
  return { payable: /[1-9]/.test(totalDue), credit: '' };
}

/**
 * A line's rate as printed: a percentage line's is its percentage ("16%", not "16"); a rate
 * per unit per day says the days it is times, so the quantity x the rate printed is the
 * amount ("0.4512 x 31 days" beside 52.4 kVA). An exact rate of many digits (a commitment
 * over a version change: 150 x 15/31 + 180 x 16/31) is cut to six decimals and "…", as the
 * explanation writes it; it wrapped over two lines of the Rate column (an outside check).
 */
export function rateText(l: RatedLine): string {
  if (l.rate === undefined) return '';
  const t = l.trace as { model: string; days?: number };
  if (t.model === 'percentage') return shortFractions(`${l.rate}%`);
  if (t.model === 'perUnitPerDay') return shortFractions(`${l.rate} x ${t.days} day${t.days === 1 ? '' : 's'}`);
  return shortFractions(l.rate);
}

const lineData = (l: RatedLine) => ({
  name: l.name,
  category: l.category,
  quantity: l.quantity,
  unit: l.unit ?? '',
  rate: rateText(l),
  amount: l.amount,
  explanation: explainLine(l),
  periodStart: l.trace.segment === undefined ? '' : dmyFromIso(l.trace.segment.start),
  periodEnd: l.trace.segment === undefined ? '' : dmyFromIso(l.trace.segment.end),
  version: l.trace.segment?.version ?? 0,
  prorated: proratedWords(l.trace.proration),
});


/**
 * The readings a bill's lines were rated from, each meter's once per subscription: a bill
 * spanning a version change repeats its readings in every segment's lines, and two
 * components may read one meter (the document's table showed a reading per line, so a
 * meter read 0 to 300 twice read as 600). A Post Account bill's lines are split by
 * subscription first, and each part is named.
 */
function readingsOf(lines: readonly RatedLine[], groups: readonly StoredGroup[] | null): { group: StoredGroup | null; reading: ReadingTrace }[] {
  const parts = groups === null ? [{ group: null, lines }] : splitGroups([...lines], [...groups]);
  const out: { group: StoredGroup | null; reading: ReadingTrace }[] = [];
  for (const { group, lines: own } of parts) {
    const seen = new Set<string>();
    for (const l of own) {
      const t = l.trace?.reading;
      if (t === undefined || t === null) continue;
      const key = `${t.input}|${t.previous.date}|${t.previous.value}|${t.current.date}|${t.current.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ group, reading: t });
    }
  }
  return out;
}

/**
 * The consumption a bill's history row shows: the sum of its meters' consumption
 * (readingsOf; a demand register's reading is no consumption), or null when none has a reading; at the scale of the most precise term
 * ("7.50" stays "7.50"), as PostgreSQL's numeric sum wrote it when this was SQL.
 */
function consumptionOf(stored: unknown, groups: readonly StoredGroup[] | null, unitOf: (code: string) => string | undefined): { sum: string; unit: string } | null {
  let sum: Dec | null = null;
  let scale = 0;
  const units = new Set<string>();
  for (const { reading } of readingsOf(decodeStored<RatedLine[]>(stored), groups)) {
    // A demand (kW) is not a consumption to add to the kWh.
    if (reading.kind === 'maximum') continue;
    units.add(unitOf(reading.input) ?? '');
    const c = reading.consumption;
    const dot = c.indexOf('.');
    scale = Math.max(scale, dot === -1 ? 0 : c.length - dot - 1);
    sum = (sum ?? new Dec(0)).plus(c);
  }
  return sum === null ? null : { sum: sum.toFixed(scale), unit: units.size === 1 ? [...units][0]! : '' };
}

function toSource(b: Row): BillDocumentSource {
  const m = (x: string) => moneyText(x, b.minor_units);
  const d = b.definition;
  const meters = new Map(d.meteredInputs.map((i) => [i.code, i]));
  const labels = new Map((d.connectionInputs ?? []).map((i) => [i.code, i.label]));
  const inputsOf = (values: Record<string, unknown> | null | undefined) =>
    Object.entries(values ?? {}).map(([code, v]) => ({ code, label: labels.get(code) ?? code, value: String(v) }));
  const textOf = (inputs: { code: string; value: string }[]) => inputs.map((i) => `${i.code}: ${i.value}`).join(', ');
  const connection = (subscriptionId: string) => textOf(inputsOf(b.connection_inputs?.[subscriptionId]));
  const single = b.subscription_id === null ? [] : inputsOf(b.subscription_inputs);
  const readings: ReadingData[] = [];
  for (const { group, reading: t } of readingsOf(b.lines, b.groups)) {
    const meter = meters.get(t.input);
    const label = meter?.label ?? t.input;
    // A Post Account bill's reading names its subscription (its connection inputs, such as the meter number).
    const inputs = group === null ? '' : connection(group.subscriptionId);
    readings.push({
      input: group === null ? label : `${label} (subscription ${group.subscriptionId}${inputs === '' ? '' : `, ${inputs}`})`,
      unit: meter?.unit ?? '',
      previousDate: dmyFromIso(t.previous.date),
      previousValue: t.previous.value,
      // A demand register read more than once: the reading billed, its highest.
      currentDate: dmyFromIso((t.highest ?? t.current).date),
      currentValue: (t.highest ?? t.current).value,
      consumption: t.consumption,
      billed: t.conversion === undefined ? '' : `${t.conversion.quantity} ${t.conversion.unit}`,
      estimated: t.estimated,
      previousEstimated: t.previous.estimated === true,
      maximum: t.kind === 'maximum',
      // A trace from before each end said which (2026-11-26) has the flag alone: shown on the current reading, as then.
      currentEstimated: t.highest !== undefined ? t.highest.estimated === true : t.current.estimated === true || (t.estimated && t.previous.estimated === undefined && t.current.estimated === undefined),
    });
  }
  const { deposit, less } = depositOf(b, m);
  const amountToPay = m(new Dec(b.total_due).minus(less).toFixed());
  const data: DocumentData = {
    app: { name: b.app_name, address: b.app_address ?? '', addressLines: addressLines(b.app_address ?? ''), currency: b.currency, taxNumber: b.app_tax_number ?? '' },
    account: { name: b.account_name, number: b.account_number, address: b.account_address ?? '', addressLines: addressLines(b.account_address ?? ''), email: b.account_email ?? '' },
    service: {
      code: b.service_code,
      name: d.name,
      bankAccounts: d.bankAccounts.map((x) => ({
        bankName: x.bankName,
        accountName: x.accountName ?? '',
        accountNumber: x.accountNumber,
        branch: x.branch ?? '',
        swift: x.swift ?? '',
      })),
    },
    bill: {
      id: b.bill_id,
      number: b.bill_number,
      date: dmyFromIso(b.bill_date),
      dueDate: dmyFromIso(b.due_date),
      periodStart: dmyFromIso(b.period_start),
      periodEnd: dmyFromIso(b.period_end),
      currency: b.currency,
      charges: m(b.charges),
      tax: m(b.tax),
      total: m(b.total),
      balanceBroughtForward: m(b.balance_brought_forward),
      totalDue: m(b.total_due),
      deposit,
      amountToPay,
      ...payableOf(amountToPay),
      estimated: b.estimated,
      paymentReference: paymentReference(b.bill_number),
      lines: b.lines.map(lineData),
      subscriptions:
        b.groups === null
          ? []
          : splitGroups(b.lines, b.groups).map(({ group: g, lines }) => ({
              id: g.subscriptionId,
              connection: connection(g.subscriptionId),
              inputs: inputsOf(b.connection_inputs?.[g.subscriptionId]),
              periodStart: dmyFromIso(g.periodStart),
              periodEnd: dmyFromIso(g.periodEnd),
              charges: m(g.charges),
              tax: m(g.tax),
              total: m(g.total),
              estimated: g.estimated,
              lines: lines.map(lineData),
            })),
      subscription: b.subscription_id === null ? null : { id: b.subscription_id, connection: textOf(single), inputs: single },
      readings,
      history: b.history.map((h) => ({
        number: h.bill_number,
        date: dmyFromIso(h.bill_date),
        periodStart: dmyFromIso(h.period_start),
        periodEnd: dmyFromIso(h.period_end),
        total: m(h.total),
        ...(() => {
          const c = consumptionOf(h.lines, h.groups, (code) => h.units?.[code]);
          return { consumption: c?.sum ?? '', unit: c?.unit ?? '' };
        })(),
      })),
      replaces: b.replaces,
      activity: activityOf(b, m),
    },
  };
  return {
    billId: b.bill_id,
    data,
    invoiceTemplateId: d.invoiceTemplate.templateID,
    emailTemplateId: d.emailTemplate.templateID,
    email: b.account_email,
    deliveryPreference: b.delivery_preference,
  };
}
