// The stored form of a bill's lines and source (src/billLines/storedLines.ts): whatever is
// packed decodes to the very JSON that was rated, byte for byte, and a bill stored in the
// old form (a plain JSON array, before migration 075) reads exactly as a packed one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeStored, loadPrototypes, StoredPacker } from '../../src/billLines/storedLines.ts';
import type { Harness } from '../support/harness.ts';
import { startRun, subscriptions, tariff, addReadings } from '../terms/fixtures.ts';
import { processedTerm } from '../documents/support.ts';

const line = (code: string, amount: string, trace: Record<string, unknown>) => ({ componentCode: code, name: `${code} name`, category: 'charge', quantity: '1', amount, trace });
const roundTrip = (packer: StoredPacker, v: unknown) => {
  const stored = packer.pack(v);
  const back = decodeStored(JSON.parse(stored));
  assert.equal(JSON.stringify(back), JSON.stringify(v), `packed as ${stored}`);
  return stored;
};

describe('the packed form of bill lines', () => {
  test('round trips, byte for byte: new fields, other structures, numbers, booleans, nulls, escapes, repeated values', () => {
    const p = new StoredPacker();
    const base = [
      line('STANDING', '150.00', { model: 'flat', amount: '150', unrounded: '150', rounding: 'halfUp' }),
      line('WATER', '350.00', { model: 'graduated', quantity: '7', tiers: [{ tier: 1, from: '0', upTo: null, quantity: '7', rate: '50', amount: '350' }], reading: { estimated: false, consumption: '7' }, unrounded: '350', rounding: 'halfUp' }),
      line('VAT', '80.00', { model: 'percentage', of: [{ code: 'STANDING', amount: '150.00' }, { code: 'WATER', amount: '350.00' }], base: '500.00', unrounded: '80', rounding: 'halfUp' }),
    ];
    const first = roundTrip(p, base);
    // Another bill of the same shape: only what differs is stored, repeated amounts by reference.
    const other = structuredClone(base);
    other[1]!.amount = '420.00';
    (other[1]!.trace as any).tiers[0].quantity = '8.4';
    (other[1]!.trace as any).tiers[0].tier = 2;
    (other[1]!.trace as any).reading.estimated = true;
    (other[2]!.trace as any).of[1].amount = '420.00';
    const second = roundTrip(p, other);
    assert.ok(second.length < JSON.stringify(other).length / 5, `${second} against ${JSON.stringify(other)}`);
    assert.equal(JSON.parse(second)[0], JSON.parse(first)[0], 'the same prototype');
    // A field the rating adds later, a line of another kind, a leaf of another type: kept.
    const added = structuredClone(base) as any[];
    added[0].trace.newField = { nested: ['a', 1, true, null] };
    added.push({ ...line('PREPAID', '-5.00', { model: 'prepaid', used: 'x"y\\z\n\u00e9' }), kind: 'prepaid' });
    added[1].trace.tiers[0].upTo = '10';
    const third = roundTrip(p, added);
    assert.notEqual(JSON.parse(third)[0], JSON.parse(first)[0], 'another prototype');
    // Same structure, another component code: another prototype (SQL reads codes from it).
    const renamed = structuredClone(base);
    renamed[0]!.componentCode = 'FIXED';
    assert.notEqual(JSON.parse(roundTrip(p, renamed))[0], JSON.parse(first)[0]);
    // An undefined field is absent, as in JSON.stringify.
    roundTrip(p, [{ ...base[0], unit: undefined }]);
    // A source object, and the values that stay as they are.
    roundTrip(p, { v: 1, startDate: '2020-01-01', endDate: null, unmetered: { '1': 2, rooms: '3' }, readings: { METER: { previous: '12', current: null } } });
    assert.equal(p.pack([]), '[]');
    assert.deepEqual(decodeStored([]), []);
    // A value past the packer's buffers (thousands of tokens and leaves), twice, then a small one again.
    const long = Array.from({ length: 3000 }, (_, i) => line(`C${i % 7}`, `${i}.00`, { model: 'flat', amount: String(i), unrounded: String(i), rounding: 'halfUp' }));
    roundTrip(p, long);
    roundTrip(p, long.map((l, i) => ({ ...l, amount: `${i + 1}.00` })));
    roundTrip(p, base);
    // The old form reads as it is.
    assert.deepEqual(decodeStored(base), base);
    assert.deepEqual(decodeStored(JSON.stringify(base)), base);
  });
});

describe('a frozen line, shared by the bills rated alike (rating/rateLine.ts), packed from what was written for it before', () => {
  const frozen = <T>(v: T): T => {
    if (v !== null && typeof v === 'object') for (const x of Object.values(v)) frozen(x);
    return Object.freeze(v);
  };
  test('the same stored form as a copy of it never frozen, in any place and beside lines of other structures, every time', () => {
    const standing = frozen(line('STANDING', '75.00', { model: 'flat', amount: '150', proration: { activeDays: 15, termDays: 30 }, rounding: 'halfUp' }));
    const sewer = frozen(line('SEWER', '39.00', { model: 'percentage', of: [{ code: 'WATER', amount: '390.00' }], rounding: 'halfUp' }));
    const water = (q: string) => line('WATER', `${q}.00`, { model: 'perUnit', quantity: q, reading: { previous: { value: '1' }, current: { value: String(1 + Number(q)) } } });
    const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
    const bills = [
      [standing, water('7'), sewer],
      [standing, water('8'), sewer],
      [water('9'), standing],
      [sewer, standing, sewer, water('7')],
      [standing, water('7'), sewer],
    ];
    const shared = new StoredPacker();
    const plain = new StoredPacker();
    for (const b of bills) assert.equal(roundTrip(shared, b), roundTrip(plain, copy(b)));
  });
});

describe('bills stored packed, and in the old form', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER')]));
  });
  after(() => close());

  test('a processed term: packed lines, small rows, bill_line_heads from both forms, get-bills the same from both forms', async () => {
    const subs = await subscriptions(h, { n: 6, readings: [['2026-10-31', 100]] });
    await addReadings(h, subs.map((s, i) => [s.subscriptionId, '2026-11-30', 100 + 9 * i]));
    const termID = await processedTerm(h, subs);
    const get = async () => {
      const r = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } }, h.tokens.viewer);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return JSON.stringify(r.body.data);
    };
    const packedAnswer = await get();
    const rows = (await h.db.query<{ bill_id: string; lines: unknown; source: unknown; lines_text: string; size: number }>(
      `SELECT bill_id, lines, source, lines::text AS lines_text, pg_column_size(lines) + pg_column_size(source) AS size FROM bill WHERE term_id = $1 ORDER BY bill_id`,
      [termID],
    )).rows;
    assert.equal(rows.length, 6);
    for (const r of rows) {
      assert.equal(typeof (r.lines as unknown[])[0], 'string', `packed: ${r.lines_text}`);
      assert.ok(r.size < 400, `lines and source in ${r.size} bytes`);
    }
    const heads = async () =>
      (await h.db.query(`SELECT b.bill_id, l.line_no, l.component_code, l.category, l.amount::text FROM bill b, bill_line_heads(b.lines) l WHERE b.term_id = $1 ORDER BY 1, 2`, [termID])).rows;
    const packedHeads = await heads();
    await loadPrototypes(h.db, rows.flatMap((r) => [r.lines, r.source]));
    const expected = rows.flatMap((r) =>
      decodeStored<{ componentCode: string; category: string; amount: string }[]>(r.lines).map((l, i) => ({ bill_id: r.bill_id, line_no: i + 1, component_code: l.componentCode, category: l.category, amount: l.amount })),
    );
    assert.deepEqual(packedHeads, expected);

    // The same bills written the way they were before migration 075.
    for (const r of rows) {
      await h.db.query('UPDATE bill SET lines = $2::json, source = $3::json WHERE bill_id = $1', [r.bill_id, JSON.stringify(decodeStored(r.lines)), JSON.stringify(decodeStored(r.source))]);
    }
    const old = (await h.db.query<{ t: string }>(`SELECT lines::text AS t FROM bill WHERE term_id = $1 LIMIT 1`, [termID])).rows[0]!.t;
    assert.ok(old.startsWith('[{"componentCode"'), old);
    assert.deepEqual(await heads(), packedHeads);
    assert.equal(await get(), packedAnswer);
  });
});
