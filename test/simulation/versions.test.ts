// Tariff simulation on a term that spans a template version change (issue 13, the closing
// note's "older bug"): the draft side was rated by the term's stored versions, segment by
// segment, and the draft was never read, so every difference on such a term was zero and a
// solve found no rate. The draft now replaces the tariff over the whole term
// (docs/simulation.md, "A term that spans a version change"); the current side, like
// verify-bill, still rates the stored bills' segments to the cent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { doubledWater } from '../fixtures/tariffs.ts';
import { allResults, amounts, draftWith, simulated, waitForSimulation } from './fixtures.ts';

// The April 2018 term (30 days) of the water tariff, version 1: standing 150; tiers 10 @ 50,
// 20 @ 70, rest @ 90; sewer 10% of water; VAT 16% of all three. Version 2, dated 16/04/2018
// and saved after the term was made, doubles the standing charge and every water rate.
// Two subscriptions, 30 m3 each (readings 100 on 31/03 and 130 on 30/04):
//   a: split by days, 15 m3 in each half; b: a reading of 110 on 16/04, so 10 m3 then 20.
// Their bills, in two segments of 15 days (bounds 10 and 30 become 5 and 15 in each), as
// test/billRun/versions.test.ts works them out:
//   a: v1 75 + 950 + 95 + VAT 179.20; v2 150 + 1900 + 190 + VAT 358.40:
//      charges 3360.00, tax 537.60, total 3897.60
//   b: v1 75 + 600 + 60 + VAT 117.60; v2 150 + 2800 + 280 + VAT 516.80:
//      charges 3965.00, tax 634.40, total 4599.40
//   the term: charges 7325.00, tax 1172.00, total 8497.00
const BILLED = { a: ['3360.00', '537.60', '3897.60'], b: ['3965.00', '634.40', '4599.40'] };

// A draft rated over the whole term, one segment, 30 m3 each (b's reading of 16/04 splits
// nothing: no version changes there):
//   version 1: standing 150, water 10 x 50 + 20 x 70 = 1900, sewer 190, charges 2240.00,
//              VAT 358.40, total 2598.40
//     a: -1120.00, -179.20, -1299.20    b: 2240 - 3965 = -1725.00, 358.40 - 634.40 = -276.00, -2001.00
//   version 2: standing 300, water 10 x 100 + 20 x 140 = 3800, sewer 380, charges 4480.00,
//              VAT 716.80, total 5196.80
//     a: +1120.00, +179.20, +1299.20    b: 4480 - 3965 = 515.00, 716.80 - 634.40 = 82.40, 597.40
//   the term's differences (a + b): version 1 -2845.00, -455.20, -3300.20; version 2 1635.00, 261.60, 1896.60
const WHOLE_TERM = {
  1: { each: ['2240.00', '358.40', '2598.40'], a: ['-1120.00', '-179.20', '-1299.20'], b: ['-1725.00', '-276.00', '-2001.00'], total: ['-2845.00', '-455.20', '-3300.20'] },
  2: { each: ['4480.00', '716.80', '5196.80'], a: ['1120.00', '179.20', '1299.20'], b: ['515.00', '82.40', '597.40'], total: ['1635.00', '261.60', '1896.60'] },
} as const;

describe('tariff simulation on a term that spans a version change', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let a: Sub;
  let b: Sub;
  let termID: number;
  let bills: any[];

  before(async () => {
    ({ h, close } = await startRun({}, [tariff()]));
    [a, b] = (await subscriptions(h, {
      n: 2,
      readingsOf: (i) => (i === 0 ? [['2018-03-31', 100], ['2018-04-30', 130]] : [['2018-03-31', 100], ['2018-04-16', 110], ['2018-04-30', 130]]),
    })) as [Sub, Sub];
    termID = await makeTerm(h, { billingPeriodID: 201804, startDate: '01/04/2018', endDate: '30/04/2018' });
    const u = await h.post('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', effectiveFrom: '16/04/2018', service: doubledWater(tariff()) });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    for (const [name, action] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term'], ['process-term', 'Process Term']] as const) {
      const r = await step(h, name, action, { termID });
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    const got = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
    bills = got.body.data.bills;
  });
  after(() => close());

  const bill = (s: Sub) => bills.find((x) => x.subscriptionID === Number(s.subscriptionId));
  const result = (rows: any[], s: Sub) => rows.find((r) => r.subscriptionID === Number(s.subscriptionId));

  test('the stored bills, verify-bill and the simulation\'s current side agree, segment by segment', async () => {
    assert.deepEqual(amounts(bill(a)), BILLED.a);
    assert.deepEqual(amounts(bill(b)), BILLED.b);
    for (const x of bills) {
      const v = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: x.billID } });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.body.data.matches, true, JSON.stringify(v.body.data));
    }

    const done = await waitForSimulation(h, (await simulated(h, { termID, draftVersion: 2 })).simulationID);
    assert.equal(done.status, 'Done', done.lastError);
    assert.deepEqual(done.summary.current, { charges: '7325.00', tax: '1172.00', total: '8497.00' });
    const rows = await allResults(h, done.simulationID);
    for (const s of [a, b]) {
      const r = result(rows, s);
      const stored = bill(s);
      assert.deepEqual(amounts(r.current), amounts(stored));
      // The same lines, in the same two segments, as the bill the run stored.
      const segmentLines = (lines: any[]) => lines.map((l) => [l.trace.segment.version, l.componentCode, l.quantity, l.amount]);
      assert.deepEqual(segmentLines(r.current.lines), segmentLines(stored.lines));
      assert.deepEqual(segmentLines(r.current.lines).map((l) => l[0]), [1, 1, 1, 1, 2, 2, 2, 2]);
      assert.equal(r.consumption, '30');
    }
  });

  test('the draft replaces the tariff over the whole term: a saved version rates all 30 days alone, in one segment', async () => {
    for (const version of [1, 2] as const) {
      const want = WHOLE_TERM[version];
      const done = await waitForSimulation(h, (await simulated(h, { termID, draftVersion: version })).simulationID);
      assert.equal(done.status, 'Done', done.lastError);
      assert.equal(done.summary.rated, 2);
      assert.deepEqual(amounts(done.summary.current), ['7325.00', '1172.00', '8497.00']);
      assert.deepEqual(amounts(done.summary.difference), want.total, `version ${version}: the term's difference`);
      const rows = await allResults(h, done.simulationID);
      for (const [name, s] of [['a', a], ['b', b]] as const) {
        const r = result(rows, s);
        assert.deepEqual(amounts(r.current), BILLED[name], `version ${version}, ${name}: current`);
        assert.deepEqual(amounts(r.draft), want.each, `version ${version}, ${name}: draft`);
        assert.deepEqual(amounts(r.difference), want[name], `version ${version}, ${name}: difference`);
        // The page rates the draft again (resultLines.ts): its lines are one term's, no segment.
        assert.deepEqual(r.draft.lines.map((l: any) => [l.componentCode, l.quantity, l.trace.segment]), [
          ['STANDING', '1', undefined],
          ['WATER', '30', undefined],
          ['SEWER', version === 1 ? '1900.00' : '3800.00', undefined],
          ['VAT', version === 1 ? '2240.00' : '4480.00', undefined],
        ]);
        assert.equal(r.current.lines.length, 8);
      }
    }
  });

  test('a draft sent, and a rate solved on it, are rated over the whole term', async () => {
    // Version 1 with the second tier at 77, over the whole term: water 500 + 20 x 77 = 2040,
    // sewer 204, charges 2394.00, VAT 383.04, total 2777.04 each;
    //   a: 2394 - 3360 = -966.00, 383.04 - 537.60 = -154.56, -1120.56
    //   b: 2394 - 3965 = -1571.00, 383.04 - 634.40 = -251.36, -1822.36
    const sent = await waitForSimulation(h, (await simulated(h, { termID, draft: draftWith('77') })).simulationID);
    assert.equal(sent.status, 'Done', sent.lastError);
    const rows = await allResults(h, sent.simulationID);
    assert.deepEqual(amounts(result(rows, a).draft), ['2394.00', '383.04', '2777.04']);
    assert.deepEqual(amounts(result(rows, a).difference), ['-966.00', '-154.56', '-1120.56']);
    assert.deepEqual(amounts(result(rows, b).difference), ['-1571.00', '-251.36', '-1822.36']);
    assert.deepEqual(result(rows, a).draft.lines[1].trace.tiers.map((t: any) => t.rate), ['50', '77']);

    // Revenue-neutral: the term billed 8497.00. With the second tier at r, each bill is
    // charges 150 + (500 + 20r) + (50 + 2r) = 700 + 22r and VAT 16% of that, rounded to the cent:
    //   r = 134.65: charges 3662.30, VAT 585.968 -> 585.97, bill 4248.27, revenue 8496.54
    //   r = 134.66: charges 3662.52, VAT 586.0032 -> 586.00, bill 4248.52, revenue 8497.04
    // 8497.00 lies between them and 8497.04 is the nearer: 134.66.
    const solved = await waitForSimulation(h, (await simulated(h, { termID, draft: draftWith('77'), solve: { componentCode: 'WATER', tierIndex: 1, target: 'revenueNeutral' } })).simulationID);
    assert.equal(solved.status, 'Done', solved.lastError);
    assert.equal(solved.solve.error, null);
    assert.equal(solved.solve.targetRevenue, '8497.00');
    assert.equal(solved.solve.rate, '134.66');
    assert.equal(solved.solve.revenue, '8497.04');
    assert.deepEqual(amounts(solved.summary.draft), ['7325.04', '1172.00', '8497.04']);
    assert.equal(solved.draft.components[1].tiers[1].rate, '134.66');
  });
});
