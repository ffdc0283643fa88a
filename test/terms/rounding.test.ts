// Defect 12 of issue 9: the database refused the rounding rules ceil and floor although
// the rating core has them, so an app could never bill with them. Every rule of the core
// (ROUNDING_MODES, the one list) is accepted by the database and bills through a term.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { ROUNDING_MODES, type RoundingMode } from '../../src/rating/money.ts';
import type { Component } from '../../src/rating/tariff.ts';
import { waterService } from '../fixtures/tariffs.ts';
import { makeTemplate, processTerm, startRun, subscriptions } from './fixtures.ts';

// Five flat lines whose rounding to cents tells the seven rules apart.
const AMOUNTS = ['1.005', '-1.005', '1.004', '1.015', '1.006'];
const FLATS: Component[] = AMOUNTS.map((amount, i) => ({ code: `L${i}`, name: `Line ${i}`, model: 'flat' as const, amount }));
const EXPECTED: Record<RoundingMode, string[]> = {
  halfUp: ['1.01', '-1.01', '1.00', '1.02', '1.01'],
  halfEven: ['1.00', '-1.00', '1.00', '1.02', '1.01'],
  halfDown: ['1.00', '-1.00', '1.00', '1.01', '1.01'],
  up: ['1.01', '-1.01', '1.01', '1.02', '1.01'],
  down: ['1.00', '-1.00', '1.00', '1.01', '1.00'],
  ceil: ['1.01', '-1.00', '1.01', '1.02', '1.01'],
  floor: ['1.00', '-1.01', '1.00', '1.01', '1.00'],
};

describe("an app's rounding rule", () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun());
  });
  after(() => close());

  /** The one bill of a template of these components, made through a term. */
  async function billOf(code: string, components: Component[]) {
    await makeTemplate(h, waterService(code, { values: [], meteredInputs: [], components, batches: [code] }));
    await subscriptions(h, { n: 1, serviceCode: code, batchCode: code });
    const termID = await processTerm(h, { serviceCode: code, batchCode: code });
    const bills = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    return bills.body.data.bills[0];
  }

  test('the test covers every rule the core has', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), [...ROUNDING_MODES].sort());
  });

  for (const mode of ROUNDING_MODES) {
    test(`${mode} is accepted by the database and bills through a term`, async () => {
      await h.db.query('UPDATE app SET rounding_mode = $1 WHERE app_code = $2', [mode, h.appCode]);
      const bill = await billOf(`R-${mode}`, FLATS);
      assert.deepEqual(bill.lines.map((l: { amount: string }) => l.amount), EXPECTED[mode]);
      assert.ok(bill.lines.every((l: { trace: { rounding: string } }) => l.trace.rounding === mode));
    });
  }

  // A Delhi bill is printed to the rupee with a rounding line (an outside check reproducing
  // real bills): the lines 1.005 ... of AMOUNTS sum to 3.03 at halfUp, and the rounding line
  // takes the total to 3.00, through make-service, a term and get-bills.
  test('a totalRounding line rounds the bill to a whole unit, explained, and a limit on it is refused', async () => {
    await h.db.query("UPDATE app SET rounding_mode = 'halfUp' WHERE app_code = $1", [h.appCode]);
    const bill = await billOf('R-TOTAL', [...FLATS, { code: 'ROUND', name: 'Rounding', model: 'totalRounding', increment: '1', of: FLATS.map((l) => l.code) }]);
    // 1.01 - 1.01 + 1.00 + 1.02 + 1.01 = 3.03, rounded half up to 3: -0.03
    assert.deepEqual(bill.lines.map((l: { amount: string }) => l.amount), [...EXPECTED.halfUp, '-0.03']);
    assert.equal(bill.total, '3.00');
    const round = bill.lines.at(-1);
    assert.equal(round.trace.model, 'totalRounding');
    assert.match(round.explanation, /3\.03 \(L0 1\.01 \+ L1 -1\.01 \+ L2 1\.00 \+ L3 1\.02 \+ L4 1\.01\) rounded half up to a multiple of 1: 3\.00, adjustment -0\.03/);
    // Its own rule, not the app's, in the trace and the words (an attacker's test: every rule read "half up").
    const down = await billOf('R-DOWN', [...FLATS, { code: 'ROUND', name: 'Rounding', model: 'totalRounding', increment: '1', rounding: 'ceil', of: FLATS.map((l) => l.code) }]);
    assert.equal(down.total, '4.00');
    assert.equal(down.lines.at(-1).trace.rule, 'ceil');
    assert.equal(down.lines.at(-1).trace.rounding, 'halfUp');
    assert.match(down.lines.at(-1).explanation, /rounded ceil to a multiple of 1: 4\.00, adjustment 0\.97/);
    // A limit on a rounding line is refused on its field.
    const refused = await h.post('/billing/services/make-service', {
      method: 'Create',
      action: 'Create Package',
      apiVersion: 'v2',
      service: waterService('R-BAD', { values: [], meteredInputs: [], components: [...FLATS, { code: 'ROUND', name: 'Rounding', model: 'totalRounding', increment: '1', of: ['L0'], maximum: '1' }], batches: ['R-TOTAL'] }),
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(refused.body.error.details.map((d: { path: string }) => d.path), ['service.components[5].maximum']);
  });

  // docs/rating.md said an increment finer than the currency "should not be" used and nothing
  // refused it: 0.005 on cents leaves a total that is no multiple of 0.005 once the line is
  // rounded to the cent. Refused on its field, given or named by a values entry, and nothing saved.
  test('an increment finer than the currency is refused when the template is saved', async () => {
    const save = (code: string, increment: unknown, values: { code: string; label: string; value: string }[] = []) =>
      h.post('/billing/services/make-service', {
        method: 'Create',
        action: 'Create Package',
        apiVersion: 'v2',
        service: waterService(code, { values, meteredInputs: [], components: [...FLATS, { code: 'ROUND', name: 'Rounding', model: 'totalRounding', increment, of: ['L0'] } as Component], batches: ['R-TOTAL'] }),
      });
    const fine = await save('R-FINE', '0.005');
    assert.equal(fine.status, 400, JSON.stringify(fine.body));
    assert.equal(fine.body.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(fine.body.error.details.map((d: { path: string }) => d.path), ['service.components[5].increment']);
    assert.match(fine.body.error.details[0].message, /smallest unit \(0\.01\)/);
    const named = await save('R-FINE', { value: 'STEP' }, [{ code: 'STEP', label: 'Step', value: '0.001' }]);
    assert.equal(named.status, 400, JSON.stringify(named.body));
    assert.deepEqual(named.body.error.details.map((d: { path: string }) => d.path), ['service.components[5].increment.value']);
    assert.equal((await h.db.query("SELECT 1 FROM service WHERE app_code = $1 AND service_code = 'R-FINE'", [h.appCode])).rowCount, 0);
    assert.equal((await save('R-CASH', '0.05')).status, 200);
  });

  test('a rule the core does not have is refused by the database', async () => {
    await assert.rejects(h.db.query("UPDATE app SET rounding_mode = 'nearest' WHERE app_code = $1", [h.appCode]), /app_rounding_mode_check/);
  });
});
