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
// Structure (keys in their order, arrays' lengths, each leaf's JSON type) and each line's
// componentCode and category are the prototype's exactly: the prototype is chosen by a
// signature of them, so anything the rating adds to a line or a trace (a new field, a new
// line kind) is kept, in a prototype of its own. Decoding rebuilds the value with the
// prototype's key order, so the JSON a client reads is byte for byte what was rated.
//
// The old form (a plain JSON array of lines, a plain source object) is still read as it is:
// bills written before migration 075, and the rows tests and benchmarks insert by hand.
import crypto from 'node:crypto';
import type { Queryable } from '../db/pool.ts';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** A prototype: its digest, its value, its leaves in order, its shape, and its lines' heads (componentCode, category). */
type Prototype = { digest: string; json: string; value: Json; leaves: Json[]; shape: Shape; heads: [Json, Json][] };

/** A prototype's structure: a leaf (its index among the leaves), an array's items, an object's keys and items. */
type Shape = { leaf: number } | { items: Shape[]; keys?: string[] };

// Content-addressed, so valid in any database: the same process serves tests on many
// databases, and a digest names the same prototype in each. Bounded: cleared when full.
const byDigest = new Map<string, Prototype>();
const bySignature = new Map<string, Prototype>();
const byHash = new Map<number, Prototype>();
const MAX_CACHED = 10_000;
/** The prototype used last, tried first: most bills of a run share it with the bill before. */
let last: Prototype | undefined;

function remember(p: Prototype, signature?: string): void {
  if (byDigest.size >= MAX_CACHED) {
    byDigest.clear();
    bySignature.clear();
    byHash.clear();
    last = undefined;
  }
  byDigest.set(p.digest, p);
  if (signature !== undefined) bySignature.set(signature, p);
}

/** The shape and leaves of a parsed JSON value, leaves in depth-first order. */
function shapeOf(v: Json, leaves: Json[]): Shape {
  if (v === null || typeof v !== 'object') {
    leaves.push(v);
    return { leaf: leaves.length - 1 };
  }
  if (Array.isArray(v)) return { items: v.map((x) => shapeOf(x, leaves)) };
  const keys = Object.keys(v);
  return { keys, items: keys.map((k) => shapeOf(v[k] as Json, leaves)) };
}

/** The signature of a parsed JSON value: its structure (keys in order, arrays' lengths). */
function signatureOf(v: Json): string {
  if (v === null || typeof v !== 'object') return '.';
  if (Array.isArray(v)) return `[${v.map(signatureOf).join(',')}]`;
  let s = '{';
  for (const k in v) s += `${JSON.stringify(k)}:${signatureOf(v[k] as Json)},`;
  return s + '}';
}

/**
 * A 32-bit hash of a value's structure as JSON.stringify reads it (toJSON called, undefined
 * fields absent): keys in order, arrays' lengths, and each line's componentCode and
 * category. Numbers only, no text built: it finds the prototype of a value that the last
 * one does not fit. Two structures may share a hash; diffAgainst is the exact check.
 */
function structureHash(v: unknown, h: number): number {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
  if (v === null || typeof v !== 'object') return mix(h, 1);
  if (Array.isArray(v)) {
    h = mix(h, 2 + v.length * 8);
    for (let i = 0; i < v.length; i++) h = structureHash(v[i], h);
    return mix(h, 3);
  }
  h = mix(h, 4);
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    h = mix(h, idOf(k));
    h = (k === 'componentCode' || k === 'category') && typeof x === 'string' ? mix(h, idOf(x)) : structureHash(x, h);
  }
  return mix(h, 5);
}
const mix = (h: number, x: number) => Math.imul(h ^ x, 16777619) >>> 0;
const ids = new Map<string, number>();
function idOf(k: string): number {
  let id = ids.get(k);
  if (id === undefined) {
    if (ids.size > 100_000) ids.clear();
    ids.set(k, (id = ids.size + 16));
  }
  return id;
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
  const leaves: Json[] = [];
  const shape = shapeOf(value, leaves);
  return { digest, json, value, leaves, shape, heads: headsOf(value) };
}

/** A diff in progress: the tokens, the next leaf's index, and the values met so far by text. */
type Diff = { out: Json[]; skip: number; proto: Json[]; seen: Map<string, number>; base: number };

/**
 * Walks a value along a prototype's shape, adding the diff of its leaves; false when the
 * value does not have that shape (the caller tries another prototype). Values are taken as
 * JSON.stringify takes them: an undefined field is absent, toJSON is called.
 */
function diff(v: unknown, shape: Shape, d: Diff): boolean {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
  if ('leaf' in shape) {
    if (v !== null && typeof v === 'object') return false;
    if (v === d.proto[shape.leaf]) {
      d.skip++;
      return true;
    }
    d.out.push(d.skip);
    d.skip = 0;
    if (typeof v === 'string') {
      const j = d.seen.get(v);
      if (j !== undefined && (j < 10 ? 1 : j < 100 ? 2 : j < 1000 ? 3 : 9) < v.length + 2) d.out.push(j);
      else {
        d.out.push(v);
        d.seen.set(v, d.base + shape.leaf);
      }
    } else if (typeof v === 'number' || typeof v === 'boolean' || v === null) {
      d.out.push([v]);
    } else {
      return false; // undefined, a function, a bigint: not JSON
    }
    return true;
  }
  if (v === null || typeof v !== 'object') return false;
  const items = shape.items;
  if (shape.keys === undefined) {
    if (!Array.isArray(v) || v.length !== items.length) return false;
    for (let i = 0; i < items.length; i++) if (!diff(v[i], items[i] as Shape, d)) return false;
    return true;
  }
  if (Array.isArray(v)) return false;
  const keys = shape.keys;
  let n = 0;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x === undefined) continue;
    if (k !== keys[n] || !diff(x, items[n] as Shape, d)) return false;
    n++;
  }
  return n === keys.length;
}

/** The diff of a value against a prototype, or undefined when it does not fit it. */
function diffAgainst(v: unknown, proto: Prototype): Json[] | undefined {
  const amounts = amountsOf(v as Json);
  if (amounts.length !== proto.heads.length) return undefined;
  const lines = v as Record<string, unknown>[];
  for (let i = 0; i < amounts.length; i++) {
    const h = proto.heads[i] as [Json, Json];
    const l = lines[i] as Record<string, unknown>;
    if ((l.componentCode ?? null) !== h[0] || (l.category ?? null) !== h[1]) return undefined;
  }
  const d: Diff = { out: [proto.digest, ...amounts], skip: 0, proto: proto.leaves, seen: new Map(), base: amounts.length };
  for (let i = 0; i < amounts.length; i++) {
    const a = amounts[i];
    if (typeof a === 'string' && !d.seen.has(a)) d.seen.set(a, i);
  }
  return diff(v, proto.shape, d) ? d.out : undefined;
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
    if (last !== undefined) {
      const out = diffAgainst(value, last);
      if (out !== undefined) return this.packed(last, out);
    }
    // Not the last one's: the prototype last met with the same structure hash, or
    // (stringified, parsed) the prototype of its signature, or this value as a new one.
    // Trying eight recent prototypes in turn, then a JSON.parse of the value's JSON for its
    // signature, was a third of a worker's time on bills of two segments, whose lines come
    // in several structures (issue 12: consumption split by days or by readings).
    const hash = structureHash(value, 2166136261);
    let proto = byHash.get(hash);
    let out = proto === undefined ? undefined : diffAgainst(value, proto);
    if (proto === undefined || out === undefined) {
      const json = JSON.stringify(value);
      const normal = JSON.parse(json) as Json;
      const heads = headsOf(normal);
      const signature = signatureOf(normal) + (heads.length > 0 ? JSON.stringify(heads) : '');
      proto = bySignature.get(signature);
      if (proto === undefined) {
        proto = prototypeOf(json, normal);
        remember(proto, signature);
      }
      byHash.set(hash, proto);
      out = diffAgainst(normal, proto) as Json[];
    }
    last = proto;
    return this.packed(proto, out);
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
