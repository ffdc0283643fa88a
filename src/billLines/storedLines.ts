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

/** A prototype: its digest, its value, its leaves in order, and its lines' heads (componentCode, category). */
type Prototype = { digest: string; json: string; value: Json; leaves: Json[]; heads: [Json, Json][] };

// Content-addressed, so valid in any database: the same process serves tests on many
// databases, and a digest names the same prototype in each. Bounded: cleared when full.
const byDigest = new Map<string, Prototype>();
const bySignature = new Map<string, Prototype>();
const MAX_CACHED = 10_000;

function remember(p: Prototype, signature?: string): void {
  if (byDigest.size >= MAX_CACHED) {
    byDigest.clear();
    bySignature.clear();
  }
  byDigest.set(p.digest, p);
  if (signature !== undefined) bySignature.set(signature, p);
}

/** The leaves of a value in depth-first order, and its signature (structure and leaf types). */
function walk(v: Json, leaves: Json[], sig: string[]): void {
  if (v === null) {
    leaves.push(null);
    sig.push('z');
  } else if (typeof v === 'string') {
    leaves.push(v);
    sig.push('s');
  } else if (typeof v === 'number') {
    leaves.push(v);
    sig.push('n');
  } else if (typeof v === 'boolean') {
    leaves.push(v);
    sig.push('b');
  } else if (Array.isArray(v)) {
    sig.push(`[${v.length}`);
    for (let i = 0; i < v.length; i++) walk(v[i] as Json, leaves, sig);
    sig.push(']');
  } else {
    sig.push('{');
    for (const k in v) {
      const x = v[k];
      if (x === undefined) continue; // as JSON.stringify: an undefined field is absent
      sig.push(JSON.stringify(k));
      walk(x, leaves, sig);
    }
    sig.push('}');
  }
}

function headsOf(v: Json): [Json, Json][] {
  if (!Array.isArray(v)) return [];
  return v.map((l) => (l !== null && typeof l === 'object' && !Array.isArray(l) ? [l.componentCode ?? null, l.category ?? null] : [null, null]));
}

function amountsOf(v: Json): Json[] {
  if (!Array.isArray(v)) return [];
  return v.map((l) => (l !== null && typeof l === 'object' && !Array.isArray(l) ? (l.amount ?? null) : null));
}

function makePrototype(value: Json): Prototype {
  const json = JSON.stringify(value);
  const leaves: Json[] = [];
  walk(value, leaves, []);
  const digest = crypto.createHash('sha256').update(json).digest('base64url').slice(0, 16);
  return { digest, json, value: JSON.parse(json) as Json, leaves, heads: headsOf(value) };
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
    const v = value as Json;
    if (v === null || typeof v !== 'object' || (Array.isArray(v) && v.length === 0)) return JSON.stringify(v);
    const leaves: Json[] = [];
    const sig: string[] = [];
    walk(v, leaves, sig);
    // The heads SQL reads by name are part of the signature: a prototype's heads are its bills'.
    const heads = headsOf(v);
    const signature = sig.join('') + (heads.length > 0 ? JSON.stringify(heads) : '');
    let proto = bySignature.get(signature);
    if (proto === undefined) {
      proto = makePrototype(v);
      remember(proto, signature);
    }
    this.used.set(proto.digest, proto);
    const amounts = amountsOf(v);
    const out: Json[] = [proto.digest, ...amounts];
    // Values decoded so far (head amounts, then leaves) by their text, for references.
    const seen = new Map<string, number>();
    for (let i = 0; i < amounts.length; i++) {
      const a = amounts[i];
      if (typeof a === 'string' && !seen.has(a)) seen.set(a, i);
    }
    let skip = 0;
    const p = proto.leaves;
    for (let i = 0; i < leaves.length; i++) {
      const x = leaves[i] as Json;
      if (x === p[i]) {
        skip++;
      } else {
        out.push(skip);
        skip = 0;
        if (typeof x === 'string') {
          const j = seen.get(x);
          // A reference only when it is shorter than the string itself.
          out.push(j !== undefined && String(j).length < x.length + 2 ? j : x);
        } else {
          out.push([x]);
        }
      }
      if (typeof x === 'string' && !seen.has(x)) seen.set(x, amounts.length + i);
    }
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
  for (const row of r.rows) {
    const value = JSON.parse(row.value) as Json;
    const leaves: Json[] = [];
    walk(value, leaves, []);
    remember({ digest: row.digest, json: row.value, value, leaves, heads: headsOf(value) });
  }
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
  let next = k;
  const build = (p: Json): Json => {
    if (p === null || typeof p !== 'object') return vals[next++] as Json;
    if (Array.isArray(p)) {
      const a: Json[] = new Array(p.length);
      for (let i = 0; i < p.length; i++) a[i] = build(p[i] as Json);
      return a;
    }
    const o: { [k: string]: Json } = {};
    for (const key in p) o[key] = build(p[key] as Json);
    return o;
  };
  return build(proto.value) as T;
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
