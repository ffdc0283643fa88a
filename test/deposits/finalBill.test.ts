// A security deposit applied to the subscription's final bill, end to end through HTTP
// with a worker running the terms (issue 16, part 4): connected (deposit charged and
// paid), terminated inside a period, the period's term run and posted; the posting applies
// the deposit to the final bill and refunds the rest in its own transaction, once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, processTerm, startRun, step, tariff } from '../terms/fixtures.ts';
import { assertError, env, makeAccount } from '../subscriptions/fixtures.ts';

const TODAY = '31/01/2027'; // the tests' pinned today: deposit entries are dated the day they are made

describe('a deposit pays the final bill', () => {
  let h: Harness;
  let close: () => Promise<void>;
  let n = 0;

  const ok = async (path: string, method: string, action: string, data: unknown, token = h.tokens.biller) => {
    const r = await h.post(path, env(method, action, data), token);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    return r;
  };
  const subscribe = async (accountNumber: string, serviceCode = 'WATER', batchCode = 'ZONE-A') => {
    const r = await ok('/billing/subscriptions/make-subscription', 'Create', 'Create Subscription', { accountNumber, serviceCode, batchCode, startDate: '01/01/2025' });
    return Number(r.headers.get('x-billrun-subscription-id'));
  };
  const read = (subscriptionID: number, readingDate: string, value: number) =>
    ok('/billing/readings/capture-readings', 'Create', 'Capture Readings', { readings: [{ subscriptionID, inputCode: 'METER', readingDate, value }] });
  const pay = (accountNumber: string, amount: string) =>
    ok('/billing/payments/make-payment', 'Create', 'Create Payment', { accountNumber, amount, reference: `FB-${++n}`, channel: 'bank' });
  const terminate = (subscriptionID: number, endDate: string) => ok('/billing/subscriptions/terminate-subscription', 'Update', 'Terminate Subscription', { subscriptionID, endDate });
  const statement = async (accountNumber: string) => (await ok('/billing/ledger/get-statement', 'Retrieve', 'Retrieve Statement', { accountNumber }, h.tokens.viewer)).body.data.statement;
  const deposits = async (data: Record<string, unknown>) => (await ok('/billing/deposits/get-deposits', 'Retrieve', 'Retrieve Deposits', data, h.tokens.viewer)).body.data.deposits;
  const ledgerOk = async () => {
    const r = await ok('/billing/ledger/check-ledger', 'Retrieve', 'Check Ledger', {}, h.tokens.viewer);
    assert.deepEqual(r.body.data.check.problems, []);
  };
  const post = (termID: number) => step(h, 'post-term', 'Post Term', { termID });

  before(async () => {
    ({ h, close } = await startRun({}, [
      tariff('WATER', { securityDeposit: '500.00' }),
      tariff('SHARED', { securityDeposit: '500.00', postType: 'Post Account', batches: ['ZONE-B'] }),
    ]));
  });
  after(() => close());

  test('connected and paid, terminated mid-period, the final term run and posted: the deposit pays the final bill, the rest is refunded, the statement shows it', async () => {
    await makeAccount(h, 'F-1');
    const sub = await subscribe('F-1');
    await pay('F-1', '500.00');
    await read(sub, '31/10/2026', 100);
    await read(sub, '15/11/2026', 105);
    let st = await statement('F-1');
    assert.deepEqual([st.balance, st.heldDeposit], ['0.00', '500.00']);

    // Terminated on 15 November, before November's term is run: the deposit waits for that bill.
    await terminate(sub, '15/11/2026');
    let [d] = await deposits({ accountNumber: 'F-1' });
    assert.deepEqual([d.status, d.endedOn, d.held, d.releasedOn], ['Held', '15/11/2026', '500.00', null]);
    assert.deepEqual([(await statement('F-1')).heldDeposit], ['500.00']);

    const termID = await processTerm(h);
    // Processed, not posted: the bill is a draft, the deposit still held.
    [d] = await deposits({ accountNumber: 'F-1' });
    assert.equal(d.status, 'Held');

    const r = await post(termID);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // The final bill, 15 of 30 days: standing 150.00 x 15/30 = 75.00; water 5 m3 x 50 =
    // 250.00; sewer 10% = 25.00; VAT 16% of 350.00 = 56.00; total 406.00. The deposit of
    // 500.00 pays it and 500.00 - 406.00 = 94.00 is refunded.
    const bill = (await h.db.query('SELECT bill_id, total FROM bill WHERE subscription_id = $1 AND term_id = $2', [sub, termID])).rows[0];
    assert.equal(bill.total, '406.0000');
    [d] = await deposits({ accountNumber: 'F-1' });
    assert.deepEqual([d.status, d.releasedOn, d.unpaid, d.applied, d.refunded, d.endedOn], ['Released', TODAY, '0.00', '406.00', '94.00', null]);
    const alloc = await h.db.query(`SELECT sum(amount)::text AS paid, min(method) AS method FROM allocation WHERE bill_id = $1 AND released_at IS NULL`, [bill.bill_id]);
    assert.deepEqual(alloc.rows[0], { paid: '406.0000', method: 'Deposit' });

    // The statement: the charge, its payment, the final bill, the release and the refund;
    // nothing owed, nothing held any more.
    st = await statement('F-1');
    assert.deepEqual(st.entries.map((e: any) => `${e.kind} ${e.amount}`).sort(), ['bill 406.00', 'deposit 500.00', 'deposit_refund 94.00', 'deposit_release -500.00', 'payment -500.00']);
    assert.deepEqual(st.entries.slice(-2).map((e: any) => [e.kind, e.amount, e.date]), [
      ['deposit_release', '-500.00', TODAY],
      ['deposit_refund', '94.00', TODAY],
    ]);
    assert.deepEqual([st.balance, st.heldDeposit], ['0.00', '0.00']);
    const open = (await ok('/billing/ledger/get-open-bills', 'Retrieve', 'Retrieve Open Bills', { accountNumber: 'F-1' }, h.tokens.viewer)).body.data;
    assert.deepEqual([open.bills, open.otherItems], [[], []]);
    assert.deepEqual((await deposits({ refundDue: true })).map((x: any) => [x.accountNumber, x.refunded]), [['F-1', '94.00']]);

    // Posting again is refused and releases nothing twice.
    assertError(await post(termID), 409, 'INVALID_STATE');
    const releases = await h.db.query(`SELECT count(*)::int AS n FROM ledger_entry WHERE kind = 'deposit_release' AND account_id = $1`, [d.accountID]);
    assert.equal(releases.rows[0].n, 1);
    await ledgerOk();
  });

  test('a posting that fails after the release rolls it back; posted again, it releases once', async () => {
    await makeAccount(h, 'F-2');
    const sub = await subscribe('F-2', 'WATER', 'Z1');
    await pay('F-2', '500.00');
    await read(sub, '31/10/2026', 100);
    await read(sub, '20/11/2026', 102);
    await terminate(sub, '20/11/2026');
    const termID = await processTerm(h, { batchCode: 'Z1' });
    // The posting's last writes (its term event) fail: the whole posting, release included, is undone.
    await h.db.query(`CREATE FUNCTION fail_posting() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected: the posting dies'; END $$`);
    await h.db.query(`CREATE TRIGGER fail_posting BEFORE INSERT ON event FOR EACH ROW WHEN (NEW.type = 'term.posted') EXECUTE FUNCTION fail_posting()`);
    try {
      const failed = await post(termID);
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
    } finally {
      await h.db.query('DROP TRIGGER fail_posting ON event');
      await h.db.query('DROP FUNCTION fail_posting()');
    }
    let [d] = await deposits({ accountNumber: 'F-2' });
    assert.deepEqual([d.status, d.endedOn], ['Held', '20/11/2026']);
    assert.deepEqual((await statement('F-2')).entries.map((e: any) => e.kind).sort(), ['deposit', 'payment']);

    assert.equal((await post(termID)).status, 200);
    // 20 of 30 days: standing 100.00; water 2 m3 = 100.00; sewer 10.00; VAT 16% of 210.00 = 33.60; 243.60.
    [d] = await deposits({ accountNumber: 'F-2' });
    assert.deepEqual([d.status, d.applied, d.refunded], ['Released', '243.60', '256.40']);
    const kinds = await h.db.query(`SELECT kind, count(*)::int AS n FROM ledger_entry WHERE account_id = $1 GROUP BY kind ORDER BY kind`, [d.accountID]);
    assert.deepEqual(kinds.rows.map((x) => [x.kind, x.n]), [['bill', 1], ['deposit', 1], ['deposit_refund', 1], ['deposit_release', 1], ['payment', 1]]);
    assert.equal((await statement('F-2')).balance, '0.00');
    await ledgerOk();
  });

  test("Post Account: the terminated subscription's deposit pays its own lines of the account bill, not the other subscription's", async () => {
    await makeAccount(h, 'F-3');
    const leaving = await subscribe('F-3', 'SHARED', 'ZONE-B');
    const staying = await subscribe('F-3', 'SHARED', 'ZONE-B');
    await pay('F-3', '1000.00');
    for (const s of [leaving, staying]) await read(s, '31/10/2026', 100);
    await read(leaving, '15/11/2026', 105);
    await read(staying, '30/11/2026', 110);
    await terminate(leaving, '15/11/2026');
    const termID = await processTerm(h, { serviceCode: 'SHARED', batchCode: 'ZONE-B' });
    assert.equal((await post(termID)).status, 200);
    // One account bill: the leaving group 406.00 (as F-1's), the staying one a full month:
    // 150.00 + 10 m3 x 50 = 500.00 + 50.00 + VAT 16% of 700.00 = 112.00, 812.00. The
    // leaving deposit pays its 406.00 and refunds 94.00; the staying one stays held.
    const b = (await h.db.query('SELECT bill_id, total FROM bill WHERE term_id = $1', [termID])).rows;
    assert.deepEqual(b.map((x) => x.total), ['1218.0000']);
    const list = await deposits({ accountNumber: 'F-3' });
    assert.deepEqual(list.map((x: any) => [x.subscriptionID, x.status, x.applied, x.refunded]), [
      [staying, 'Held', null, null],
      [leaving, 'Released', '406.00', '94.00'],
    ]);
    const st = await statement('F-3');
    assert.deepEqual([st.balance, st.heldDeposit], ['812.00', '500.00']);
    const lines = await h.db.query(`SELECT line_no, amount::text FROM allocation WHERE bill_id = $1 AND released_at IS NULL ORDER BY line_no`, [b[0].bill_id]);
    // The leaving subscription's group comes first (subscription id order): its four lines.
    assert.deepEqual(lines.rows.map((x) => [x.line_no, x.amount]), [[1, '75.0000'], [2, '250.0000'], [3, '25.0000'], [4, '56.0000']]);
    await ledgerOk();
  });

  test('the term of its end date cancelled: the deposit waits, and the next term posted releases it (no bill run will bill that day)', async () => {
    await makeAccount(h, 'F-4');
    const sub = await subscribe('F-4', 'WATER', 'Z2');
    await pay('F-4', '500.00');
    const december = await makeTerm(h, { batchCode: 'Z2', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    await terminate(sub, '15/12/2026');
    assert.equal((await step(h, 'cancel-term', 'Cancel Term', { termID: december })).status, 200);
    let [d] = await deposits({ accountNumber: 'F-4' });
    assert.deepEqual([d.status, d.endedOn], ['Held', '15/12/2026']);
    // January's term has no roster (the only subscription ended in December); posting it releases the deposit in full.
    const january = await processTerm(h, { batchCode: 'Z2', billingPeriodID: 202701, startDate: '01/01/2027', endDate: '31/01/2027' });
    assert.equal((await post(january)).status, 200);
    [d] = await deposits({ accountNumber: 'F-4' });
    assert.deepEqual([d.status, d.applied, d.refunded], ['Released', '0.00', '500.00']);
    await ledgerOk();
  });
});
