// Defect 12 of issue 9: the database refused the rounding rules ceil and floor although
// the rating core has them, so an app could never bill with them. Every rule of the core
// (ROUNDING_MODES, the one list) is accepted by the database and bills through a term.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { ROUNDING_MODES, type RoundingMode } from '../../src/rating/money.ts';
import { waterService } from '../fixtures/tariffs.ts';
import { makeTemplate, processTerm, startRun, subscriptions } from './fixtures.ts';

// Five flat lines whose rounding to cents tells the seven rules apart.
const AMOUNTS = ['1.005', '-1.005', '1.004', '1.015', '1.006'];
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

  test('the test covers every rule the core has', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), [...ROUNDING_MODES].sort());
  });

  for (const mode of ROUNDING_MODES) {
    test(`${mode} is accepted by the database and bills through a term`, async () => {
      await h.db.query('UPDATE app SET rounding_mode = $1 WHERE app_code = $2', [mode, h.appCode]);
      const code = `R-${mode}`;
      await makeTemplate(
        h,
        waterService(code, {
          values: [],
          meteredInputs: [],
          components: AMOUNTS.map((amount, i) => ({ code: `L${i}`, name: `Line ${i}`, model: 'flat' as const, amount })),
          batches: [code],
        }),
      );
      await subscriptions(h, { n: 1, serviceCode: code, batchCode: code });
      const termID = await processTerm(h, { serviceCode: code, batchCode: code });
      const bills = await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } });
      assert.equal(bills.status, 200, JSON.stringify(bills.body));
      const [bill] = bills.body.data.bills;
      assert.deepEqual(bill.lines.map((l: { amount: string }) => l.amount), EXPECTED[mode]);
      assert.ok(bill.lines.every((l: { trace: { rounding: string } }) => l.trace.rounding === mode));
    });
  }

  test('a rule the core does not have is refused by the database', async () => {
    await assert.rejects(h.db.query("UPDATE app SET rounding_mode = 'nearest' WHERE app_code = $1", [h.appCode]), /app_rounding_mode_check/);
  });
});
