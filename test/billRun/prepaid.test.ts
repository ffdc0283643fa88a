// Issue 16 part 1 through HTTP: a Prepaid template (docs/templates.md, "Prepaid"). Two
// monthly terms, November then December 2026: each bill has the month's consumption in
// arrears and the next month's fixed charges in advance; a subscription starting inside
// November is billed from its start; one terminated on 10/12 gets its 21 unused prepaid
// days of December back on its final bill, once. The preview equals the bills and
// verify-term reproduces them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { addReadings, env, makeTerm, makeTermBody, startRun, step, subscriptions, tariff, termOf, waitForStatus, type Sub } from '../terms/fixtures.ts';

// The water tariff (test/fixtures/tariffs.ts), Prepaid: standing 150.00 a month; water 10 m3
// at 50 then 70 to 30 m3; sewer 10% of water; VAT 16% of the three.
const prepaid = () => tariff('PRE', { chargingType: 'Prepaid', batches: ['ZONE-P'] });
const bills = async (h: Harness, termID: number) =>
  (await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } })).body.data.bills as any[];
const lines = (b: any) => b.lines.map((l: any) => `${l.trace.prepaid.basis} ${l.componentCode} ${l.amount}`);

describe('a Prepaid template', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let a: Sub, b: Sub, c: Sub;
  const term = (billingPeriodID: number, startDate: string, endDate: string) => makeTerm(h, { serviceCode: 'PRE', batchCode: 'ZONE-P', billingPeriodID, startDate, endDate });
  const run = async (termID: number) => {
    const p = await step(h, 'process-term', 'Process Term', { termID });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal((await waitForStatus(h, termID, ['Processed', 'Failed'])).status, 'Processed');
    const made = await bills(h, termID);
    const of = (s: Sub) => made.find((x) => x.subscriptionID === Number(s.subscriptionId));
    return { made, of };
  };

  before(async () => {
    ({ h, close } = await startRun({ billRunChunkSize: 2 }, [prepaid()]));
    // a and c connected long before; b from 16/11/2026 (opening reading 0 that day).
    [a, c] = (await subscriptions(h, { n: 2, serviceCode: 'PRE', batchCode: 'ZONE-P', readings: [['2026-10-31', 100], ['2026-11-30', 125]] })) as [Sub, Sub];
    [b] = (await subscriptions(h, { n: 1, serviceCode: 'PRE', batchCode: 'ZONE-P', startDate: '2026-11-16', readings: [['2026-11-16', 0], ['2026-11-30', 10]] })) as [Sub];
  });
  after(() => close());

  test('the template lists Prepaid; an unknown charging type is refused naming the field', async () => {
    const r = await h.post('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2', serviceCode: 'PRE' });
    assert.equal(r.body.data.services[0].chargingType, 'Prepaid');
    const bad = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...prepaid(), code: 'PRE2', chargingType: 'Prepay' } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.error.details[0].path, 'service.chargingType');
  });

  test('Post Account is refused on a Prepaid template and on a term of one, naming postType, and nothing is made', async () => {
    const made = await h.post('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service: { ...prepaid(), code: 'PRE3', postType: 'Post Account' } });
    assert.equal(made.status, 400, JSON.stringify(made.body));
    assert.equal(made.body.error.details[0].path, 'service.postType');
    assert.equal((await h.db.query(`SELECT count(*)::int AS n FROM service WHERE service_code = 'PRE3'`)).rows[0].n, 0);
    const terms = async () => (await h.db.query('SELECT count(*)::int AS n FROM term')).rows[0].n;
    const before = await terms();
    const t = await h.post('/billing/terms/make-term', makeTermBody({ serviceCode: 'PRE', batchCode: 'ZONE-P', billingPeriodID: 99, startDate: '01/09/2026', endDate: '30/09/2026', postType: 'Post Account' }));
    assert.equal(t.status, 400, JSON.stringify(t.body));
    assert.equal(t.body.error.details[0].path, 'data.postType');
    assert.equal(await terms(), before);
  });

  test('November: consumption in arrears, November not paid in advance billed in arrears, December in advance', async () => {
    const termID = await term(202611, '01/11/2026', '30/11/2026');
    const { of } = await run(termID);
    // a: 25 m3: 10 x 50 + 15 x 70 = 1550.00, sewer 155.00, VAT 16% of 1705 = 272.80;
    //    November's standing charge 150.00 (+ VAT 24.00) in arrears, December's 150.00 (+ VAT 24.00) in advance.
    assert.deepEqual(lines(of(a)), [
      'arrears WATER 1550.00',
      'arrears SEWER 155.00',
      'arrears VAT 272.80',
      'catchUp STANDING 150.00',
      'catchUp VAT 24.00',
      'advance STANDING 150.00',
      'advance VAT 24.00',
    ]);
    assert.equal(of(a).total, '2325.80');
    // b from 16/11: 15 of 30 days, 150.00 x 15/30 = 75.00 (+ VAT 12.00); 10 m3 = 500.00, sewer 50.00, VAT 88.00.
    assert.deepEqual(lines(of(b)), [
      'arrears WATER 500.00',
      'arrears SEWER 50.00',
      'arrears VAT 88.00',
      'catchUp STANDING 75.00',
      'catchUp VAT 12.00',
      'advance STANDING 150.00',
      'advance VAT 24.00',
    ]);
    assert.equal(of(b).total, '899.00');
    assert.match(of(b).lines[3].explanation, /^Standing charge: in arrears for 16\/11\/2026 to 30\/11\/2026, 15 day\(s\) not billed in advance; flat 150; prorated 15\/30 days: 150 to 75; /);
    assert.match(of(b).lines[5].explanation, /^Standing charge: in advance for 01\/12\/2026 to 31\/12\/2026 \(31 day\(s\)\); /);
    assert.match(of(b).lines[0].explanation, /^Water: in arrears for 16\/11\/2026 to 30\/11\/2026 \(15 day\(s\) billed\); /);
  });

  test('December: the subscription terminated on 10/12 is credited its 21 unused days, once; the preview equals the bills; verify-term matches', async () => {
    await addReadings(h, [
      [a.subscriptionId, '2026-12-31', 135],
      [b.subscriptionId, '2026-12-31', 20],
      [c.subscriptionId, '2026-12-10', 130],
    ]);
    const t = await h.post('/billing/subscriptions/terminate-subscription', { method: 'Update', action: 'Terminate Subscription', apiVersion: 'v2', data: { subscriptionID: Number(c.subscriptionId), endDate: '10/12/2026' } }, h.tokens.biller);
    assert.equal(t.status, 200, JSON.stringify(t.body));

    const termID = await term(202612, '01/12/2026', '31/12/2026');
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const v = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    const preview = v.body.data.previewBills as any[];
    const { made, of } = await run(termID);
    assert.equal(made.length, 3);
    for (const bill of made) {
      const p = preview.find((x) => x.subscriptionID === bill.subscriptionID);
      assert.deepEqual(
        [bill.total, bill.lines.map((l: any) => [l.componentCode, l.quantity, l.amount])],
        [p.total, p.lines.map((l: any) => [l.componentCode, l.quantity, l.amount])],
      );
    }
    // a and b: December was paid in advance; 10 m3 = 500.00, sewer 50.00, VAT 88.00; January in advance.
    for (const s of [a, b]) {
      assert.deepEqual(lines(of(s)), ['arrears WATER 500.00', 'arrears SEWER 50.00', 'arrears VAT 88.00', 'advance STANDING 150.00', 'advance VAT 24.00']);
      assert.equal(of(s).total, '812.00');
    }
    // c: 5 m3 = 250.00, sewer 25.00, VAT 44.00; 11 to 31 December unused, 21 of the 31 days paid:
    // -150.00 x 21/31 = -101.61, VAT 16% of -101.61 = -16.26; nothing in advance.
    const final = of(c);
    assert.deepEqual(lines(final), ['arrears WATER 250.00', 'arrears SEWER 25.00', 'arrears VAT 44.00', 'credit STANDING -101.61', 'credit VAT -16.26']);
    assert.equal(final.total, '201.13');
    const novemberBill = (await bills(h, (await termOf(h, { serviceCode: 'PRE', billingPeriodID: 202611 })).termID)).find((x) => x.subscriptionID === Number(c.subscriptionId));
    assert.equal(final.lines[3].trace.prepaid.advance.billNumber, String(novemberBill.billNumber));
    assert.match(
      final.lines[3].explanation,
      new RegExp(`^Standing charge: credit for 21 unused day\\(s\\) \\(11/12/2026 to 31/12/2026\\) of the 31 day\\(s\\) 01/12/2026 to 31/12/2026 billed in advance on bill ${novemberBill.billNumber} \\(150.00\\), given back: -150.00 x 21/31; `),
    );

    // verify-term re-rates each bill from its source (the advances it settled included).
    const vt = await h.post('/billing/terms/verify-term', env({ termID }, 'Update', 'Verify Term'));
    assert.equal(vt.status, 200, JSON.stringify(vt.body));
    const deadline = Date.now() + 30000;
    let verification: any;
    do {
      verification = (await termOf(h, { termID })).verification;
      if (verification.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    } while (Date.now() < deadline);
    assert.deepEqual([verification.status, verification.bills, verification.mismatches], ['verified', 3, 0]);

    // Reversed and billed again: the credit is on the new final bill only (the first is withdrawn),
    // the same amount: the withdrawn bill settled nothing.
    assert.equal((await step(h, 'reverse-term', 'Reverse Term', { termID })).status, 200);
    const again = await run(termID);
    assert.deepEqual(lines(again.of(c)), lines(final));
    // Read as a client reads them (bills are stored packed: src/billLines/storedLines.ts).
    const accountBills = (await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { accountID: Number(c.accountId) } })).body.data.bills as any[];
    // The same bills by the account's own number (get-bills took only the internal id).
    const byNumber = (await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { accountNumber: accountBills[0].accountNumber } })).body.data.bills as any[];
    assert.deepEqual(byNumber.map((b) => b.billID), accountBills.map((b) => b.billID));
    const credits = accountBills
      .filter((x) => x.subscriptionID === Number(c.subscriptionId) && x.status !== 'withdrawn')
      .flatMap((x) => x.lines)
      .filter((l: any) => l.trace.prepaid?.basis === 'credit');
    assert.equal(credits.length, 2); // STANDING and VAT, on one live bill
  });

  test('a second bill for the same prepaid days gives no second credit', async () => {
    // Another term of the template reaching December (a batch the subscription is moved into
    // would do the same): the days the final bill settled are not credited again.
    const dec = await termOf(h, { serviceCode: 'PRE', billingPeriodID: 202612 });
    const live = (await bills(h, dec.termID)).find((x) => x.subscriptionID === Number(c.subscriptionId));
    const settled = await h.db.query<{ settles: any }>(`SELECT source->'prepaid'->'settles' AS settles FROM bill WHERE bill_id = $1`, [live.billID]);
    assert.deepEqual(settled.rows[0]!.settles[0].days, [{ start: '2026-12-01', end: '2026-12-31' }]);
    // Rated again as a tariff simulation does (the roster with its billed subscriptions), from another term's view:
    // the December bill's own settlement excludes those days, so nothing is left to credit.
    const { runContext, loadRosterInputs, rateRoster } = await import('../../src/billRun/rateRoster.ts');
    const { readTerm } = await import('../../src/billRun/termStore.ts');
    const jan = await term(202701, '01/01/2027', '31/01/2027');
    await h.db.query('INSERT INTO term_subscription (term_id, subscription_id) VALUES ($1, $2)', [jan, c.subscriptionId]);
    const ctx = await runContext(h.db, (await readTerm(h.db, String(jan)))!);
    const inputs = await loadRosterInputs(h.db, { ...ctx, start: '2026-12-01' }, c.subscriptionId, c.subscriptionId, { withBilled: true });
    assert.equal(inputs[0]!.prepaid!.length, 1);
    assert.deepEqual(inputs[0]!.prepaid![0]!.settled, [{ start: '2026-12-01', end: '2026-12-31' }]);
    const r = await rateRoster({ ...ctx, start: '2026-12-01' }, inputs);
    assert.deepEqual(r.rated[0]!.bill.lines.filter((l) => l.trace.prepaid?.basis === 'credit'), []);
  });
});
