// How a request body is read: JSON only, as UTF-8 text, and nothing at all when there
// are no bytes. Fastify's own parsers would read text/plain as a string (then refused
// as "body: must be object" instead of 415), refuse an empty body whatever the method
// (a DELETE sent by axios or Postman with Content-Type: application/json), and decode
// invalid UTF-8 as U+FFFD, which PostgreSQL then stores as if the client had meant it.
import type { FastifyInstance } from 'fastify';
import { AppError, type ErrorDetail } from '../errors.ts';
import { fieldPath } from './errors.ts';
import { TAG_CHARACTER_MESSAGE, TAG_CHARACTERS } from '../primitives.ts';

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
// PostgreSQL's text (and jsonb) cannot hold U+0000: a string with it reached the database
// from any field without a pattern of its own and failed there, a 500 (cancel-bill's
// reason, a payment's description, a term's label). It enters JSON only as \u0000.
const NUL_ESCAPE = /\\u0000/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

// secure-json-parse refuses a "__proto__" key and "constructor" holding "prototype" (they
// would reach an object's prototype); Fastify reports that as invalid JSON, which misled a
// client that had sent valid JSON (an outside check).
const PROTOTYPE_KEYS = () =>
  new AppError('MALFORMED_JSON', 'The body holds a "__proto__" key, or "constructor" with "prototype", which are refused.', [
    { path: 'body', message: 'holds a "__proto__" key, or "constructor" with "prototype", which are refused' },
  ]);
const TOO_DEEP = () => new AppError('MALFORMED_JSON', 'The body is nested too deeply to be read.', [{ path: 'body', message: 'is nested too deeply' }]);
const validJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

export function jsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Fastify's parser: secure-json-parse refusing __proto__ and constructor.prototype.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const refused = unreadEncoding(request.headers['content-encoding'], request.headers['content-type']);
    if (refused !== null) return done(refused, undefined);
    // No bytes is no body: a route that wants one says so (operation(): MALFORMED_JSON).
    if (body.length === 0) return done(null, undefined);
    let text: string;
    let invalidUtf8 = false;
    try {
      text = strictUtf8.decode(body);
    } catch {
      // Decoded again with U+FFFD in place of the bad bytes, only to find which field held them.
      text = body.toString('utf8');
      invalidUtf8 = true;
    }
    parseJson(request, text, (err, value) => {
      // Valid JSON that the parser refused: a prototype key, or nesting deep enough to exhaust
      // its recursion (4,000 brackets were answered as a "__proto__" key: an outside client).
      if (err) return done(!validJson(text) ? (err as Error) : /__proto__|constructor/.test(text) ? PROTOTYPE_KEYS() : TOO_DEEP(), undefined);
      // A surrogate can enter only as a \uD800-\uDFFF escape, a NUL as \u0000: most bodies skip the walk.
      const bad = invalidUtf8 || SURROGATE_ESCAPE.test(text) || NUL_ESCAPE.test(text) || TAG_CHARACTERS.test(text) ? badText(value, invalidUtf8) : [];
      if (bad.length > 0) return done(new AppError('VALIDATION_FAILED', 'The body holds text that cannot be stored or shown: not valid UTF-8, a NUL character or an invisible tag character.', bad), undefined);
      const inexact = LONG_NUMBER.test(text) ? inexactNumbers(text) : [];
      if (inexact.length > 0) return done(new AppError('VALIDATION_FAILED', 'The body holds a number with more digits than a JSON number keeps.', inexact), undefined);
      const twice = duplicateKeys(text, value);
      if (twice.length > 0) return done(new AppError('VALIDATION_FAILED', 'The body names a field twice in one object; JSON would keep only the last, so it is refused.', twice), undefined);
      done(null, value);
    });
  });
}

/**
 * Every string (name or value) that is not text: a lone surrogate (written as a \ud800
 * escape), or, when the bytes were not UTF-8, one holding the U+FFFD put in their place;
 * and every one holding U+0000, which no text column can store.
 */
function badText(value: unknown, invalidUtf8: boolean): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const isBad = (s: string) => !s.isWellFormed() || (invalidUtf8 && s.includes('\ufffd'));
  const problem = (s: string) =>
    isBad(s)
      ? 'is not valid UTF-8 text'
      : s.includes('\u0000')
        ? 'holds a NUL character (\\u0000), which text cannot hold'
        : TAG_CHARACTERS.test(s)
          ? TAG_CHARACTER_MESSAGE
          : undefined;
  const walk = (v: unknown, path: (string | number)[]) => {
    if (found.length >= 20) return;
    if (typeof v === 'string') {
      const message = problem(v);
      if (message !== undefined) found.push({ path: fieldPath(path), message });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, i]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const message = isBad(k) ? 'is a field name that is not valid UTF-8 text' : k.includes('\u0000') ? 'is a field name that holds a NUL character (\\u0000)' : undefined;
        if (message !== undefined) found.push({ path: fieldPath([...path, k]), message });
        else walk(item, [...path, k]);
      }
    }
  };
  walk(value, []);
  // Bad bytes outside any string would have failed the JSON parse; this is a safety net.
  if (found.length === 0 && invalidUtf8) found.push({ path: 'body', message: 'is not valid UTF-8' });
  return found;
}

/**
 * The fields written twice in one object. JSON.parse keeps the last silently, so a body
 * checked by something in front of billrun (a gateway reading the first "amount") could
 * be billed by another value (a fuzzer's finding). Counted first, cheaply: the names
 * written against the keys the parsed value holds; only a body where they differ is
 * scanned for where.
 */
function duplicateKeys(text: string, value: unknown): ErrorDetail[] {
  return namesWritten(text) === keysIn(value) ? [] : whereTwice(text);
}

/**
 * How many field names valid JSON text writes: the colons outside its strings (each name
 * has one). A loop over the characters: 0.1 s for 22 MB of payments, where a regular
 * expression over the strings took 0.4 s and JSON.parse itself 0.2 s.
 */
function namesWritten(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: on to its closing quote, over escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i += text.charCodeAt(i) === 92 ? 2 : 1);
    } else if (c === 58) n++;
  }
  return n;
}

function keysIn(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  if (Array.isArray(v)) return v.reduce((n: number, item) => n + keysIn(item), 0);
  let n = 0;
  for (const item of Object.values(v)) n += 1 + keysIn(item);
  return n;
}

type Frame = { path: (string | number)[]; keys: Set<string> | null; index: number; key: string | null };

/** A scan of valid JSON text naming each field written twice in its object (at most 20). */
function whereTwice(text: string): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const stack: Frame[] = [];
  const childPath = (): (string | number)[] => {
    const top = stack[stack.length - 1];
    if (top === undefined) return [];
    return [...top.path, top.keys === null ? top.index : (top.key ?? '')];
  };
  let expectKey = false;
  for (let i = 0; i < text.length && found.length < 20; i++) {
    const c = text[i];
    if (c === '{') {
      stack.push({ path: childPath(), keys: new Set(), index: 0, key: null });
      expectKey = true;
    } else if (c === '[') {
      stack.push({ path: childPath(), keys: null, index: 0, key: null });
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys === null) top.index++;
      expectKey = top !== undefined && top.keys !== null;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (expectKey) {
        const top = stack[stack.length - 1]!;
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys!.has(key)) found.push({ path: fieldPath([...top.path, key]), message: 'is given twice in one object' });
        top.keys!.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    }
  }
  return found;
}

// A number of 16 digits or more (with its point) may not survive JSON.parse: most bodies skip the second parse.
const LONG_NUMBER = /\d[\d.]{15,}/;

/**
 * The numbers whose value after JSON.parse is not the number the client wrote: past about
 * 15 significant digits a double keeps another one, silently. A payment of
 * 0.300000000000000000000000000004 was recorded as 0.30, and a reference 9007199254740993
 * stored as 9007199254740992 (a fuzzer). A decimal or a large id sent as a string is kept
 * exactly; as a number, it is refused here, on its field, rather than changed.
 */
function inexactNumbers(text: string): ErrorDetail[] {
  const holders = new Map<object, string[]>();
  const value: unknown = JSON.parse(text, function (this: object, key: string, v: unknown, context?: { source?: string }) {
    if (typeof v === 'number' && context?.source !== undefined && !sameNumber(context.source, v)) {
      const keys = holders.get(this) ?? [];
      keys.push(key);
      holders.set(this, keys);
    }
    return v;
  });
  const found: ErrorDetail[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (v === null || typeof v !== 'object' || found.length >= 20) return;
    for (const key of holders.get(v) ?? []) {
      const source = Array.isArray(v) ? [...path, Number(key)] : [...path, key];
      found.push({ path: fieldPath(source), message: 'has more digits than a JSON number keeps exactly: send it as a string' });
    }
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]));
    else for (const [k, item] of Object.entries(v)) walk(item, [...path, k]);
  };
  walk(value, []);
  return found;
}

/** Whether the number written as `source` is the double `v` exactly, as a decimal: "1.50" is 1.5, "0.1000000000000000055" is not 0.1. */
function sameNumber(source: string, v: number): boolean {
  if (!Number.isFinite(v)) return false;
  const written = decimalParts(source);
  const kept = decimalParts(String(v));
  return written.digits === kept.digits && written.exponent === kept.exponent && written.negative === kept.negative;
}

/** A decimal's significant digits and the power of ten of its last one (no trailing zeros), and its sign. */
function decimalParts(text: string): { digits: string; exponent: number; negative: boolean } {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return { digits: text, exponent: 0, negative: false };
  const fraction = m[3] ?? '';
  let digits = (m[2]! + fraction).replace(/^0+/, '');
  let exponent = Number(m[4] ?? 0) - fraction.length;
  const zeros = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - zeros);
  exponent += zeros;
  if (digits === '') return { digits: '0', exponent: 0, negative: false };
  return { digits, exponent, negative: m[1] === '-' };
}

/**
 * A body compressed, or in a character set other than UTF-8, is one this server does not
 * read: refused (415) rather than parsed as if it were plain UTF-8. A fuzzer's gzip body was
 * "not valid JSON" (400), a plain one labelled gzip was taken, and one labelled latin1 was
 * read as UTF-8.
 */
function unreadEncoding(encoding: string | undefined, type: string | undefined): AppError | null {
  if (encoding !== undefined && encoding.trim() !== '' && encoding.trim().toLowerCase() !== 'identity') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body uncompressed: no Content-Encoding is accepted.', [{ path: 'Content-Encoding', message: 'must be absent (or identity)' }]);
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON.', [{ path: 'Content-Type', message: 'must be application/json (charset utf-8)' }]);
  }
  return null;
}
