// Review: get-reading-sheet's previousReading is documented as "the reading the bill
// subtracts from, by the run's own rule". The run chains a meter to where the
// subscription's earlier bill ended (meterChain.ts, chainToEarlierBills); the sheet reads
// READINGS_SQL alone and shows another reading when the one October's bill ended at was
// corrected after October was billed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { Harness } from '../support/harness.ts';
import { env, makeTemplate, startRun, step, subscriptions, tariff, makeTerm, waitForStatus } from '../terms/fixtures.ts';
import { fetchFile } from '../documents/support.ts';
import { correctionCalls, envelope, month2026 } from '../corrections/support.ts';

describe('review: the reading sheet and the chain to the earlier bill', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, []));
  });
  after(() => close());
  const calls = correctionCalls(() => h);
  const sheet = (data: Record<string, unknown>) => fetchFile(h, '/billing/terms/get-reading-sheet', env(data, 'Retrieve', 'Retrieve Reading Sheet'));

  test("previousReading is the reading November's bill subtracts from after October's last reading was corrected", async () => {
    await makeTemplate(h, tariff('WATER'));
    const [s] = await subscriptions(h, { n: 1, readings: [['2026-09-30', 100], ['2026-10-31', 120], ['2026-11-30', 150]] });
    // October billed and posted, ending at 120 (31/10).
    await calls.postedTerm(month2026('ZONE-A', 10));
    // The reading October's bill ended at is corrected afterwards (no cancel-bill): the next bill still starts at 120.
    await calls.correctReading(s!, '2026-10-31', '130');

    const nov = await makeTerm(h, month2026('ZONE-A', 11));
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID: nov })).status, 200);
    const rows: Record<string, string>[] = parse((await sheet({ termID: nov })).bytes, { columns: true });

    assert.equal((await step(h, 'process-term', 'Process Term', { termID: nov })).status, 200);
    assert.equal((await waitForStatus(h, nov, ['Processed', 'Failed'])).status, 'Processed');
    const bill = (await calls.ok('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', { termID: nov }), h.tokens.viewer)).bills[0];
    const reading = bill.lines.find((l: any) => l.componentCode === 'WATER').trace.reading;
    // The bill: 150 - 120 = 30 m3, from the reading October's bill ended at.
    assert.deepEqual([reading.previous.date, reading.previous.value, reading.consumption], ['2026-10-31', '120', '30']);
    // The sheet must name the same reading: it said 130, the corrected value the bill does not subtract.
    assert.deepEqual([rows[0]!.previousReadingDate, rows[0]!.previousReading], ['31/10/2026', '120']);
  });
});
