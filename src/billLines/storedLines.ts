// The stored form of a bill's lines and source (bill.lines, bill.source): the one owner of
// how they are encoded for storage and decoded on read. Every reader of those columns goes
// through decodeStored (or, in SQL, bill_line_heads: migration 075), never through the JSON
// by hand.
//
// Why: a bill's lines are about 1.4 kB of JSON of which nearly everything (keys, component
// codes and names, tier bounds and rates, dates, the rounding rule) is the same on every
// bill of a tariff; only the quantities, readings and amounts differ. Stored as such, a
// bill took about 2 kB (its row past a quarter page, four to a page), the COPY sent and
// PostgreSQL parsed 1.5 kB of JSON per bill, and a bill of two segments crossed the toast
// threshold (issues 12 and 15).
//
// The packed form ("prototype diff"): a value (the lines array, or the source object) is
// compared leaf by leaf with a prototype of the same structure, a whole earlier value kept
// once in bill_line_prototype under the digest of its JSON. The bill stores
//   [digest, head amounts..., skip, value, skip, value, ...]
// - digest: the prototype's (base64url, 16 characters of its SHA-256);
// - head amounts: each line's `amount` as it is (so SQL can sum lines without the
//   prototype's help beyond its component codes and categories, see bill_line_heads);
// - then, over the value's leaves in depth-first order: `skip` leaves equal to the
//   prototype's, then one leaf given as a string (itself), a one-element array (a number,
//   boolean or null, itself), or an integer j: the same value as the j-th value decoded
//   so far (the head amounts first, then the leaves): a quantity repeated in the trace,
//   an amount repeated as the next line's base. Leaves after the last token are the
//   prototype's.
// Structure (keys in their order, arrays' lengths, where the leaves are) and each line's
// componentCode and category are the prototype's exactly: the prototype is chosen by them
// (flatten's tokens), so anything the rating adds to a line or a trace (a new field, a new
// line kind) is kept, in a prototype of its own. Decoding rebuilds the value with the
// prototype's key order, so the JSON a client reads is byte for byte what was rated.
//
// The old form (a plain JSON array of lines, a plain source object) is still read as it is:
// bills written before migration 075, and the rows tests and benchmarks insert by hand.
import crypto from 'node:crypto';
import type { Queryable } from '../db/pool.ts';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/**
 * A prototype: its digest, its value (as JSON text and parsed), its leaves in depth-first
 * order, its lines' heads (componentCode, category), and its structure as numbers (flatten).
 */
type Prototype = { digest: string; json: string; value: Json; leaves: Json[]; heads: [Json, Json][]; tokens: Int32Array; hash: number };

// Content-addressed, so valid in any database: the same process serves tests on many
// databases, and a digest names the same prototype in each. Bounded: cleared when full.
const byDigest = new Map<string, Prototype>();
/** Prototypes by the hash of their structure (several may share one; flatten's tokens tell them apart). */
const byHash = new Map<number, Prototype[]>();
const MAX_CACHED = 10_000;
/** The prototype used last, tried first: most bills of a run share it with the bill before. */
let last: Prototype | undefined;

function remember(p: Prototype): void {
  if (byDigest.size >= MAX_CACHED) {
    byDigest.clear();
    byHash.clear();
    last = undefined;
  }
  byDigest.set(p.digest, p);
}

/** Remembers a prototype as the one of its structure, for pack. */
function rememberStructure(p: Prototype): void {
  const h = p.hash;
  const list = byHash.get(h);
  if (list === undefined) byHash.set(h, [p]);
  else list.push(p);
}

// The tokens of a structure: an object is OBJECT, then each key's id and its value, then
// END; an array is ARRAY and its length, then its items; a leaf is LEAF; a line's
// componentCode or category (text) is HEAD and the text's id, a leaf too. Ids are given
// in the order met, for the life of the process (keys and codes: a tariff's few words).
const LEAF = 1;
const OBJECT = 2;
const END = 3;
const ARRAY = 4;
const HEAD = 5;
const ids = new Map<string, number>();
function idOf(k: string): number {
  let id = ids.get(k);
  if (id === undefined) ids.set(k, (id = ids.size + 16));
  return id;
}

/**
 * The structure (tokens) and the leaves, in depth-first order, of a value as JSON.stringify
 * reads it: toJSON called; a field undefined, a function or a symbol left out of an object
 * and null in an array; a number not finite is null. False when the value holds what JSON
 * cannot (a bigint): the caller leaves it to JSON.stringify, which says so.
 *
 * One walk (the tokens hashed as they are written), then two plain loops (the tokens against
 * a prototype's of the same hash, the leaves against its leaves), in place of a walk along
 * each candidate prototype and a structure read off a JSON.parse of the value: packing was a
 * third of a worker's time on bills of two segments, whose lines come in several structures
 * (issue 12, docs/bill-run.md).
 */
function flatten(v: unknown, f: Flat): boolean {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'bigint') return false;
    f.token(LEAF);
    f.leaf(v === undefined || typeof v === 'function' || typeof v === 'symbol' || (typeof v === 'number' && !Number.isFinite(v)) ? null : v);
    return true;
  }
  return flattenObject(v, f);
}

/** flatten of an object or array (toJSON already called). */
function flattenObject(v: object, f: Flat): boolean {
  if (Array.isArray(v)) {
    f.token(ARRAY);
    f.token(v.length);
    for (let i = 0; i < v.length; i++) if (!flatten(v[i], f)) return false;
    return true;
  }
  f.token(OBJECT);
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    f.token(idOf(k));
    if ((k === 'componentCode' || k === 'category') && typeof x === 'string') {
      f.token(HEAD);
      f.token(idOf(x));
      f.leaf(x);
    } else if (!flatten(x, f)) return false;
  }
  f.token(END);
  return true;
}

/**
 * What flatten writes: tokens[0, size) and leaves[0, count). pack reuses one (packing is
 * synchronous): a typed array filled in place and an array overwritten, where new arrays
 * grown by push cost as much as the walk (issue 12: packing was the largest part of a
 * worker's extra time on bills of two segments, which have 2.7 times the leaves).
 */
class Flat {
  tokens = new Int32Array(1024);
  size = 0;
  /** FNV-1a of the tokens so far: a prototype of another hash is another structure, told without comparing. */
  hash = 2166136261;
  leaves: unknown[] = [];
  count = 0;
  token(t: number): void {
    if (this.size === this.tokens.length) {
      const more = new Int32Array(this.size * 2);
      more.set(this.tokens);
      this.tokens = more;
    }
    this.tokens[this.size++] = t;
    this.hash = Math.imul(this.hash ^ t, 16777619) >>> 0;
  }
  leaf(v: unknown): void {
    this.leaves[this.count++] = v;
  }
  /** What flatten wrote for a value before (a Piece), written again: its tokens hashed as if walked. */
  append(p: Piece): void {
    const pt = p.tokens;
    while (this.size + pt.length > this.tokens.length) {
      const more = new Int32Array(this.tokens.length * 2);
      more.set(this.tokens);
      this.tokens = more;
    }
    this.tokens.set(pt, this.size);
    this.size += pt.length;
    let h = this.hash;
    for (let i = 0; i < pt.length; i++) h = Math.imul(h ^ pt[i]!, 16777619) >>> 0;
    this.hash = h;
    for (let i = 0; i < p.leaves.length; i++) this.leaves[this.count++] = p.leaves[i];
  }
  reset(): this {
    this.size = 0;
    this.count = 0;
    this.hash = 2166136261;
    // An unusually large value (a bill of thousands of lines) is not kept alive by it.
    if (this.tokens.length > 65536) this.tokens = new Int32Array(1024);
    if (this.leaves.length > 16384) this.leaves = [];
    return this;
  }
}
const shared = new Flat();

/** A value's tokens and leaves as flatten writes them. */
type Piece = { tokens: Int32Array; leaves: unknown[] };

// A line the rating shares between the bills rated alike is frozen (rating/rateLine.ts:
// a flat fee, a percentage: most lines of a run). Frozen, it cannot change, so what
// flatten writes for it is kept (by the line, so it goes with it) and copied, not walked
// again for every bill (issue 12: a bill of two segments has twice the lines).
const pieces = new WeakMap<object, Piece>();

/** flatten of a bill's lines (an array): each frozen line's piece reused, the others walked. */
function flattenLines(lines: readonly unknown[], f: Flat): boolean {
  f.token(ARRAY);
  f.token(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === null || typeof line !== 'object' || !Object.isFrozen(line)) {
      if (!flatten(line, f)) return false;
      continue;
    }
    const piece = pieces.get(line);
    if (piece !== undefined) {
      f.append(piece);
      continue;
    }
    const size = f.size;
    const count = f.count;
    if (!flatten(line, f)) return false;
    pieces.set(line, { tokens: f.tokens.slice(size, f.size), leaves: f.leaves.slice(count, f.count) });
  }
  return true;
}

/** Does the prototype have the structure flatten wrote in f? */
function sameTokens(p: Prototype, f: Flat): boolean {
  const pt = p.tokens;
  if (p.hash !== f.hash || pt.length !== f.size) return false;
  const t = f.tokens;
  for (let i = 0; i < pt.length; i++) if (pt[i] !== t[i]) return false;
  return true;
}

function headsOf(v: Json): [Json, Json][] {
  if (!Array.isArray(v)) return [];
  return v.map((l) => (l !== null && typeof l === 'object' && !Array.isArray(l) ? [l.componentCode ?? null, l.category ?? null] : [null, null]));
}

function amountsOf(v: Json): Json[] {
  if (!Array.isArray(v)) return [];
  return v.map((l) => (l !== null && typeof l === 'object' && !Array.isArray(l) ? (l.amount ?? null) : null));
}

function prototypeOf(json: string, value: Json, digest = crypto.createHash('sha256').update(json).digest('base64url').slice(0, 16)): Prototype {
  const f = new Flat();
  flatten(value, f);
  return { digest, json, value, leaves: f.leaves.slice(0, f.count) as Json[], heads: headsOf(value), tokens: f.tokens.slice(0, f.size), hash: f.hash };
}

/**
 * The stored form of a value whose leaves are `leaves` against a prototype of the same
 * structure: [digest, the lines' amounts..., then over the leaves: how many equal the
 * prototype's, then one that differs: a string as itself, or the index of an equal one met
 * before (the amounts first, then the leaves) when that is shorter, or a number, boolean
 * or null in a one-element array].
 */
function diffOf(amounts: Json[], leaves: readonly unknown[], count: number, proto: Prototype): Json[] {
  const out: Json[] = [proto.digest, ...amounts];
  const seen = new Map<string, number>();
  for (let i = 0; i < amounts.length; i++) {
    const a = amounts[i];
    if (typeof a === 'string' && !seen.has(a)) seen.set(a, i);
  }
  const base = amounts.length;
  const like = proto.leaves;
  let skip = 0;
  for (let i = 0; i < count; i++) {
    const v = leaves[i] as Json;
    if (v === like[i]) {
      skip++;
      continue;
    }
    out.push(skip);
    skip = 0;
    if (typeof v === 'string') {
      const j = seen.get(v);
      if (j !== undefined && (j < 10 ? 1 : j < 100 ? 2 : j < 1000 ? 3 : 9) < v.length + 2) out.push(j);
      else {
        out.push(v);
        seen.set(v, base + i);
      }
    } else out.push([v]);
  }
  return out;
}

/**
 * Packs the values of one write (a chunk's bills, a correction's rebills) and remembers
 * the prototypes they use, which the write saves in its own transaction (savePrototypes)
 * before its bills: a bill's prototype is never missing, and a write rolled back leaves none.
 */
export class StoredPacker {
  readonly used = new Map<string, Prototype>();

  /** The stored JSON text of a bill's lines (an array of lines) or source (an object). */
  pack(value: unknown): string {
    if (value === null || typeof value !== 'object' || (Array.isArray(value) && value.length === 0)) return JSON.stringify(value);
    const f = shared.reset();
    if (!(Array.isArray(value) ? flattenLines(value, f) : flatten(value, f))) return JSON.stringify(value); // throws, as JSON does for a bigint
    // The last prototype, or one of the same structure, or (its JSON parsed) a new one.
    let proto = last !== undefined && sameTokens(last, f) ? last : byHash.get(f.hash)?.find((p) => sameTokens(p, f));
    if (proto === undefined) {
      const json = JSON.stringify(value);
      proto = prototypeOf(json, JSON.parse(json) as Json);
      remember(proto);
      rememberStructure(proto);
      // The value as its JSON reads, should flatten have read anything otherwise.
      if (!sameTokens(proto, f)) return this.packed(proto, diffOf(amountsOf(proto.value), proto.leaves, proto.leaves.length, proto));
    }
    last = proto;
    return this.packed(proto, diffOf(amountsOf(value as Json), f.leaves, f.count, proto));
  }

  private packed(proto: Prototype, out: Json[]): string {
    this.used.set(proto.digest, proto);
    return JSON.stringify(out);
  }
}

/** Saves the prototypes a packer used, in the caller's transaction, before the rows that name them. */
export async function savePrototypes(db: Queryable, packer: StoredPacker): Promise<void> {
  if (packer.used.size === 0) return;
  // Sorted, so two writes saving the same new prototypes take their index entries in one order.
  const protos = [...packer.used.values()].sort((a, b) => (a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0));
  await db.query(
    `INSERT INTO bill_line_prototype (digest, value, heads)
     SELECT u.digest, u.value, u.heads FROM unnest($1::text[], $2::json[], $3::json[]) AS u(digest, value, heads) ORDER BY u.digest
     ON CONFLICT (digest) DO NOTHING`,
    [protos.map((p) => p.digest), protos.map((p) => p.json), protos.map((p) => JSON.stringify(p.heads))],
  );
}

/** Is this stored value in the packed form? (The old form is an array of line objects, or a source object.) */
function isPacked(stored: unknown): stored is Json[] {
  return Array.isArray(stored) && typeof stored[0] === 'string';
}

/**
 * Loads the prototypes the stored values name that this process has not seen, in one
 * query. Call before decodeStored on rows read from the database.
 */
export async function loadPrototypes(db: Queryable, stored: Iterable<unknown>): Promise<void> {
  const missing = new Set<string>();
  for (const s of stored) if (isPacked(s) && !byDigest.has(s[0] as string)) missing.add(s[0] as string);
  if (missing.size === 0) return;
  const r = await db.query<{ digest: string; value: string }>('SELECT digest, value::text AS value FROM bill_line_prototype WHERE digest = ANY($1::text[])', [[...missing]]);
  for (const row of r.rows) remember(prototypeOf(row.value, JSON.parse(row.value) as Json, row.digest));
}

/**
 * The value a stored bill.lines or bill.source holds (parsed JSON, as pg returns a json
 * column, or its text): the packed form rebuilt from its prototype (loadPrototypes first),
 * the old form as it is.
 */
export function decodeStored<T>(stored: unknown): T {
  const s = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  if (!isPacked(s)) return s as T;
  const proto = byDigest.get(s[0] as string);
  if (proto === undefined) throw new Error(`bill line prototype ${String(s[0])} not loaded (call loadPrototypes first)`);
  const k = proto.heads.length;
  const vals: Json[] = new Array(k + proto.leaves.length);
  for (let i = 0; i < k; i++) vals[i] = s[1 + i] as Json;
  let at = 0; // next leaf
  for (let t = 1 + k; t < s.length; t += 2) {
    const skip = s[t] as number;
    for (let j = 0; j < skip; j++, at++) vals[k + at] = proto.leaves[at] as Json;
    const x = s[t + 1] as Json;
    vals[k + at] = typeof x === 'string' ? x : typeof x === 'number' ? (vals[x] as Json) : (x as Json[])[0]!;
    at++;
  }
  for (; at < proto.leaves.length; at++) vals[k + at] = proto.leaves[at] as Json;
  return build(proto.value, vals, k) as T;
}

/** The value of a prototype's structure with the leaves vals[base + i]. */
function build(p: Json, vals: Json[], base: number): Json {
  let next = base;
  const walk = (x: Json): Json => {
    if (x === null || typeof x !== 'object') return vals[next++] as Json;
    if (Array.isArray(x)) {
      const a: Json[] = new Array(x.length);
      for (let i = 0; i < x.length; i++) a[i] = walk(x[i] as Json);
      return a;
    }
    const o: { [k: string]: Json } = {};
    for (const key in x) o[key] = walk(x[key] as Json);
    return o;
  };
  return walk(p);
}

/** Loads the prototypes and decodes, for a reader's rows: each row's `lines` (and `source` when selected). */
export async function decodeBillRows<R extends { lines?: unknown; source?: unknown }>(db: Queryable, rows: R[]): Promise<R[]> {
  const stored: unknown[] = [];
  for (const r of rows) {
    if (r.lines !== undefined) stored.push(r.lines);
    if (r.source !== undefined && r.source !== null) stored.push(r.source);
  }
  await loadPrototypes(db, stored);
  for (const r of rows) {
    if (r.lines !== undefined) r.lines = decodeStored(r.lines);
    if (r.source !== undefined && r.source !== null) r.source = decodeStored(r.source);
  }
  return rows;
}
