// Issue 9, defect 14: a bill run right after a bulk import crawled (275 s instead of
// 2.4 s for 20,000 subscriptions), nearly all in the roster statement, planned on tables
// the import had just filled and no statistics described.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, subscriptions } from '../terms/fixtures.ts';
import { inTransaction } from '../../src/db/pool.ts';
import { loadRoster } from '../../src/billRun/roster.ts';
import { lockTerm } from '../../src/billRun/termStore.ts';

const FILLED = ['account', 'subscription', 'reading', 'subscription_event'];

describe('a bill run right after a bulk import', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
    // Only this test's own writes may give the tables statistics.
    for (const t of FILLED) await h.db.query(`ALTER TABLE ${t} SET (autovacuum_enabled = off)`);
  });
  after(async () => h.close());

  test('an import leaves the tables it filled analysed', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ accountNumber: `IMP-${i}`, name: `Imported ${i}`, serviceCode: 'WATER', batchCode: 'ZONE-B', startDate: '01/01/2026', openingReadings: { METER: '10' } }));
    const r = await h.post('/billing/imports/make-import', { method: 'Create', action: 'Create Import', apiVersion: 'v2', data: { kind: 'accounts', rows } }, h.tokens.biller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const s = await h.db.query(`SELECT relname, last_analyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = ANY($1) ORDER BY relname`, [['account', 'subscription', 'reading']]);
    assert.deepEqual(s.rows, [
      { relname: 'account', analysed: true },
      { relname: 'reading', analysed: true },
      { relname: 'subscription', analysed: true },
    ]);
  });

  test('the roster of 5,000 subscriptions on tables without statistics takes well under a second, not minutes', async () => {
    await subscriptions(h, { n: 5000, batchCode: 'Z1', readings: [['2026-10-31', 100], ['2026-11-30', 125]] });
    await h.db.query('SELECT pg_stat_force_next_flush()');
    const stats = await h.db.query(`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'subscription_event'`);
    assert.equal(stats.rows[0].n, 0, 'subscription_event has no statistics');
    const termID = await makeTerm(h, { batchCode: 'Z1' });
    const count = await inTransaction(h.db, async (tx) => {
      // The quadratic plan took 74 s here; a timeout makes it a failure, not a wait.
      await tx.query("SET LOCAL statement_timeout = '10s'");
      return loadRoster(tx, (await lockTerm(tx, null, termID))!);
    });
    assert.equal(count, 5000);
  });
});
