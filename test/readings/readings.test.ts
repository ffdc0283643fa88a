import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { databaseDigest } from '../support/digest.ts';
import { assertError, env, makeAccount, makeSubscription, makeTemplate } from '../subscriptions/fixtures.ts';

const capture = (readings: unknown[]) => env('Create', 'Capture Readings', { readings });
const history = (subscriptionID: number, inputCode?: string) => env('Retrieve', 'Retrieve Readings', { subscriptionID, ...(inputCode ? { inputCode } : {}) });

describe('meter readings', () => {
  let h: Harness;
  let sub: number;
  before(async () => {
    h = await startHarness();
    await makeTemplate(h); // METER: one decimal, rolls over at 10000
    await makeAccount(h, 'R-1');
    sub = await makeSubscription(h, 'R-1', { openingReadings: { METER: '9900' } });
  });
  after(() => h.close());

  test('capture many; a lower value is a roll-over when the meter turned less than half, and the answer says so', async () => {
    const r = await h.post(
      '/billing/readings/capture-readings',
      capture([
        { subscriptionID: sub, inputCode: 'METER', readingDate: '31/01/2025', value: '9950.5', source: 'handheld' },
        { subscriptionID: sub, inputCode: 'METER', readingDate: '28/02/2025', value: 30, kind: 'estimated', note: 'no access' },
      ]),
      h.tokens.biller,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, {});
    assert.equal(r.headers.get('x-billrun-consumption-kinds'), 'normal,rollover');
    assert.equal(r.headers.get('x-billrun-reading-ids')!.split(',').length, 2);
    const got = await h.post('/billing/readings/get-readings', history(sub), h.tokens.viewer);
    assert.deepEqual(
      got.body.data.readings.map((x: any) => [x.readingDate, x.value, x.kind, x.source, x.consumption, x.consumptionKind, x.effective]),
      [
        ['01/01/2025', '9900', 'actual', 'opening', null, 'first', true],
        ['31/01/2025', '9950.5', 'actual', 'handheld', '50.5', 'normal', true],
        ['28/02/2025', '30', 'estimated', 'api', '79.5', 'rollover', true],
      ],
    );
    assert.equal(got.body.data.readings[2].note, 'no access');
  });

  test('a lower value that is not a roll-over is refused as an error, saying why, and nothing of the batch is written', async () => {
    const before = await databaseDigest(h.db);
    const r = await h.post(
      '/billing/readings/capture-readings',
      capture([
        { subscriptionID: sub, inputCode: 'METER', readingDate: '31/03/2025', value: 60 },
        { subscriptionID: sub, inputCode: 'METER', readingDate: '30/04/2025', value: 40 },
      ]),
      h.tokens.biller,
    );
    assertError(r, 400, 'VALIDATION_FAILED', 'data.readings[1].value');
    assert.match(r.body.error.details[0].message, /40 is lower than the reading before it \(60 on 31\/03\/2025\).*an error, not a roll-over/);
    assert.deepEqual(await databaseDigest(h.db), before);
  });

  test('every other refusal: meter, date, decimals, roll-over value, same date, unknown subscription, role, app', async () => {
    const one = (x: Record<string, unknown>) => [{ subscriptionID: sub, inputCode: 'METER', readingDate: '31/05/2025', value: 100, ...x }];
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ inputCode: 'GAS' }, 400, 'VALIDATION_FAILED', 'data.readings[0].inputCode'],
      [{ readingDate: '31/12/2024' }, 400, 'VALIDATION_FAILED', 'data.readings[0].readingDate'],
      [{ readingDate: '31/04/2025' }, 400, 'VALIDATION_FAILED', 'data.readings[0].readingDate'],
      [{ value: '100.25' }, 400, 'VALIDATION_FAILED', 'data.readings[0].value'],
      [{ value: '10000' }, 400, 'VALIDATION_FAILED', 'data.readings[0].value'],
      [{ value: -1 }, 400, 'VALIDATION_FAILED', 'data.readings[0].value'],
      [{ value: '1e3' }, 400, 'VALIDATION_FAILED', 'data.readings[0].value'],
      [{ readingDate: '28/02/2025' }, 400, 'VALIDATION_FAILED', 'data.readings[0].value'],
      [{ kind: 'guessed' }, 400, 'VALIDATION_FAILED', 'data.readings[0].kind'],
      [{ subscriptionID: 999999 }, 404, 'NOT_FOUND', 'data.readings[0].subscriptionID'],
    ];
    for (const [x, status, code, path] of cases) assertError(await h.post('/billing/readings/capture-readings', capture(one(x)), h.tokens.biller), status, code, path);
    const twice = await h.post('/billing/readings/capture-readings', capture([...one({}), ...one({ value: 101 })]), h.tokens.biller);
    assertError(twice, 400, 'VALIDATION_FAILED', 'data.readings[1].value');
    assertError(await h.post('/billing/readings/capture-readings', capture(one({})), h.tokens.viewer), 403, 'FORBIDDEN');
    assertError(await h.post('/billing/readings/capture-readings', capture(one({})), h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.readings[0].subscriptionID');
    assertError(await h.post('/billing/readings/get-readings', history(sub), h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.subscriptionID');
  });

  test('a correction is kept beside the original; only the effective reading can be corrected', async () => {
    await makeAccount(h, 'R-2');
    const s2 = await makeSubscription(h, 'R-2', { openingReadings: { METER: '100' } });
    const cap = await h.post('/billing/readings/capture-readings', capture([
      { subscriptionID: s2, inputCode: 'METER', readingDate: '31/01/2025', value: 500 },
      { subscriptionID: s2, inputCode: 'METER', readingDate: '28/02/2025', value: 520 },
    ]), h.tokens.biller);
    const [wrong] = cap.headers.get('x-billrun-reading-ids')!.split(',').map(Number);
    const correct = (data: unknown, token = h.tokens.biller) => h.post('/billing/readings/correct-reading', env('Update', 'Correct Reading', data), token);
    // 530 would make the next reading (520) lower than it: refused.
    assertError(await correct({ readingID: wrong, value: 530 }), 400, 'VALIDATION_FAILED', 'data.value');
    const fixed = await correct({ readingID: wrong, value: '150', note: 'misread' });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal(fixed.headers.get('x-billrun-consumption-kind'), 'normal');
    const fixId = Number(fixed.headers.get('x-billrun-reading-id'));
    assertError(await correct({ readingID: wrong, value: 160 }), 409, 'INVALID_STATE', 'data.readingID');
    assertError(await correct({ readingID: 99999999, value: 1 }), 404, 'NOT_FOUND', 'data.readingID');
    assertError(await correct({ readingID: fixId, value: 1 }, h.tokens.otherAdmin), 404, 'NOT_FOUND', 'data.readingID');
    assertError(await correct({ readingID: fixId, value: 1 }, h.tokens.viewer), 403, 'FORBIDDEN');
    const got = (await h.post('/billing/readings/get-readings', history(s2, 'METER'))).body.data.readings;
    assert.deepEqual(
      got.map((x: any) => [x.readingID === wrong ? 'orig' : x.readingID === fixId ? 'fix' : 'other', x.value, x.effective, x.correctsReadingID, x.correctedByReadingID, x.consumption]),
      [
        ['other', '100', true, null, null, null],
        ['orig', '500', false, null, fixId, null],
        ['fix', '150', true, wrong, null, '50'],
        ['other', '520', true, null, null, '370'],
      ],
    );
    // A correction is corrected in turn.
    assert.equal((await correct({ readingID: fixId, value: '155' })).status, 200);
  });
});
