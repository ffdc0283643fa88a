// Where an import's rows come from: a CSV stream or a JSON array. Both give the same
// ImportRow, so one set of rules checks them; only the paths in errors differ
// (CSV: rows[<row number>].<column>, the header being row 1; JSON: data.rows[<index>].<field>).
import { Transform, type Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { jsonDocuments, type GivenDocument, type Inputs, type SubscriptionAccess } from '../subscriptions/check.ts';
import type { ImportKind, RowError } from './store.ts';
import { TAG_CHARACTER_MESSAGE, TAG_CHARACTERS } from '../primitives.ts';

export type ImportRow = SubscriptionAccess & {
  /** CSV: the record number, the header being row 1. JSON: the index plus 1. */
  row: number;
  /** What every path of this row starts with. */
  prefix: string;
  /** Problems of shape the source found (unknown field, wrong number of fields). */
  problems: RowError[];
};

const ACCOUNT_FIELDS = ['accountNumber', 'name', 'email', 'phone', 'address', 'deliveryPreference'];
const SUBSCRIPTION_FIELDS = ['serviceCode', 'batchCode', 'startDate', 'endDate', 'readingDate'];
export const FIELDS: Record<ImportKind, string[]> = {
  accounts: [...ACCOUNT_FIELDS, ...SUBSCRIPTION_FIELDS],
  subscriptions: ['accountNumber', ...SUBSCRIPTION_FIELDS],
  readings: ['subscriptionID', 'accountNumber', 'serviceCode', 'inputCode', 'readingDate', 'value', 'kind', 'source', 'note'],
};
const REQUIRED: Record<ImportKind, string[]> = {
  accounts: ['accountNumber', 'name'],
  subscriptions: ['accountNumber', 'serviceCode', 'batchCode', 'startDate'],
  readings: ['inputCode', 'readingDate', 'value'],
};
const CSV_GROUPS = { connection: 'connection', unmetered: 'unmetered', reading: 'reading' } as const;
const JSON_GROUPS = { connection: 'connectionInputs', unmetered: 'unmeteredInputs', reading: 'openingReadings' } as const;
type Group = keyof typeof CSV_GROUPS;

/** The import cannot go on: a bad header or a CSV that cannot be parsed. */
export class SourceError extends Error {
  readonly errors: RowError[];
  constructor(errors: RowError[]) {
    super(errors[0]?.message ?? 'bad source');
    this.errors = errors;
  }
}

export async function* csvRows(input: Readable, kind: ImportKind): AsyncGenerator<ImportRow> {
  const parser = parse({ bom: true, trim: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1 << 20 });
  const utf8 = strictUtf8();
  input.on('error', (err) => parser.destroy(err));
  utf8.on('error', (err) => parser.destroy(err));
  input.pipe(utf8).pipe(parser);
  let header: string[] | undefined;
  const scalar = new Map<string, number>();
  const groups: [Group, string, number][] = [];
  const documents: DocumentColumns = new Map();
  let n = 0;
  try {
    for await (const rec of parser as AsyncIterable<string[]>) {
      n++;
      if (!header) {
        header = rec;
        readHeader(header, kind, scalar, groups, documents);
        continue;
      }
      const row = n;
      const prefix = `rows[${row}].`;
      const problems: RowError[] = [];
      if (rec.some((v) => v.includes('\u0000'))) problems.push({ row, column: '', path: `rows[${row}]`, message: 'holds a NUL character, which no field may' });
      // As a request body refuses them (http/body.ts): "TAGCSV\u{E0041}1" came in through a file and showed as "TAGCSV1".
      rec.forEach((v, i) => {
        if (TAG_CHARACTERS.test(v)) problems.push({ row, column: header![i] ?? '', path: `${prefix}${header![i] ?? ''}`, message: TAG_CHARACTER_MESSAGE });
      });
      if (rec.length !== header.length) {
        problems.push({ row, column: '', path: `rows[${row}]`, message: `has ${rec.length} fields where the header has ${header.length}` });
      }
      const group = (g: Group): Inputs | undefined => {
        let out: Inputs | undefined;
        for (const [gg, code, i] of groups) {
          if (gg !== g) continue;
          const v = rec[i];
          if (v === undefined || v === '') continue;
          (out ??= {})[code] = v;
        }
        return out;
      };
      yield {
        row,
        prefix,
        problems,
        get: (f) => {
          const i = scalar.get(f);
          return i === undefined ? undefined : rec[i];
        },
        at: (f) => prefix + f,
        connection: group('connection'),
        unmetered: group('unmetered'),
        readings: group('reading'),
        inputAt: (g, code) => `${prefix}${CSV_GROUPS[g]}${code === undefined ? '' : `.${code}`}`,
        text: true,
        documents: csvDocuments(rec, documents, prefix),
        documentsAt: `${prefix}document`,
      };
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    const e = err as { code?: string; lines?: number; message?: string };
    // Every error of the parser (INVALID_OPENING_QUOTE has no CSV_ prefix: a quote inside an
    // unquoted field was a 500, found by a fuzzer).
    if (err instanceof CsvError || (typeof e.code === 'string' && e.code.startsWith('CSV_'))) {
      // The parser's line, not the rows read so far: it may fail a little ahead of them.
      const row = typeof e.lines === 'number' && e.lines > 0 ? e.lines : n + 1;
      throw new SourceError([{ row, column: '', path: `rows[${row}]`, message: `is not valid CSV (line ${e.lines ?? '?'}): ${e.message}` }]);
    }
    throw err;
  }
  if (!header) throw new SourceError([{ row: 1, column: '', path: 'rows[1]', message: 'the file is empty: the first row must name the columns' }]);
}

/**
 * The file's bytes as they come, checked to be UTF-8 on the way: csv-parse decodes lossily,
 * so bytes that are not UTF-8 were stored as U+FFFD ("U123\xff\xfe" became "U123\ufffd\ufffd"),
 * where the JSON API refuses them (docs/api.md; an attacker's finding). A file that is not
 * UTF-8 (a spreadsheet's "CSV" in Windows-1252 or UTF-16) stops the import at the line where
 * it stops being UTF-8 (firstBadByte: a character cut across two chunks is carried to the next).
 */
function strictUtf8(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let lines = 0;
  // The last chunk's bytes of a character it did not finish (no line break among them).
  let carried = Buffer.alloc(0);
  const refuse = (bytes: Buffer) => {
    const at = firstBadByte(bytes);
    let line = lines + 1;
    for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) line++;
    return new SourceError([{ row: line, column: '', path: `rows[${line}]`, message: `is not UTF-8 text (line ${line}): save the file as UTF-8 (CSV UTF-8) and send it again` }]);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        return done(refuse(Buffer.concat([carried, chunk])));
      }
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      carried = Buffer.from(chunk.subarray(chunk.length - unfinished(chunk)));
      done(null, chunk);
    },
    flush(done) {
      try {
        decoder.decode();
      } catch {
        return done(refuse(carried));
      }
      done();
    },
  });
}

/** How many bytes at the end of `b` begin a character that they do not finish (0 to 3). */
function unfinished(b: Buffer): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return size > back ? back : 0;
    }
  }
  return 0;
}

/** The offset of the first byte of `b` that is not part of UTF-8 text (its length when all of it is). */
function firstBadByte(b: Buffer): number {
  const text = b.toString('utf8');
  // Each replaced character is at the byte offset of the valid text before it; a U+FFFD the
  // file itself holds (EF BF BD) is text, and the search goes on past it.
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
    const offset = Buffer.byteLength(text.slice(0, i));
    if (!(b[offset] === 0xef && b[offset + 1] === 0xbf && b[offset + 2] === 0xbd)) return offset;
  }
  return b.length;
}

/** CSV columns of documents: document.<name> holds the reference, document.<name>.date the date. */
type DocumentColumns = Map<string, { reference?: number; date?: number }>;

function csvDocuments(rec: string[], columns: DocumentColumns, prefix: string): GivenDocument[] | undefined {
  let out: GivenDocument[] | undefined;
  for (const [name, c] of columns) {
    const reference = c.reference === undefined ? undefined : rec[c.reference];
    const date = c.date === undefined ? undefined : rec[c.date];
    if (!reference && !date) continue;
    const at = `${prefix}document.${name}`;
    (out ??= []).push({ name, reference, date, at: { name: at, reference: at, date: `${at}.date` } });
  }
  return out;
}

function readHeader(header: string[], kind: ImportKind, scalar: Map<string, number>, groups: [Group, string, number][], documents: DocumentColumns): void {
  const errors: RowError[] = [];
  const known = new Set(FIELDS[kind]);
  const seen = new Set<string>();
  // A NUL in a column's name would be in the error that names it, which the import's own
  // record (a jsonb column) cannot hold: a 500, and the import left running (a fuzzer).
  if (header.some((name) => name.includes('\u0000'))) {
    throw new SourceError([{ row: 1, column: '', path: 'rows[1]', message: 'the header holds a NUL character, which no column name may' }]);
  }
  header.forEach((name, i) => {
    const at = { row: 1, column: name, path: `rows[1].${name}` };
    if (seen.has(name)) errors.push({ ...at, message: 'is a column named twice' });
    seen.add(name);
    if (known.has(name)) {
      scalar.set(name, i);
      return;
    }
    const d = /^document\.(.+?)(\.date)?$/.exec(name);
    if (d && kind !== 'readings') {
      const c = documents.get(d[1]!) ?? {};
      c[d[2] ? 'date' : 'reference'] = i;
      documents.set(d[1]!, c);
      return;
    }
    const m = /^(connection|unmetered|reading)\.(.+)$/.exec(name);
    if (m && kind !== 'readings') {
      groups.push([m[1] as Group, m[2]!, i]);
      return;
    }
    errors.push({
      ...at,
      message: `is not a column of a ${kind} import (columns: ${FIELDS[kind].join(', ')}${kind !== 'readings' ? ', connection.<code>, unmetered.<code>, reading.<code>, document.<name>, document.<name>.date' : ''})`,
    });
  });
  for (const f of REQUIRED[kind]) {
    if (!scalar.has(f)) errors.push({ row: 1, column: f, path: `rows[1].${f}`, message: `is a required column of a ${kind} import` });
  }
  if (kind === 'readings' && !scalar.has('subscriptionID') && !(scalar.has('accountNumber') && scalar.has('serviceCode'))) {
    errors.push({ row: 1, column: 'subscriptionID', path: 'rows[1].subscriptionID', message: 'is required, or accountNumber and serviceCode' });
  }
  if (errors.length > 0) throw new SourceError(errors);
}

export function* jsonRows(rows: unknown[], kind: ImportKind): Generator<ImportRow> {
  const known = new Set(FIELDS[kind]);
  const groupKeys = new Set(kind === 'readings' ? [] : Object.values(JSON_GROUPS));
  for (let i = 0; i < rows.length; i++) {
    const prefix = `data.rows[${i}].`;
    const raw = rows[i];
    const obj = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    const problems: RowError[] = [];
    if (obj !== raw) problems.push({ row: i + 1, column: '', path: `data.rows[${i}]`, message: 'must be an object' });
    if (holdsNul(obj)) problems.push({ row: i + 1, column: '', path: `data.rows[${i}]`, message: 'holds a NUL character, which no field may' });
    for (const k of Object.keys(obj)) {
      if (known.has(k)) continue;
      if (k === 'documents' && kind !== 'readings') {
        if (obj[k] !== null && obj[k] !== undefined && !Array.isArray(obj[k]))
          problems.push({ row: i + 1, column: k, path: prefix + k, message: 'must be an array of { name, reference, date }' });
        continue;
      }
      if (groupKeys.has(k as never)) {
        const v = obj[k];
        if (v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v)))
          problems.push({ row: i + 1, column: k, path: prefix + k, message: 'must be an object keyed by input code' });
        continue;
      }
      problems.push({ row: i + 1, column: k, path: prefix + k, message: 'is not a known field' });
    }
    const group = (k: string): Inputs | undefined => {
      const v = obj[k];
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Inputs) : undefined;
    };
    yield {
      row: i + 1,
      prefix,
      problems,
      get: (f) => obj[f],
      at: (f) => prefix + f,
      connection: group(JSON_GROUPS.connection),
      unmetered: group(JSON_GROUPS.unmetered),
      readings: group(JSON_GROUPS.reading),
      inputAt: (g, code) => `${prefix}${JSON_GROUPS[g]}${code === undefined ? '' : `.${code}`}`,
      text: false,
      documents: jsonDocuments(obj.documents, `${prefix}documents`),
      documentsAt: `${prefix}documents`,
    };
  }
}

/** PostgreSQL text and jsonb refuse the NUL character; a row holding one is refused before it gets there. */
function holdsNul(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (v === null || typeof v !== 'object' || depth > 3) return false;
  for (const [k, x] of Object.entries(v)) if (k.includes('\u0000') || holdsNul(x, depth + 1)) return true;
  return false;
}
