// A term's reading sheet (get-reading-sheet, docs/bill-run.md): a row per roster meter with
// whose it is and what it read last, filled in and sent back through capture-readings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { Harness } from '../support/harness.ts';
import { addReadings, env, makeTemplate, makeTerm, startRun, step, subscriptions, tariff } from './fixtures.ts';
import { fetchFile } from '../documents/support.ts';

describe('the reading sheet of a term', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());

  const sheet = (data: Record<string, unknown>, token?: string) => fetchFile(h, '/billing/terms/get-reading-sheet', env(data, 'Retrieve', 'Retrieve Reading Sheet'), token);

  test('lists each roster meter with its account, connection and last reading; filled in, capture-readings takes it', async () => {
    await makeTemplate(h, tariff('WATER', { connectionInputs: [{ code: 'METER_NO', label: 'Meter number', type: 'string' }] }));
    const subs = await subscriptions(h, { n: 3, readings: [['2026-10-31', 100]] });
    await h.db.query(`UPDATE account SET name = 'Café =Amélie', address = '12 Rue Haute, Lyon' WHERE account_id = $1`, [subs[0]!.accountId]);
    await h.db.query(`UPDATE subscription SET connection_inputs = '{"METER_NO": "M-77"}' WHERE subscription_id = $1`, [subs[0]!.subscriptionId]);
    // The second was estimated last time; the third is read in the term already.
    await h.db.query(`UPDATE reading SET kind = 'estimated' WHERE subscription_id = $1`, [subs[1]!.subscriptionId]);
    await addReadings(h, [[subs[2]!.subscriptionId, '2026-11-20', 140]]);
    const termID = await makeTerm(h, {});

    const draft = await sheet({ termID });
    assert.equal(draft.status, 409, draft.bytes.toString());
    assert.equal(JSON.parse(draft.bytes.toString()).error.code, 'INVALID_STATE');
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);

    const csv = await sheet({ termID });
    assert.equal(csv.status, 200, csv.bytes.toString());
    assert.match(csv.type, /^text\/csv/);
    const rows: Record<string, string>[] = parse(csv.bytes, { columns: true });
    assert.deepEqual(rows.map((r) => [r.subscriptionID, r.inputCode, r.previousReadingDate, r.previousReading, r.readInTermDate, r.readInTerm, r.readingDate, r.value]), [
      [subs[0]!.subscriptionId, 'METER', '31/10/2026', '100', '', '', '30/11/2026', ''],
      [subs[1]!.subscriptionId, 'METER', '31/10/2026', '100 (estimated)', '', '', '30/11/2026', ''],
      [subs[2]!.subscriptionId, 'METER', '31/10/2026', '100', '20/11/2026', '140', '30/11/2026', ''],
    ]);
    // Whose meter it is; a name opening with = stays text in a spreadsheet.
    assert.deepEqual([rows[0]!.accountName, rows[0]!.address, rows[0]!.connection, rows[0]!.meter, rows[0]!.unit], ["Café =Amélie", '12 Rue Haute, Lyon', 'METER_NO: M-77', 'Water meter', 'm3']);

    const unread = await sheet({ termID, unreadOnly: true, format: 'jsonl' });
    assert.match(unread.type, /^application\/x-ndjson/);
    const lines = unread.bytes.toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.subscriptionID), [Number(subs[0]!.subscriptionId), Number(subs[1]!.subscriptionId)]);

    // Filled in and sent back as the console does: the columns capture-readings reads.
    const readings = rows.slice(0, 2).map((r, i) => ({ subscriptionID: Number(r.subscriptionID), inputCode: r.inputCode, readingDate: r.readingDate, value: String(125 + i) }));
    const captured = await step(h, 'capture-readings', 'Capture Term Readings', { termID, readings });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    const after = parse((await sheet({ termID })).bytes, { columns: true }) as Record<string, string>[];
    assert.deepEqual(after.map((r) => r.readInTerm), ['125', '126', '140']);
    assert.equal((await sheet({ termID, unreadOnly: true })).bytes.toString().trim().split('\r\n').length, 1, 'the header alone: every meter is read');
  });

  test("another app's term is not found; a viewer may read the sheet", async () => {
    const termID = Number((await h.db.query(`SELECT term_id FROM term WHERE app_code = $1 LIMIT 1`, [h.appCode])).rows[0].term_id);
    assert.equal((await sheet({ termID }, h.tokens.otherAdmin)).status, 404);
    assert.equal((await sheet({ termID }, h.tokens.viewer)).status, 200);
    const bad = await sheet({ termID, format: 'pdf' });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.bytes.toString()).error.details[0].path, 'data.format');
  });
});
