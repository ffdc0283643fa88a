// Tariff simulation (issue 13 parts 1-3) through HTTP: a draft equal to the tariff changes
// nothing; a 10% higher tier rate gives the differences worked out by hand; a solved rate
// reproduces its target; jobs, records, pages, CSV, deletion; tenancy and bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, startRun, step, subscriptions, tariff, waitForStatus, type Sub } from '../terms/fixtures.ts';
import { allResults, amounts, draftWith, env, list, results, simulate, simulated, waitForSimulation } from './fixtures.ts';

// Consumption 5, 20 and 45 m3 in November 2026 on the water tariff (standing 150; tiers
// 10 @ 50, 20 @ 70, rest @ 90; sewer 10% of water; VAT 16% of all three), worked by hand:
//   5 m3:  water 250,  sewer 25,  charges 425,  VAT 68,     total 493
//   20 m3: water 1200, sewer 120, charges 1470, VAT 235.20, total 1705.20
//   45 m3: water 3250, sewer 325, charges 3725, VAT 596,    total 4321
// With the second tier 10% higher (77):
//   5 m3:  unchanged
//   20 m3: water 1270, sewer 127, charges 1547, VAT 247.52, total 1794.52: +77, +12.32, +89.32
//   45 m3: water 3390, sewer 339, charges 3879, VAT 620.64, total 4499.64: +154, +24.64, +178.64
const TABLE = [
  { used: 5, current: ['425.00', '68.00', '493.00'], draft: ['425.00', '68.00', '493.00'], difference: ['0.00', '0.00', '0.00'] },
  { used: 20, current: ['1470.00', '235.20', '1705.20'], draft: ['1547.00', '247.52', '1794.52'], difference: ['77.00', '12.32', '89.32'] },
  { used: 45, current: ['3725.00', '596.00', '4321.00'], draft: ['3879.00', '620.64', '4499.64'], difference: ['154.00', '24.64', '178.64'] },
];

describe('tariff simulation', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let subs: Sub[];
  let missing: Sub;
  let termID: number;

  before(async () => {
    ({ h, close } = await startRun({ billRunChunkSize: 3 }, [tariff()]));
    subs = await subscriptions(h, { n: 3, readingsOf: (i) => [['2026-10-31', 100], ['2026-11-30', 100 + TABLE[i]!.used]] });
    missing = (await subscriptions(h, { n: 1, readings: [['2026-10-31', 100]] }))[0]!;
    termID = await makeTerm(h);
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
  });
  after(() => close());

  test('a draft equal to the tariff (its own saved version, or sent) gives zero differences everywhere', async () => {
    for (const asked of [{ draftVersion: 1 }, { draft: draftWith('70') }]) {
      // 4 subscriptions, chunks of 3: background forces the job even for a small roster.
      const sim = await simulated(h, { termID, ...asked, bands: ['10', '30'] });
      assert.equal(sim.status, 'Queued');
      const s = (await waitForSimulation(h, sim.simulationID)).summary;
      assert.deepEqual(s.difference, { charges: '0.00', tax: '0.00', total: '0.00' });
      assert.deepEqual(s.current, s.draft);
      assert.equal(s.rated, 3);
      assert.equal(s.failed, 1);
      for (const b of [...s.bands, ...s.batches]) assert.equal(b.difference, '0.00');
      for (const r of await allResults(h, sim.simulationID, { failed: false })) {
        assert.deepEqual(r.difference, { charges: '0.00', tax: '0.00', total: '0.00' });
        assert.deepEqual(r.draft.lines, r.current.lines);
      }
    }
  });

  test('a 10% higher tier rate gives exactly the differences worked out by hand, by account, band and batch', async () => {
    const sim = await simulated(h, { termID, draft: draftWith('77'), bands: ['10', '30'], label: 'tier 2 +10%', background: false });
    // 4 subscriptions in chunks of 3: a job, done by the worker.
    const done = await waitForSimulation(h, sim.simulationID);
    assert.equal(done.status, 'Done', done.lastError);
    assert.deepEqual(done.progress, { subscriptions: 4, chunksDone: 2, chunksTotal: 2, percent: 100 });
    const s = done.summary;
    assert.deepEqual(s.current, { charges: '5620.00', tax: '899.20', total: '6519.20' });
    assert.deepEqual(s.draft, { charges: '5851.00', tax: '936.16', total: '6787.16' });
    assert.deepEqual(s.difference, { charges: '231.00', tax: '36.96', total: '267.96' });
    assert.equal(s.bandsKind, 'given');
    assert.deepEqual(
      s.bands.map((b: any) => [b.from, b.to, b.subscriptions, b.difference, b.increased, b.unchanged]),
      [
        [null, '10', 1, '0.00', 0, 1],
        ['10', '30', 1, '89.32', 1, 0],
        ['30', null, 1, '178.64', 1, 0],
      ],
    );
    assert.deepEqual(s.batches.map((b: any) => [b.batchCode, b.subscriptions, b.currentTotal, b.draftTotal, b.difference, b.minDifference, b.maxDifference]), [
      ['ZONE-A', 3, '6519.20', '6787.16', '267.96', '0.00', '178.64'],
    ]);

    // Largest rise first; the one not rated last.
    const rows = await allResults(h, sim.simulationID);
    assert.deepEqual(
      rows.map((r) => r.subscriptionID),
      [subs[2], subs[1], subs[0], missing].map((x) => Number(x!.subscriptionId)),
    );
    for (const [i, want] of TABLE.entries()) {
      const r = rows.find((x) => x.subscriptionID === Number(subs[i]!.subscriptionId));
      assert.equal(r.consumption, String(want.used));
      assert.deepEqual(amounts(r.current), want.current, `current of ${want.used} m3`);
      assert.deepEqual(amounts(r.draft), want.draft, `draft of ${want.used} m3`);
      assert.deepEqual(amounts(r.difference), want.difference, `difference of ${want.used} m3`);
      assert.equal(r.batchCode, 'ZONE-A');
      assert.deepEqual(r.current.lines.map((l: any) => l.componentCode), ['STANDING', 'WATER', 'SEWER', 'VAT']);
    }
    const big = rows[0];
    assert.match(big.draft.lines[1].explanation, /^Water: METER read 100 on 31\/10\/2026 and 145 on 30\/11\/2026: 45 used; /);
    assert.deepEqual(big.draft.lines[1].trace.tiers.map((t: any) => t.rate), ['50', '77', '90']);
    assert.deepEqual(big.current.lines[1].trace.tiers.map((t: any) => t.rate), ['50', '70', '90']);

    const failed = await allResults(h, sim.simulationID, { failed: true });
    assert.equal(failed.length, 1);
    assert.equal(failed[0].subscriptionID, Number(missing.subscriptionId));
    assert.equal(failed[0].difference, null);
    assert.equal(failed[0].failure.current.code, 'MISSING_READING');
    assert.equal(failed[0].failure.draft.code, 'MISSING_READING');

    // One account's.
    const one = await allResults(h, sim.simulationID, { accountNumber: rows[0].accountNumber });
    assert.deepEqual(one.map((r) => r.subscriptionID), [rows[0].subscriptionID]);

    // Other orders and a page.
    const falls = await results(h, { simulationID: sim.simulationID, sort: 'difference', failed: false, limit: 2, offset: 0 });
    assert.deepEqual(falls.body.data.paging, { limit: 2, offset: 0, total: 3 });
    assert.deepEqual(falls.body.data.results.map((r: any) => r.difference.total), ['0.00', '89.32']);
    const size = await allResults(h, sim.simulationID, { sort: 'size', failed: false });
    assert.deepEqual(size.map((r) => r.difference.total), ['178.64', '89.32', '0.00']);

    // The CSV export, one row per roster subscription.
    const csv = await h.request('POST', '/billing/simulations/export-simulation', { token: h.tokens.viewer, body: env('Retrieve', 'Export Simulation', { simulationID: sim.simulationID }) });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    const lines = (csv.body as string).trim().split('\r\n');
    assert.equal(lines[0], 'subscriptionID,accountNumber,accountName,batchCode,consumption,currentCharges,currentTax,currentTotal,draftCharges,draftTax,draftTotal,differenceCharges,differenceTax,differenceTotal,failureCode,failureReason');
    assert.equal(lines.length, 5);
    assert.match(lines[3]!, new RegExp(`^${subs[2]!.subscriptionId},[^,]+,Customer 3,ZONE-A,45,3725\\.00,596\\.00,4321\\.00,3879\\.00,620\\.64,4499\\.64,154\\.00,24\\.64,178\\.64,,$`));
    assert.match(lines[4]!, /,MISSING_READING,/);
  });

  test('a result keeps what its bills were rated from, not their lines: both traces are rated again when read, where the draft changes nothing too, and a change to the subscription since moves none', async () => {
    const sim = await simulated(h, { termID, draft: draftWith('77'), background: true });
    const done = await waitForSimulation(h, sim.simulationID);
    assert.equal(done.status, 'Done', done.lastError);
    // Migration 063: no row keeps lines (2 KB each with their traces); each keeps its input.
    const kept = await h.db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE current_lines IS NULL AND draft_lines IS NULL AND inputs IS NOT NULL)::int AS bare
         FROM simulation_result WHERE simulation_id = $1`,
      [sim.simulationID],
    );
    assert.deepEqual(kept.rows[0], { n: 4, bare: 4 });

    const first = await allResults(h, sim.simulationID);
    // 5 m3: the draft's second tier is not reached, the same bill both ways, both traces shown.
    const same = first.find((r) => r.subscriptionID === Number(subs[0]!.subscriptionId));
    assert.deepEqual(amounts(same.difference), ['0.00', '0.00', '0.00']);
    assert.deepEqual(amounts(same.current), TABLE[0]!.current);
    assert.deepEqual(same.current.lines.map((l: any) => [l.componentCode, l.amount]), [['STANDING', '150.00'], ['WATER', '250.00'], ['SEWER', '25.00'], ['VAT', '68.00']]);
    assert.match(same.current.lines[1].explanation, /^Water: METER read 100 on 31\/10\/2026 and 105 on 30\/11\/2026: 5 used; /);
    assert.deepEqual(same.current.lines[1].trace.tiers.map((t: any) => t.rate), ['50']);
    assert.deepEqual(same.draft.lines, same.current.lines);
    const big = first.find((r) => r.subscriptionID === Number(subs[2]!.subscriptionId));
    assert.deepEqual(big.draft.lines[1].trace.tiers.map((t: any) => t.rate), ['50', '77', '90']);

    // Since the simulation, the subscription starts later (rated now, its standing charge
    // would be prorated): the results read again are the same.
    const was = (await h.db.query('SELECT start_date::text AS d FROM subscription WHERE subscription_id = $1', [subs[0]!.subscriptionId])).rows[0].d;
    await h.db.query(`UPDATE subscription SET start_date = '2026-11-20' WHERE subscription_id = $1`, [subs[0]!.subscriptionId]);
    try {
      assert.deepEqual(await allResults(h, sim.simulationID), first);
    } finally {
      await h.db.query('UPDATE subscription SET start_date = $2 WHERE subscription_id = $1', [subs[0]!.subscriptionId, was]);
    }

    // A rating core changed since the simulation ran (here: a stored amount the lines rated
    // again no longer add up to) is a clear 409 naming the simulation, not a 500.
    const sub0 = Number(subs[0]!.subscriptionId);
    await h.db.query('UPDATE simulation_result SET current_total = current_total + 1 WHERE simulation_id = $1 AND subscription_id = $2', [sim.simulationID, sub0]);
    try {
      const stale = await results(h, { simulationID: sim.simulationID });
      assert.equal(stale.status, 409, JSON.stringify(stale.body));
      assert.equal(stale.body.error.code, 'INVALID_STATE');
      assert.equal(stale.body.error.details[0].path, 'data.simulationID');
      assert.match(stale.body.message, /Run the simulation again/);
    } finally {
      await h.db.query('UPDATE simulation_result SET current_total = current_total - 1 WHERE simulation_id = $1 AND subscription_id = $2', [sim.simulationID, sub0]);
    }

    // A simulation planned before migration 063 has no rating context, and its rows keep
    // their lines and no inputs: answered as stored.
    const stored = (lines: any[] | undefined) => (lines === undefined ? null : JSON.stringify(lines.map(({ explanation, ...line }: any) => line)));
    for (const r of first) {
      await h.db.query('UPDATE simulation_result SET current_lines = $3, draft_lines = $4, inputs = NULL WHERE simulation_id = $1 AND subscription_id = $2', [
        sim.simulationID, r.subscriptionID, stored(r.current?.lines), stored(r.draft?.lines),
      ]);
    }
    await h.db.query('UPDATE simulation SET rating_context = NULL WHERE simulation_id = $1', [sim.simulationID]);
    assert.deepEqual(await allResults(h, sim.simulationID), first);
  });

  test('a processed term is simulated from the readings its bills used, and no bill is written', async () => {
    const processed = await makeTerm(h, { billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    // Readings of December for the three rated subscriptions: 5, 20, 45 m3 again.
    const { addReadings } = await import('../terms/fixtures.ts');
    await addReadings(h, [...subs.map((s, i): [string, string, number] => [s.subscriptionId, '2026-12-31', 100 + TABLE[i]!.used * 2]), [missing.subscriptionId, '2026-12-31', 110]]);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID: processed })).status, 200);
    await waitForStatus(h, processed, ['Processed']);
    const bills = async () => (await h.db.query('SELECT count(*)::int AS n FROM bill')).rows[0].n;
    const before = await bills();
    const sim = await simulated(h, { termID: processed, draft: draftWith('77'), bands: ['10', '30'] });
    const done = await waitForSimulation(h, sim.simulationID);
    assert.equal(done.status, 'Done', done.lastError);
    assert.deepEqual(done.summary.difference, { charges: '231.00', tax: '36.96', total: '267.96' });
    assert.equal(await bills(), before);
    const stored = await h.db.query('SELECT round(sum(total), 2)::text AS t FROM bill WHERE term_id = $1', [processed]);
    assert.equal(done.summary.current.total, stored.rows[0].t);
  });

  test('chunks run twice at once (two workers, a retry) write each result once', async () => {
    const { runSimulationChunk } = await import('../../src/simulation/runSimulation.ts');
    const sim = await simulated(h, { termID, draft: draftWith('77'), background: true });
    // Race the worker, and each other, for both chunks as soon as they are planned.
    for (let i = 0; i < 300; i++) {
      if ((await h.db.query('SELECT count(*)::int AS n FROM simulation_chunk WHERE simulation_id = $1', [sim.simulationID])).rows[0].n === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const id = String(sim.simulationID);
    await Promise.all([1, 2, 1, 2].map((chunk, i) => runSimulationChunk(h.db, id, chunk, `test-${i}`, true)));
    const done = await waitForSimulation(h, sim.simulationID);
    assert.equal(done.status, 'Done', done.lastError);
    assert.deepEqual([done.progress.chunksDone, done.progress.chunksTotal], [2, 2]);
    const rows = await h.db.query('SELECT count(*)::int AS n, count(DISTINCT subscription_id)::int AS d FROM simulation_result WHERE simulation_id = $1', [sim.simulationID]);
    assert.deepEqual(rows.rows[0], { n: 4, d: 4 });
    assert.deepEqual(done.summary.difference, { charges: '231.00', tax: '36.96', total: '267.96' });
  });

  test('a roster of one chunk is rated in the request', async () => {
    const [one] = await subscriptions(h, { n: 1, batchCode: 'ZONE-B', readings: [['2026-10-31', 0], ['2026-11-30', 20]] });
    const small = await makeTerm(h, { batchCode: 'ZONE-B' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID: small })).status, 200);
    const sim = await simulated(h, { termID: small, draft: draftWith('77') });
    assert.equal(sim.status, 'Done');
    assert.deepEqual(sim.summary.difference, { charges: '77.00', tax: '12.32', total: '89.32' });
    assert.equal(sim.summary.bandsKind, 'deciles');
    assert.deepEqual(sim.summary.bands.map((b: any) => [b.from, b.to, b.subscriptions]), [[null, '20', 1]]);
    const rows = await allResults(h, sim.simulationID);
    assert.equal(rows[0].subscriptionID, Number(one!.subscriptionId));
  });

  test('solving the tier rate: revenue-neutral gives back the rate of the tariff; a target revenue is met within one rate step', async () => {
    const neutral = await simulated(h, { termID, draft: draftWith('77'), solve: { componentCode: 'WATER', tierIndex: 1, target: 'revenueNeutral' } });
    const n = await waitForSimulation(h, neutral.simulationID);
    assert.equal(n.status, 'Done', n.lastError);
    assert.equal(n.solve.rate, '70.00');
    assert.equal(n.solve.targetRevenue, '6519.20');
    assert.equal(n.solve.revenue, '6519.20');
    assert.equal(n.solve.startRate, '77');
    assert.deepEqual(n.summary.difference, { charges: '0.00', tax: '0.00', total: '0.00' });
    assert.equal(n.draft.components[1].tiers[1].rate, '70.00');

    // Revenue as a function of the tier-2 rate r (5, 20 and 45 m3):
    // 493 + 1.16 * (150 + 1.1 * (500 + 10r)) + 1.16 * (150 + 1.1 * (1850 + 20r)) = 3839.60 + 38.28r
    // (VAT rounded to the cent per bill): 7000.00 is at r = 82.56..., one cent of rate moves it 0.38.
    const target = await simulated(h, { termID, draft: draftWith('77'), solve: { componentCode: 'WATER', tierIndex: 1, target: '7000.00' } });
    const t = await waitForSimulation(h, target.simulationID);
    assert.equal(t.status, 'Done', t.lastError);
    assert.equal(t.solve.rate, '82.56');
    assert.equal(t.solve.revenue, '7000.00');
    assert.equal(t.solve.revenue, t.summary.draft.total);
    assert.ok(Math.abs(Number(t.solve.revenue) - 7000) <= 0.3828 + 0.01, t.solve.revenue);
    // Its neighbours are farther from the target: rated again, apart.
    for (const rate of ['82.55', '82.57']) {
      const s = await waitForSimulation(h, (await simulated(h, { termID, draft: draftWith(rate) })).simulationID);
      assert.ok(Math.abs(Number(s.summary.draft.total) - 7000) >= Math.abs(Number(t.solve.revenue) - 7000), `${rate}: ${s.summary.draft.total}`);
    }

    // A percentage solved for the charges: the sewer surcharge.
    const sewer = await simulated(h, { termID, draft: draftWith('70'), solve: { componentCode: 'SEWER', target: '6010', measure: 'charges' } });
    const sw = await waitForSimulation(h, sewer.simulationID);
    assert.equal(sw.solve.parameter, 'percentage');
    // charges = 450 (standing) + 4700 (water) + p% of each bill's water (250, 1200, 3250),
    // each rounded: p = 18.29 gives 45.73 + 219.48 + 594.43 = 859.64 (6009.64), p = 18.30
    // gives 45.75 + 219.60 + 594.75 = 860.10 (6010.10), the nearer.
    assert.equal(sw.solve.rate, '18.30');
    assert.equal(sw.solve.revenue, '6010.10');
    assert.equal(sw.solve.revenue, sw.summary.draft.charges);

    // Out of reach: even a rate of 0 earns more.
    const low = await waitForSimulation(h, (await simulated(h, { termID, draft: draftWith('77'), solve: { componentCode: 'WATER', tierIndex: 1, target: '100' } })).simulationID);
    assert.equal(low.status, 'Done');
    assert.equal(low.solve.rate, null);
    assert.match(low.solve.error, /even a rate of 0 gives a revenue of 3839\.6/);
  });

  test('bad input is refused with the field at fault, and nothing is kept', async () => {
    const count = async () => (await h.db.query('SELECT count(*)::int AS n FROM simulation')).rows[0].n;
    const before = await count();
    const bad = async (data: Record<string, unknown>, status: number, code: string, path: string) => {
      const r = await simulate(h, data);
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.equal(r.body.error.code, code);
      assert.ok(r.body.error.details.some((d: any) => d.path === path), JSON.stringify(r.body.error.details));
    };
    await bad({ termID: 987654321, draftVersion: 1 }, 404, 'NOT_FOUND', 'data.termID');
    await bad({ termID }, 400, 'VALIDATION_FAILED', 'data.draft');
    await bad({ termID, draftVersion: 1, draft: draftWith('70') }, 400, 'VALIDATION_FAILED', 'data.draft');
    await bad({ termID, draftVersion: 9 }, 404, 'NOT_FOUND', 'data.draftVersion');
    const unordered = draftWith('70');
    unordered.components[1].tiers[1].upTo = 5;
    await bad({ termID, draft: unordered }, 400, 'VALIDATION_FAILED', 'data.draft.components[1].tiers[1].upTo');
    const unknownInput = draftWith('70');
    unknownInput.components[1].input = 'GAS';
    await bad({ termID, draft: unknownInput }, 400, 'VALIDATION_FAILED', 'data.draft.components[1].input');
    await bad({ termID, draftVersion: 1, solve: { componentCode: 'NOPE', target: 'revenueNeutral' } }, 400, 'VALIDATION_FAILED', 'data.solve.componentCode');
    await bad({ termID, draftVersion: 1, solve: { componentCode: 'WATER', target: 'revenueNeutral' } }, 400, 'VALIDATION_FAILED', 'data.solve.tierIndex');
    await bad({ termID, draftVersion: 1, solve: { componentCode: 'WATER', tierIndex: 3, target: 'revenueNeutral' } }, 400, 'VALIDATION_FAILED', 'data.solve.tierIndex');
    await bad({ termID, draftVersion: 1, solve: { componentCode: 'STANDING', parameter: 'rate', target: 'revenueNeutral' } }, 400, 'VALIDATION_FAILED', 'data.solve.parameter');
    await bad({ termID, draftVersion: 1, solve: { componentCode: 'STANDING', target: 'lots' } }, 400, 'VALIDATION_FAILED', 'data.solve.target');
    await bad({ termID, draftVersion: 1, bands: ['30', '10'] }, 400, 'VALIDATION_FAILED', 'data.bands[1]');
    await bad({ termID, draftVersion: 1, bands: ['ten'] }, 400, 'VALIDATION_FAILED', 'data.bands[0]');
    const draftTerm = await makeTerm(h, { billingPeriodID: 202701, startDate: '01/01/2027', endDate: '31/01/2027' });
    await bad({ termID: draftTerm, draftVersion: 1 }, 409, 'INVALID_STATE', 'data.termID');
    assert.equal(await count(), before);
    const none = await results(h, { simulationID: 987654321 });
    assert.equal(none.status, 404);
  });

  test('tenancy and roles: another app sees none of it; a viewer reads but may not simulate or delete', async () => {
    const sim = await simulated(h, { termID, draftVersion: 1 });
    const other = h.tokens.otherAdmin;
    assert.equal((await simulate(h, { termID, draftVersion: 1 }, other)).status, 404);
    assert.equal((await list(h, {}, other)).body.data.simulations.length, 0);
    assert.equal((await list(h, { simulationID: sim.simulationID }, other)).body.data.paging.total, 0);
    assert.equal((await results(h, { simulationID: sim.simulationID }, other)).status, 404);
    const csv = await h.request('POST', '/billing/simulations/export-simulation', { token: other, body: env('Retrieve', 'Export Simulation', { simulationID: sim.simulationID }) });
    assert.equal(csv.status, 404);
    const del = (token: string) => h.post('/billing/simulations/delete-simulation', env('Update', 'Delete Simulation', { simulationID: sim.simulationID }), token);
    assert.equal((await del(other)).status, 404);
    assert.equal((await simulate(h, { termID, draftVersion: 1 }, h.tokens.viewer)).status, 403);
    assert.equal((await del(h.tokens.viewer)).status, 403);
    assert.equal((await results(h, { simulationID: sim.simulationID }, h.tokens.viewer)).status, 200);

    // Deleted with its results.
    assert.equal((await del(h.tokens.biller)).status, 200);
    assert.equal((await results(h, { simulationID: sim.simulationID })).status, 404);
    assert.equal((await h.db.query('SELECT count(*)::int AS n FROM simulation_result WHERE simulation_id = $1', [sim.simulationID])).rows[0].n, 0);
    assert.equal((await del(h.tokens.biller)).status, 404);
  });
});
