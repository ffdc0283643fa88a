// The rules a subscription's values follow, shared by make-subscription, move-subscription
// and the bulk import, so that a file cannot bring in what the API refuses. Issues that
// are not plain validation carry the code the API answers with (a missing template is
// NOT_FOUND, an archived one INVALID_STATE); an import reports them all as bad rows.
import { AppError, type ErrorDetail } from '../errors.ts';
import { parseDecimal } from '../rating/money.ts';
import { outOfRange } from '../rating/tariff.ts';
import { checkReadingValue } from '../readings/rules.ts';
import type { TemplateContext } from '../templates/context.ts';
import { formatDate, parseRecordDate, RECORD_DATE_MESSAGE } from '../calendar/calendar.ts';

export type Issue = ErrorDetail & { code?: 'NOT_FOUND' | 'INVALID_STATE' };
export type Inputs = Record<string, unknown>;

export type SubscriptionAccess = {
  /** A scalar field: serviceCode, batchCode, startDate, endDate, readingDate. */
  get: (field: string) => unknown;
  at: (field: string) => string;
  connection: Inputs | undefined;
  unmetered: Inputs | undefined;
  readings: Inputs | undefined;
  /** Path of an input (group 'connection' | 'unmetered' | 'reading'), or of the group itself when code is omitted. */
  inputAt: (group: 'connection' | 'unmetered' | 'reading', code?: string) => string;
  /** Values come from a CSV: numbers and booleans arrive as text. */
  text: boolean;
  /** The documents given (name, reference, date), each with the paths of its fields. */
  documents: GivenDocument[] | undefined;
  /** Path of the documents as a whole: where a missing required document is reported. */
  documentsAt: string;
};

export type GivenDocument = { name: unknown; reference: unknown; date: unknown; at: { name: string; reference: string; date: string } };
export type CheckedDocument = { name: string; reference: string; date: string };

export type CheckedInputs = { connection: Inputs; unmetered: Inputs };
export type CheckedSubscription = CheckedInputs & {
  template: TemplateContext;
  batchId: string;
  startDate: string;
  endDate: string | null;
  readingDate: string;
  readings: { inputCode: string; value: string }[];
  documents: CheckedDocument[];
};

const CONNECTION_TEXT_MAX = 500;
const BOOLEAN_TEXT: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };
const absent = (v: unknown) => v === undefined || v === null || v === '';

/** The template named by serviceCode, able to take new subscriptions. */
export function checkTemplate(code: unknown, path: string, templates: Map<string, TemplateContext>, issues: Issue[]): TemplateContext | null {
  if (absent(code)) {
    issues.push({ path, message: 'is required' });
    return null;
  }
  const t = typeof code === 'string' ? templates.get(code) : undefined;
  if (!t) {
    issues.push({ path, message: `no pricing template with code ${JSON.stringify(code)}`, code: 'NOT_FOUND' });
    return null;
  }
  if (t.archived) {
    issues.push({ path, message: `pricing template ${t.serviceCode} is archived and takes no new subscriptions`, code: 'INVALID_STATE' });
    return null;
  }
  return t;
}

/** The batch named by batchCode, which must be one of the template's batches. */
export function checkBatch(code: unknown, path: string, t: TemplateContext, allBatches: Map<string, string>, issues: Issue[]): string | null {
  if (absent(code)) {
    issues.push({ path, message: 'is required' });
    return null;
  }
  const id = typeof code === 'string' ? t.batches.get(code) : undefined;
  if (id !== undefined) return id;
  if (typeof code !== 'string' || !allBatches.has(code)) {
    issues.push({ path, message: `no batch with code ${JSON.stringify(code)}`, code: 'NOT_FOUND' });
    return null;
  }
  const listed = [...t.batches.keys()].sort();
  issues.push({
    path,
    message: `batch ${code} is not one of pricing template ${t.serviceCode}'s batches (${listed.length ? listed.join(', ') : 'it has none'}); add it to the template's batches first`,
  });
  return null;
}

export function checkDate(v: unknown, path: string, required: boolean, issues: Issue[]): string | null | undefined {
  if (absent(v)) {
    if (required) issues.push({ path, message: 'is required' });
    return required ? undefined : null;
  }
  const d = parseRecordDate(v);
  if (d === null) {
    issues.push({ path, message: RECORD_DATE_MESSAGE });
    return undefined;
  }
  return d;
}

/** Connection and unmetered inputs against the template: required ones present, types right, unknown ones refused. */
export function checkInputs(t: TemplateContext, a: Pick<SubscriptionAccess, 'connection' | 'unmetered' | 'inputAt' | 'text'>, issues: Issue[]): CheckedInputs | null {
  const before = issues.length;
  const connection: Inputs = {};
  const given = a.connection ?? {};
  const known = new Set(t.connectionInputs.map((c) => c.code));
  for (const code of Object.keys(given)) {
    if (!known.has(code)) issues.push({ path: a.inputAt('connection', code), message: `is not a connection input of pricing template ${t.serviceCode}` });
  }
  for (const def of t.connectionInputs) {
    const v = given[def.code];
    const path = a.inputAt('connection', def.code);
    if (absent(v)) {
      if (def.required) issues.push({ path, message: `is required by pricing template ${t.serviceCode}` });
      continue;
    }
    switch (def.type) {
      case 'string':
        if (typeof v !== 'string') issues.push({ path, message: 'must be a string' });
        else if (v.includes('\u0000')) issues.push({ path, message: 'must not hold a NUL character' });
        else if (v.length > CONNECTION_TEXT_MAX) issues.push({ path, message: `must be at most ${CONNECTION_TEXT_MAX} characters` });
        else connection[def.code] = v;
        break;
      case 'number': {
        const n = typeof v === 'number' || typeof v === 'string' ? parseDecimal(v) : null;
        if (n === null) issues.push({ path, message: 'must be a number' });
        else connection[def.code] = typeof v === 'number' ? v : Number(n.toString());
        break;
      }
      case 'date': {
        const d = parseRecordDate(v);
        if (d === null) issues.push({ path, message: RECORD_DATE_MESSAGE });
        else connection[def.code] = formatDate(d);
        break;
      }
      case 'boolean': {
        const b = typeof v === 'boolean' ? v : a.text && typeof v === 'string' ? BOOLEAN_TEXT[v.toLowerCase()] : undefined;
        if (b === undefined) issues.push({ path, message: a.text ? 'must be true or false' : 'must be a boolean' });
        else connection[def.code] = b;
        break;
      }
    }
  }
  const unmetered: Inputs = {};
  const givenU = a.unmetered ?? {};
  const knownU = new Set(t.unmeteredInputs.map((u) => u.code));
  for (const code of Object.keys(givenU)) {
    if (!knownU.has(code)) issues.push({ path: a.inputAt('unmetered', code), message: `is not an unmetered input of pricing template ${t.serviceCode}` });
  }
  for (const def of t.unmeteredInputs) {
    const v = givenU[def.code];
    const path = a.inputAt('unmetered', def.code);
    if (absent(v)) {
      // Not filled in from the default: a template whose default changes applies to every
      // subscription that did not give its own value.
      if (def.default === undefined) issues.push({ path, message: `is required: pricing template ${t.serviceCode} gives no default` });
      continue;
    }
    const n = typeof v === 'number' || typeof v === 'string' ? parseDecimal(v) : null;
    const range = n === null ? null : outOfRange(n);
    if (n === null) issues.push({ path, message: 'must be a decimal number such as "3" or "2.5"' });
    else if (n.isNegative()) issues.push({ path, message: 'must not be negative' });
    else if (range !== null) issues.push({ path, message: range });
    else unmetered[def.code] = n.toFixed();
  }
  return issues.length > before ? null : { connection, unmetered };
}

const DOCUMENT_TEXT_MAX = 200;

/**
 * The documents given, and those the template requires (product.md, "Every setting of a
 * pricing template is real": a subscription cannot be connected until each document its
 * template's requiredDocs lists is recorded on it). `carried` are documents already on
 * record (a move keeps the old subscription's). Names match exactly, spaces at the ends
 * aside. Answers the given documents, checked.
 */
export function checkDocuments(
  t: TemplateContext,
  given: GivenDocument[] | undefined,
  documentsAt: string,
  issues: Issue[],
  carried: CheckedDocument[] = [],
): CheckedDocument[] | null {
  const before = issues.length;
  const out = checkGivenDocuments(given, issues);
  const onRecord = new Set([...out.map((d) => d.name), ...carried.map((c) => c.name)]);
  for (const required of t.requiredDocs) {
    if (!onRecord.has(required) && !(given ?? []).some((d) => typeof d.name === 'string' && d.name.trim() === required)) {
      issues.push({ path: documentsAt, message: `document ${JSON.stringify(required)} is required by pricing template ${t.serviceCode}: give its name, reference and date` });
    }
  }
  return issues.length > before ? null : out;
}

/** Each given document's name, reference and date; a name given twice is refused. */
export function checkGivenDocuments(given: GivenDocument[] | undefined, issues: Issue[]): CheckedDocument[] {
  const out: CheckedDocument[] = [];
  const named = new Set<string>();
  const text = (v: unknown, path: string): string | null => {
    if (absent(v)) issues.push({ path, message: 'is required' });
    else if (typeof v !== 'string') issues.push({ path, message: 'must be a string' });
    else if (v.includes('\u0000')) issues.push({ path, message: 'must not hold a NUL character' });
    else if (v.trim().length > DOCUMENT_TEXT_MAX) issues.push({ path, message: `must be at most ${DOCUMENT_TEXT_MAX} characters` });
    else if (v.trim() === '') issues.push({ path, message: 'must not be blank' });
    else return v.trim();
    return null;
  };
  for (const d of given ?? []) {
    const name = text(d.name, d.at.name);
    const reference = text(d.reference, d.at.reference);
    const date = checkDate(d.date, d.at.date, true, issues);
    if (name !== null && named.has(name)) {
      issues.push({ path: d.at.name, message: `names document ${JSON.stringify(name)} a second time` });
      continue;
    }
    if (name !== null) named.add(name);
    if (name !== null && reference !== null && date) out.push({ name, reference, date });
  }
  return out;
}

/** A whole new subscription: template, batch, dates, inputs and opening readings. */
export function checkSubscription(
  a: SubscriptionAccess,
  templates: Map<string, TemplateContext>,
  allBatches: Map<string, string>,
  issues: Issue[],
): CheckedSubscription | null {
  const before = issues.length;
  const template = checkTemplate(a.get('serviceCode'), a.at('serviceCode'), templates, issues);
  const batchId = template ? checkBatch(a.get('batchCode'), a.at('batchCode'), template, allBatches, issues) : null;
  const startDate = checkDate(a.get('startDate'), a.at('startDate'), true, issues);
  const endDate = checkDate(a.get('endDate'), a.at('endDate'), false, issues);
  if (startDate && endDate && endDate < startDate) issues.push({ path: a.at('endDate'), message: 'must not be before startDate' });
  const readingDate = checkDate(a.get('readingDate'), a.at('readingDate'), false, issues) ?? startDate;
  if (!template) return null;
  const inputs = checkInputs(template, a, issues);
  const documents = checkDocuments(template, a.documents, a.documentsAt, issues);
  const readings: { inputCode: string; value: string }[] = [];
  const given = a.readings ?? {};
  const meters = new Map(template.meteredInputs.map((m) => [m.code, m]));
  let anyReading = false;
  for (const [code, raw] of Object.entries(given)) {
    const meter = meters.get(code);
    const path = a.inputAt('reading', code);
    if (!meter) {
      issues.push({ path, message: `is not a metered input of pricing template ${template.serviceCode}` });
      continue;
    }
    if (absent(raw)) continue;
    anyReading = true;
    const value = checkReadingValue(meter, raw, path, issues);
    if (value !== null) readings.push({ inputCode: code, value });
  }
  if (anyReading && readingDate && startDate && readingDate < startDate)
    issues.push({ path: a.at('readingDate'), message: 'must not be before startDate' });
  if (anyReading && readingDate && endDate && readingDate > endDate) issues.push({ path: a.at('readingDate'), message: 'must not be after endDate' });
  if (issues.length > before || !inputs || !documents || !batchId || !startDate || endDate === undefined || !readingDate) return null;
  return { template, batchId, startDate, endDate, readingDate, readings, documents, ...inputs };
}

/** Access to a JSON object shaped like make-subscription's data (and a JSON import row). */
export function jsonAccess(obj: Record<string, unknown>, prefix: string): SubscriptionAccess {
  const group = { connection: 'connectionInputs', unmetered: 'unmeteredInputs', reading: 'openingReadings' } as const;
  const asInputs = (v: unknown): Inputs | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Inputs) : undefined);
  return {
    get: (f) => obj[f],
    at: (f) => `${prefix}.${f}`,
    connection: asInputs(obj.connectionInputs),
    unmetered: asInputs(obj.unmeteredInputs),
    readings: asInputs(obj.openingReadings),
    inputAt: (g, code) => `${prefix}.${group[g]}${code === undefined ? '' : `.${code}`}`,
    text: false,
    documents: jsonDocuments(obj.documents, `${prefix}.documents`),
    documentsAt: `${prefix}.documents`,
  };
}

/** Documents as JSON gives them: [{ name, reference, date }]; anything else is left to the caller's schema. */
export function jsonDocuments(v: unknown, at: string): GivenDocument[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map((d, i) => {
    const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
    return { name: o.name, reference: o.reference, date: o.date, at: { name: `${at}[${i}].name`, reference: `${at}[${i}].reference`, date: `${at}[${i}].date` } };
  });
}

/** Throws the issues as the API's error: NOT_FOUND first, then INVALID_STATE, else VALIDATION_FAILED. */
export function raiseIssues(issues: Issue[], message = 'The subscription is not valid.'): void {
  if (issues.length === 0) return;
  const strip = (xs: Issue[]) => xs.map(({ path, message }) => ({ path, message }));
  const missing = issues.filter((i) => i.code === 'NOT_FOUND');
  if (missing.length > 0) throw new AppError('NOT_FOUND', `${missing[0]!.message[0]!.toUpperCase()}${missing[0]!.message.slice(1)}.`, strip(missing));
  const state = issues.filter((i) => i.code === 'INVALID_STATE');
  if (state.length > 0) throw new AppError('INVALID_STATE', `${state[0]!.message[0]!.toUpperCase()}${state[0]!.message.slice(1)}.`, strip(state));
  throw new AppError('VALIDATION_FAILED', message, strip(issues));
}
