// Review 2: the bill history's unit (bill.history[].unit, "Used 450 kWh"). The history is the
// account's last six bills, of any of its subscriptions and templates (billContext.ts, the
// history's SQL: p.account_id = b.account_id), but each one's unit is looked up in the meters of
// the bill being printed (toSource: `meters`, from this bill's template version). A customer with
// water (METER in m3) and electricity (METER in kWh) finds the electricity bill's 450 kWh printed
// as "450 m3" in the history of the water bill.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, processTerm, startRun, subscriptions, tariff } from '../terms/fixtures.ts';
import { loadDocumentData } from '../../src/documents/billContext.ts';

describe("review 2: the history's unit of a bill of another template", () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [
      tariff('WATER'),
      tariff('ELEC', { name: 'Electricity', batches: ['ZONE-E'], meteredInputs: [{ code: 'METER', label: 'Electricity meter', unit: 'kWh', decimals: 0 }] }),
    ]));
  });
  after(() => close());

  test("the water bill's history says the electricity bill's 450 is kWh", async () => {
    const [water] = await subscriptions(h, { n: 1, serviceCode: 'WATER', batchCode: 'ZONE-A', readings: [['2026-10-31', 100], ['2026-11-30', 125]] });
    // The same customer's electricity connection.
    const e = await h.db.query<{ subscription_id: string }>(
      `INSERT INTO subscription (app_code, account_id, service_id, batch_id, start_date, created_by, modified_by)
       SELECT $1, $2, s.service_id, b.batch_id, '2000-01-01', 'fixture', 'fixture' FROM service s JOIN batch b ON b.app_code = s.app_code AND b.batch_code = 'ZONE-E'
        WHERE s.app_code = $1 AND s.service_code = 'ELEC' RETURNING subscription_id`,
      [h.appCode, water!.accountId],
    );
    await addReadings(h, [[e.rows[0]!.subscription_id, '2026-10-31', 1000], [e.rows[0]!.subscription_id, '2026-11-30', 1450]]);
    const elecTerm = await processTerm(h, { serviceCode: 'ELEC', batchCode: 'ZONE-E' });
    const waterTerm = await processTerm(h, { serviceCode: 'WATER', batchCode: 'ZONE-A' });
    const ids = async (termId: number) => (await h.db.query<{ bill_id: string }>('SELECT bill_id FROM bill WHERE term_id = $1', [termId])).rows.map((r) => r.bill_id);
    const [elecBill] = await ids(elecTerm);
    const [waterBill] = await ids(waterTerm);
    const [doc] = await loadDocumentData(h.db, h.appCode, [waterBill!]);
    const history = doc!.data.bill.history.find((x) => x.consumption === '450');
    assert.ok(history, JSON.stringify(doc!.data.bill.history));
    assert.ok(elecBill);
    // billrun: "m3", the water bill's own meter's unit.
    assert.equal(history!.unit, 'kWh');
  });
});
