// Imports and reading captures racing for the same records: two imports of overlapping
// account numbers at once (one wins whole, the other is refused whole), and readings of
// the same meters sent at once through every way in (capture-readings, a term's
// capture-readings, an import): never two effective readings of a meter on one day,
// never a sequence that no single request would have been allowed to make, and each
// request all or nothing. (make-term x50, process-term x20 and Idempotency-Key races are
// in test/terms/states.test.ts and test/templates/templates.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Answer, type Harness } from '../support/harness.ts';
import { makeTemplate, makeTerm, step, subscriptions, type Sub } from '../terms/fixtures.ts';
import { suiteCounts } from './counts.ts';

const counts = suiteCounts('concurrency');
const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

describe('concurrent imports and reading captures', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h);
  });
  after(async () => {
    counts.print();
    await h.close();
  });

  const send = async (path: string, body: unknown) => {
    counts.requests++;
    const r = await h.post(path, body, h.tokens.biller);
    assert.ok(r.status < 500, `${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };
  const refusedWhole = (r: Answer, what: string) => {
    assert.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(r.body.success, false);
    assert.ok(['VALIDATION_FAILED', 'CONFLICT'].includes(r.body.error.code), `${what}: ${r.body.error.code}`);
  };

  test('two imports of overlapping account numbers at once: one wins whole, the other is refused whole', () =>
    counts.track(async () => {
      for (let round = 0; round < 4; round++) {
        const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ accountNumber: `R${round}-${from + i}`, name: `Customer ${from + i}` }));
        const x = rows(1, 300);
        const y = rows(201, 500);
        // The same rows twice as well: both imports want exactly the same numbers.
        const z = round % 2 === 0 ? rows(1, 300) : rows(250, 260);
        const answers = await Promise.all([x, y, z].map((r) => send('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'accounts', rows: r }))));
        const won = answers.map((a) => a.status === 200);
        const stored = await h.db.query<{ account_number: string }>(`SELECT account_number FROM account WHERE app_code = $1 AND account_number LIKE $2`, [h.appCode, `R${round}-%`]);
        const numbers = new Set(stored.rows.map((r) => r.account_number));
        const expected = new Set<string>();
        [x, y, z].forEach((r, i) => {
          if (won[i]) for (const row of r) expected.add(row.accountNumber);
          else refusedWhole(answers[i]!, `import ${i} of round ${round}`);
        });
        assert.ok(won.some(Boolean), `round ${round}: one import wins`);
        // x and y overlap, so they cannot both win; z overlaps x (and y when it is 250..260).
        assert.ok(!(won[0] && won[1]) && !(won[0] && won[2]), `round ${round}: overlapping imports both won`);
        assert.deepEqual([...numbers].sort(), [...expected].sort(), `round ${round}: exactly the winners' rows, nothing of the refused`);
        assert.equal(stored.rows.length, numbers.size, 'no account number twice');
        counts.records += stored.rows.length;
        const jobs = await h.db.query<{ status: string }>(`SELECT status FROM import_job WHERE app_code = $1 ORDER BY import_id DESC LIMIT 3`, [h.appCode]);
        assert.deepEqual(jobs.rows.map((j) => j.status).sort(), answers.map((a) => (a.status === 200 ? 'succeeded' : 'failed')).sort(), 'each import is recorded as it ended');
      }
    }));

  /** Effective readings (not corrected by another) of the meter on each day, counted. */
  const effectivePerDay = async (subs: Sub[]) =>
    h.db.query<{ subscription_id: string; reading_date: string; n: number; value: string }>(
      `SELECT r.subscription_id, r.reading_date, count(*)::int AS n, max(r.value) AS value FROM reading r
        WHERE r.subscription_id = ANY($1::bigint[]) AND r.input_code = 'METER'
          AND NOT EXISTS (SELECT 1 FROM reading c WHERE c.corrects_reading_id = r.reading_id)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [subs.map((s) => s.subscriptionId)],
    );

  test('readings of the same meters and day at once, by every way in: one effective reading each, each request whole', () =>
    counts.track(async () => {
      const subs = await subscriptions(h, { n: 40, batchCode: 'Z1', readings: [['2026-11-30', 100]] });
      const termID = await makeTerm(h, { batchCode: 'Z1', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
      assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
      const kept: string[] = [];
      for (let round = 0; round < 5; round++) {
        const date = `${10 + round}/12/2026`;
        const rows = (value: number) => subs.map((s) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: date, value: String(value) }));
        // Each request its own value, so that whatever was kept can be traced to who sent it.
        const senders: { value: number; way: string; send: () => Promise<Answer> }[] = [];
        for (let k = 0; k < 4; k++) {
          const v = 200 + round * 100 + k;
          senders.push({ value: v, way: 'capture', send: () => send('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: rows(v) })) });
        }
        for (let k = 0; k < 3; k++) {
          const v = 230 + round * 100 + k;
          senders.push({
            value: v,
            way: 'term',
            send: () => send('/billing/terms/capture-readings', { ...env('Update', 'Capture Term Readings', { termID, readings: rows(v) }), operation: 'schedule' }),
          });
        }
        for (let k = 0; k < 2; k++) {
          const v = 260 + round * 100 + k;
          senders.push({ value: v, way: 'import', send: () => send('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'readings', rows: rows(v) })) });
        }
        const answers = await Promise.all(senders.map((s) => s.send()));
        const accepted = senders.filter((_, i) => answers[i]!.status === 200);
        answers.forEach((a, i) => {
          if (a.status !== 200) refusedWhole(a, `${senders[i]!.way} ${senders[i]!.value}`);
        });
        assert.ok(accepted.length >= 1, 'one request at least is kept');

        const days = await effectivePerDay(subs);
        const onDay = days.rows.filter((r) => r.reading_date === `2026-12-${10 + round}`);
        assert.equal(onDay.length, subs.length, 'every meter has a reading of the day');
        for (const r of onDay) assert.equal(r.n, 1, `subscription ${r.subscription_id}: ${r.n} effective readings on ${date}`);
        // Whole requests: every value of an accepted request is stored for all 40 meters, none of a refused one.
        const stored = await h.db.query<{ value: string; n: number }>(
          `SELECT value::int::text AS value, count(*)::int AS n FROM reading WHERE subscription_id = ANY($1::bigint[]) AND reading_date = $2 GROUP BY 1`,
          [subs.map((s) => s.subscriptionId), `2026-12-${10 + round}`],
        );
        const byValue = new Map(stored.rows.map((r) => [Number(r.value), r.n]));
        for (const s of senders) assert.equal(byValue.get(s.value) ?? 0, accepted.includes(s) ? subs.length : 0, `${s.way} ${s.value}`);
        // The one effective value is the same for every meter: the last accepted request's.
        assert.equal(new Set(onDay.map((r) => r.value)).size, 1, 'one request decided the day for every meter');
        counts.records += onDay.length + stored.rows.length;
        kept.push(`${date}: ${accepted.map((a) => a.way).join('+')}`);
      }
      process.stdout.write(`# concurrency: same-day readings kept ${kept.join(', ')}\n`);
    }));

  // Defect 1 of issue 9: the lookup by accountNumber + serviceCode took no lock, so the
  // same one-row import sent 4 times at once was accepted two to four times and left two
  // or more effective readings of one meter on one day. Now exactly one is kept.
  test('the same one-row readings import by accountNumber + serviceCode sent 4 times at once (JSON and CSV): one effective reading', () =>
    counts.track(async () => {
      const subs = await subscriptions(h, { n: 6, batchCode: 'Z3', readings: [['2026-09-30', 100]], prefix: 'RACE' });
      for (let round = 0; round < 6; round++) {
        const accountNumber = `RACE-${round + 1}`;
        const date = `${String(10 + round).padStart(2, '0')}/10/2026`;
        const csv = round % 2 === 1;
        const answers = await Promise.all(
          [99989, 99988, 99987, 99986].map((value) => {
            counts.requests++;
            if (!csv) {
              return send('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'readings', rows: [{ accountNumber, serviceCode: 'WATER', inputCode: 'METER', readingDate: date, value: String(value) }] }));
            }
            return h.request('POST', '/billing/imports/upload-import?kind=readings', {
              token: h.tokens.biller,
              raw: `accountNumber,serviceCode,inputCode,readingDate,value\n${accountNumber},WATER,METER,${date},${value}\n`,
              headers: { 'content-type': 'text/csv' },
            });
          }),
        );
        for (const a of answers) assert.ok(a.status < 500, `${a.status} ${JSON.stringify(a.body)}`);
        const won = answers.filter((a) => a.status === 200);
        assert.equal(won.length, 1, `round ${round} (${csv ? 'CSV' : 'JSON'}): ${answers.map((a) => a.status).join(' ')}`);
        for (const a of answers) if (a.status !== 200) refusedWhole(a, `round ${round}`);
        const days = await effectivePerDay([subs[round]!]);
        const onDay = days.rows.filter((r) => r.reading_date === `2026-10-${10 + round}`);
        assert.deepEqual(onDay.map((r) => r.n), [1], `round ${round}: one effective reading of the day`);
        const got = await h.post('/billing/readings/get-readings', env('Retrieve', 'Retrieve Readings', { subscriptionID: Number(subs[round]!.subscriptionId) }), h.tokens.viewer);
        assert.equal(got.body.data.readings.filter((r: { readingDate: string; effective: boolean }) => r.readingDate === date && r.effective).length, 1);
        counts.records += onDay.length;
      }
    }));

  test('readings that are each fine alone but not together (a rise then a fall), sent at once: one is refused', () =>
    counts.track(async () => {
      const subs = await subscriptions(h, { n: 30, batchCode: 'Z2', readings: [['2026-11-30', 100]] });
      for (let round = 0; round < 3; round++) {
        const day = (d: number) => `${String(d + round * 3).padStart(2, '0')}/01/2027`;
        const base = 1000 * (round + 1);
        const rows = (d: number, value: number) => subs.map((s) => ({ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: day(d), value: String(value) }));
        // Alone, each rises from the last reading; together, the later day is lower than the earlier.
        const [early, late] = await Promise.all([
          send('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: rows(1, base + 300) })),
          round % 2 === 0
            ? send('/billing/readings/capture-readings', env('Create', 'Capture Readings', { readings: rows(2, base + 200) }))
            : send('/billing/imports/make-import', env('Create', 'Create Import', { kind: 'readings', rows: rows(2, base + 200) })),
        ]);
        assert.equal([early, late].filter((a) => a.status === 200).length, 1, `round ${round}: ${early.status} ${JSON.stringify(early.body?.error)} / ${late.status} ${JSON.stringify(late.body?.error)}`);
        for (const a of [early, late]) if (a.status !== 200) refusedWhole(a, `round ${round}`);
      }
      // Every meter's effective readings never fall (no roll-over is near).
      const days = await effectivePerDay(subs);
      const bySub = new Map<string, number[]>();
      for (const r of days.rows) {
        assert.equal(r.n, 1);
        bySub.set(r.subscription_id, [...(bySub.get(r.subscription_id) ?? []), Number(r.value)]);
      }
      for (const [sub, values] of bySub) {
        for (let i = 1; i < values.length; i++) assert.ok(values[i]! >= values[i - 1]!, `subscription ${sub} falls: ${values.join(' ')}`);
        counts.records += values.length;
      }
    }));
});
