// Review: get-reading-sheet after validate-term estimated the missing readings. The sheet's
// unreadOnly is "the meters not read in the term yet (a second round)" (docs/bill-run.md),
// and an estimate is not a reading of the meter (explain.ts: "estimated at", not "read"):
// the second round for the actual readings lost every estimated meter, and readInTerm showed
// the estimate as if read, where previousReading marks one "(estimated)".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { Harness } from '../support/harness.ts';
import { env, makeTemplate, makeTerm, startRun, step, subscriptions, tariff } from '../terms/fixtures.ts';
import { fetchFile } from '../documents/support.ts';

describe('review: the reading sheet after estimates', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());
  const sheet = async (data: Record<string, unknown>) =>
    parse((await fetchFile(h, '/billing/terms/get-reading-sheet', env(data, 'Retrieve', 'Retrieve Reading Sheet'))).bytes, { columns: true }) as Record<string, string>[];

  let termID = 0;
  let subs: { subscriptionId: string }[] = [];
  before(async () => {
    await makeTemplate(h, tariff('WATER'));
    // 25 m3 a month from August: November's reading can be estimated (125 on 30/11).
    subs = await subscriptions(h, { n: 2, readings: [['2026-08-31', 50], ['2026-09-30', 75], ['2026-10-31', 100]] });
    termID = await makeTerm(h, {});
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    // The first is read; the second is not, and validate-term estimates it.
    const cap = await step(h, 'capture-readings', 'Capture Term Readings', { termID, readings: [{ subscriptionID: Number(subs[0]!.subscriptionId), inputCode: 'METER', readingDate: '30/11/2026', value: '126' }] });
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    const v = await step(h, 'validate-term', 'Validate Term', { termID, estimateMissing: true });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const kinds = await h.db.query(`SELECT kind FROM reading WHERE subscription_id = $1 AND reading_date = '2026-11-30'`, [subs[1]!.subscriptionId]);
    assert.deepEqual(kinds.rows.map((r) => r.kind), ['estimated']);
  });

  test('unreadOnly still lists a meter whose only reading in the term is an estimate', async () => {
    const unread = await sheet({ termID, unreadOnly: true });
    assert.deepEqual(unread.map((r) => r.subscriptionID), [subs[1]!.subscriptionId]);
  });

  test('readInTerm says the reading in the term is an estimate, as previousReading does', async () => {
    const rows = await sheet({ termID });
    assert.deepEqual(rows.map((r) => r.readInTerm), ['126', '125 (estimated)']);
  });
});
