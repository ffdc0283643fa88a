// update-subscription replaces unmetered inputs "from date" (interface.md: subscriptionID,
// date). A peer check (Flexprice's quantity-change cases) found the date recorded and
// ignored: 5 seats that became 10 on 15/11 were billed 10 for the whole month, and a
// change dated after the term billed from it. Through HTTP: the preview, the bill and
// verify-bill agree on the bill cut at the change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { waterService } from '../fixtures/tariffs.ts';
import { makeTemplate, makeTerm, postAccountCustomer, processTerm, startRun, step, subscriptions, tariff, termOf, waitForStatus, type Sub } from './fixtures.ts';

const SEATS = waterService('SEATS', {
  values: [],
  meteredInputs: [],
  unmeteredInputs: [{ code: 'SEATS', label: 'Seats', default: 1 }],
  components: [{ code: 'SEATS', name: 'Seats', model: 'perUnit', input: 'SEATS', rate: '10', prorate: true }],
  batches: ['SEATS', 'SEATS2'],
});

describe('unmetered inputs changed from a date', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun());
    await makeTemplate(h, SEATS);
  });
  after(() => close());

  const sub = (op: string, action: string, data: Record<string, unknown>) =>
    h.post(`/billing/subscriptions/${op}`, { method: 'Update', action, apiVersion: 'v2', data }, h.tokens.biller);
  const update = (subscriptionID: string, date: string, seats: number) =>
    h.post('/billing/subscriptions/update-subscription', { method: 'Update', action: 'Update Subscription', apiVersion: 'v2', data: { subscriptionID: Number(subscriptionID), date, unmeteredInputs: { SEATS: seats } } });

  test('a change inside the term bills each value for its days; one dated after it does not reach it; preview, bill and verify-bill agree', async () => {
    const subs = await subscriptions(h, { n: 5, serviceCode: 'SEATS', batchCode: 'SEATS', readings: [], startDate: '2026-01-01' });
    for (const s of subs) await h.db.query(`UPDATE subscription SET unmetered_inputs = '{"SEATS": 5}' WHERE subscription_id = $1`, [s.subscriptionId]);
    const [mid, later, twice, none, same] = subs.map((s) => s.subscriptionId) as [string, string, string, string, string];
    assert.equal((await update(mid, '15/11/2026', 10)).status, 200);
    assert.equal((await update(later, '15/12/2026', 10)).status, 200);
    assert.equal((await update(twice, '11/11/2026', 10)).status, 200);
    assert.equal((await update(twice, '21/11/2026', 2)).status, 200);
    // A date before the last change's is refused on its field: the record would show values
    // no later day bills. So is one before the subscription's start.
    const back = await update(twice, '15/11/2026', 7);
    assert.equal(back.status, 400, JSON.stringify(back.body));
    assert.deepEqual(back.body.error.details.map((d: any) => d.path), ['data.date']);
    assert.match(back.body.error.details[0].message, /21\/11\/2026/);
    const early = await update(none, '31/12/2025', 7);
    assert.equal(early.status, 400, JSON.stringify(early.body));
    assert.deepEqual(early.body.error.details.map((d: any) => d.path), ['data.date']);
    // The same values again (as a change of connection inputs alone records them) cut nothing.
    assert.equal((await update(same, '15/11/2026', 5)).status, 200);

    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 200, JSON.stringify(validated.body));
    const preview = new Map<string, string>(validated.body.data.previewBills.map((b: any) => [String(b.subscriptionID), b.total]));
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Processed']);
    const bills = (await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } })).body.data.bills as any[];
    const bill = (id: string) => bills.find((b) => String(b.subscriptionID) === id);

    // 5 x 10 x 14/30 = 23.333...; 10 x 10 x 16/30 = 53.333...: the seats over the month come to
    // 76.666... -> 76.67, the second line what is left of it, 53.34 (rounded alone, 76.66)
    assert.deepEqual(bill(mid).lines.map((l: any) => [l.quantity, l.amount]), [['5', '23.33'], ['10', '53.34']]);
    assert.equal(bill(mid).total, '76.67');
    // Each line says its segment, in the bill as in the preview (get-bills had it in the trace only).
    assert.deepEqual(bill(mid).lines.map((l: any) => [l.version, l.segment]), [[1, '01/11/2026 to 14/11/2026'], [1, '15/11/2026 to 30/11/2026']]);
    const previewed = validated.body.data.previewBills.find((b: any) => String(b.subscriptionID) === mid);
    assert.deepEqual(previewed.lines.map((l: any) => [l.version, l.segment]), bill(mid).lines.map((l: any) => [l.version, l.segment]));
    // A prorated line says its days beside its quantity and rate, in the bill as in the preview (a new user's walk: "1 x 250 = 137.10").
    assert.deepEqual(bill(mid).lines.map((l: any) => l.prorated), ['14 of 30 days', '16 of 30 days']);
    assert.deepEqual(previewed.lines.map((l: any) => l.prorated), ['14 of 30 days', '16 of 30 days']);
    // The preview's lines are named as the bill's (a new user read componentCode only).
    assert.deepEqual(previewed.lines.map((l: any) => l.name), bill(mid).lines.map((l: any) => l.name));
    assert.deepEqual(Object.keys(bill(none).lines[0]).filter((k) => k === 'version' || k === 'segment'), [], 'a bill of one segment says none');
    assert.match(bill(mid).lines[1].explanation, /15\/11\/2026 to 30\/11\/2026 \(16 day\(s\) billed\); Seats 10|SEATS 10/);
    // Dated in December: November is billed at 5 seats.
    assert.equal(bill(later).total, '50.00');
    // 5 until 10/11 (10 days), 10 from 11/11 to 20/11 (10 days), 2 from 21/11 (10 days): 16.67 + 33.33 + 6.67
    assert.deepEqual(bill(twice).lines.map((l: any) => [l.quantity, l.amount]), [['5', '16.67'], ['10', '33.33'], ['2', '6.67']]);
    assert.equal(bill(none).total, '50.00');
    assert.deepEqual(bill(same).lines.map((l: any) => [l.quantity, l.amount]), [['5', '50.00']]);

    for (const b of bills) {
      assert.equal(preview.get(String(b.subscriptionID)), b.total, `preview of ${b.subscriptionID}`);
      const v = await h.post('/billing/bills/verify-bill', { method: 'Retrieve', action: 'Verify Bill', apiVersion: 'v2', data: { billID: b.billID } });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.body.data.matches, true, JSON.stringify(v.body.data));
    }

    // New values dated into the processed term would no longer match its bills: refused, as a
    // dated template version is, naming the term; dated after it, accepted. The same values
    // again change nothing and are accepted.
    const into = await update(none, '20/11/2026', 8);
    assert.equal(into.status, 409, JSON.stringify(into.body));
    assert.deepEqual(into.body.error.details.map((d: any) => d.path), ['data.date']);
    assert.match(into.body.message, new RegExp(`reaches term ${termID} \\(billing to 30/11/2026\\), which is Processed`));
    assert.equal((await update(none, '01/12/2026', 8)).status, 200);
  });

  test('a change dated into a validated term sends it back to be validated again', async () => {
    const [sub] = await subscriptions(h, { n: 1, serviceCode: 'SEATS', batchCode: 'SEATS2', readings: [], startDate: '2026-01-01', prefix: 'V' });
    await h.db.query(`UPDATE subscription SET unmetered_inputs = '{"SEATS": 5}' WHERE subscription_id = $1`, [sub!.subscriptionId]);
    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS2', billingPeriodID: 202612, startDate: '01/12/2026', endDate: '31/12/2026' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    const first = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(first.body.data.preview.totals.total, '50.00');
    assert.equal((await termOf(h, { termID })).status, 'Validated');
    assert.equal((await update(sub!.subscriptionId, '16/12/2026', 10)).status, 200);
    assert.equal((await termOf(h, { termID })).status, 'Loaded');
    // 5 x 10 x 15/31 = 24.19; 10 x 10 x 16/31 = 51.61 (75.81 rounded once)
    const again = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(again.body.data.preview.totals.total, '75.81');
  });

  test('a suspension, a resumption, an end or a move dated into an approved term is refused on its date; a validated term goes back to Loaded', async () => {
    // An attacker suspended and terminated subscriptions inside an approved term: the bills
    // came to 26.13 and 39.19 on previews of 81.00.
    const subs = await subscriptions(h, { n: 5, serviceCode: 'SEATS', batchCode: 'SEATS', readings: [], startDate: '2026-01-01', prefix: 'A' });
    const [a, b, c, d, e] = subs.map((x) => Number(x.subscriptionId)) as [number, number, number, number, number];
    assert.equal((await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: c, date: '20/01/2027' })).status, 200);
    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS', billingPeriodID: 202701, startDate: '01/01/2027', endDate: '31/01/2027' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h, 'validate-term', 'Validate Term', { termID })).status, 200);
    assert.equal((await step(h, 'approve-term', 'Approve Term', { termID })).status, 200);
    const refused = [
      [await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: a, date: '11/01/2027' }), 'data.date'],
      [await sub('terminate-subscription', 'Terminate Subscription', { subscriptionID: b, endDate: '15/01/2027' }), 'data.endDate'],
      [await sub('resume-subscription', 'Resume Subscription', { subscriptionID: c, date: '25/01/2027' }), 'data.date'],
      [await sub('move-subscription', 'Move Subscription', { subscriptionID: d, date: '16/01/2027', batchCode: 'SEATS2' }), 'data.date'],
    ] as const;
    for (const [r, path] of refused) {
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.deepEqual(r.body.error.details.map((x: any) => x.path), [path]);
      assert.match(r.body.message, new RegExp(`reaches term ${termID} \\(billing to 31/01/2027\\), which is Approved`));
    }
    // An end on the term's last day changes none of its days; a suspension after it reaches nothing.
    assert.equal((await sub('terminate-subscription', 'Terminate Subscription', { subscriptionID: e, endDate: '31/01/2027' })).status, 200);
    assert.equal((await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: a, date: '01/02/2027' })).status, 200);
    const validated = await step(h, 'validate-term', 'Validate Term', { termID });
    assert.equal(validated.status, 409, 'still approved');
    assert.equal((await termOf(h, { termID })).status, 'Approved');

    // Into a validated term: accepted, and the term must be validated again.
    const [f] = await subscriptions(h, { n: 1, serviceCode: 'SEATS', batchCode: 'SEATS2', readings: [], startDate: '2026-01-01', prefix: 'B' });
    const next = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS2', billingPeriodID: 202702, startDate: '01/02/2027', endDate: '28/02/2027' });
    assert.equal((await step(h, 'load-subscriptions', 'Load Term Subscriptions', { termID: next })).status, 200);
    assert.equal((await step(h, 'validate-term', 'Validate Term', { termID: next })).status, 200);
    assert.equal((await sub('terminate-subscription', 'Terminate Subscription', { subscriptionID: Number(f!.subscriptionId), endDate: '14/02/2027' })).status, 200);
    assert.equal((await termOf(h, { termID: next })).status, 'Loaded');
  });

  // A reviewer's cases: an end moved later adds days; a subscription suspended for a whole
  // term is off its roster, and resuming it inside the term would leave days billed by no term.
  test('an end moved later, and a resumption of a subscription off the roster, are refused in an approved term', async () => {
    const [x, r] = (await subscriptions(h, { n: 2, serviceCode: 'SEATS', batchCode: 'SEATS', readings: [], startDate: '2026-01-01', prefix: 'E' })).map((v) => Number(v.subscriptionId)) as [number, number];
    await h.db.query(`UPDATE subscription SET end_date = '2027-04-15' WHERE subscription_id = $1`, [x]);
    assert.equal((await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: r, date: '01/03/2027' })).status, 200);
    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS', billingPeriodID: 202704, startDate: '01/04/2027', endDate: '30/04/2027' });
    for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term']] as const) assert.equal((await step(h, n, a, { termID })).status, 200);
    // Ending on 30/04 instead of 15/04 adds 16 days to the approved term (preview 5.00, the bill would be 10.00).
    const later = await sub('terminate-subscription', 'Terminate Subscription', { subscriptionID: x, endDate: '30/04/2027' });
    assert.equal(later.status, 409, JSON.stringify(later.body));
    assert.match(later.body.message, new RegExp(`reaches term ${termID} \\(billing to 30/04/2027\\), which is Approved with this subscription`));
    const resumed = await sub('resume-subscription', 'Resume Subscription', { subscriptionID: r, date: '15/04/2027' });
    assert.equal(resumed.status, 409, JSON.stringify(resumed.body));
    assert.match(resumed.body.message, /without this subscription on its roster: the days it adds would be billed by no term/);
    // After the term, both are taken.
    assert.equal((await sub('resume-subscription', 'Resume Subscription', { subscriptionID: r, date: '01/05/2027' })).status, 200);
  });

  test('a subscription made with a start inside an approved or billed term is refused on its start date; after the term it is taken', async () => {
    // An attacker's finding: made on 05/11 from 15/10 after October was billed, its days
    // from 15/10 to 31/10 were billed by no term.
    const acct = await h.post('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { accountNumber: 'NEW-1', name: 'New customer' } }, h.tokens.biller);
    assert.equal(acct.status, 200, JSON.stringify(acct.body));
    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS2', billingPeriodID: 202706, startDate: '01/06/2027', endDate: '30/06/2027' });
    for (const [n, a] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term']] as const) assert.equal((await step(h, n, a, { termID })).status, 200);
    const make = (startDate: string) =>
      h.post('/billing/subscriptions/make-subscription', { method: 'Create', action: 'Create Subscription', apiVersion: 'v2', data: { accountNumber: 'NEW-1', serviceCode: 'SEATS', batchCode: 'SEATS2', startDate } }, h.tokens.biller);
    const inside = await make('15/06/2027');
    assert.equal(inside.status, 409, JSON.stringify(inside.body));
    assert.deepEqual(inside.body.error.details.map((d: any) => d.path), ['data.startDate']);
    assert.match(inside.body.message, new RegExp(`A subscription from 15/06/2027 reaches term ${termID} \\(billing to 30/06/2027\\), which is Approved without this subscription on its roster: the days it adds would be billed by no term\\. Date it after 30/06/2027`));
    // Nothing was written: no subscription of the account.
    assert.equal((await h.db.query(`SELECT count(*)::int AS n FROM subscription s JOIN account a ON a.account_id = s.account_id WHERE a.account_number = 'NEW-1'`)).rows[0].n, 0);
    // Before the approved term, not billed yet: refused too, since its roster is frozen without it.
    assert.equal((await make('01/01/2027')).status, 409);
    assert.equal((await make('01/07/2027')).status, 200);
    // Once the term has billed, a start before its first day is history (billed elsewhere until then): taken.
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    await waitForStatus(h, termID, ['Processed']);
    assert.equal((await make('16/06/2027')).status, 409);
    assert.equal((await make('01/01/2027')).status, 200);
  });

  test('a subscription that failed in a processed term takes new values from a date inside it, and retry-failures bills it alone', async () => {
    // An attacker's case: a failure caused by an unmetered input could not be fixed without
    // reversing the whole term, because every change dated into it was refused.
    const subs = await subscriptions(h, { n: 2, serviceCode: 'SEATS', batchCode: 'SEATS', readings: [], startDate: '2026-01-01', prefix: 'F' });
    const [good, bad] = subs.map((x) => x.subscriptionId) as [string, string];
    // Too many seats to bill (the API refuses such a value now; an older record may hold one).
    await h.db.query(`UPDATE subscription SET unmetered_inputs = '{"SEATS": 100000000000000000000}' WHERE subscription_id = $1`, [bad]);
    const termID = await makeTerm(h, { serviceCode: 'SEATS', batchCode: 'SEATS', billingPeriodID: 202703, startDate: '01/03/2027', endDate: '31/03/2027' });
    assert.equal((await step(h, 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h, termID, ['Processed']);
    assert.equal(t.counts.failures, 1, JSON.stringify(t));
    // The billed subscription is still held to its bill; the failed one takes the fix.
    assert.equal((await update(good, '10/03/2027', 3)).status, 409);
    const fixed = await update(bad, '01/03/2027', 4);
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal((await step(h, 'retry-failures', 'Retry Term Failures', { termID })).status, 200);
    await waitForStatus(h, termID, ['Processed']);
    const bills = (await h.post('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { termID } })).body.data.bills as any[];
    const ours = bills.filter((b) => [good, bad].includes(String(b.subscriptionID)));
    assert.deepEqual(ours.map((b) => [String(b.subscriptionID), b.total]).sort(), [[good, '10.00'], [bad, '40.00']].sort());
  });
});

describe('changes dated into terms of Post Account and Prepaid templates', () => {
  let h: Harness;
  let close: () => Promise<void>;
  before(async () => {
    ({ h, close } = await startRun({}, [tariff('WATER', { postType: 'Post Account' }), tariff('PRE', { chargingType: 'Prepaid', batches: ['ZONE-P'] })]));
  });
  after(() => close());
  const sub = (op: string, action: string, data: Record<string, unknown>) =>
    h.post(`/billing/subscriptions/${op}`, { method: 'Update', action, apiVersion: 'v2', data }, h.tokens.biller);

  test("a subscription billed on its account's bill is held to it in a processed term", async () => {
    // A reviewer's finding: the bill looked for was the subscription's own, and an account bill has none.
    const a = await postAccountCustomer(h, 'ACC-A', [25, 5]);
    const termID = await processTerm(h);
    assert.equal((await termOf(h, { termID })).status, 'Processed');
    const r = await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: Number(a.subs[0]), date: '15/11/2026' });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.match(r.body.message, /which is Processed with this subscription/);
  });

  test("a Prepaid term's coming period is reached: an end or a suspension dated in it is refused once the term is approved", async () => {
    // A reviewer's finding: an end on the term's last day passed, and the December advance was dropped (2151.80 billed on a preview of 2325.80).
    const [a, c] = (await subscriptions(h, { n: 2, serviceCode: 'PRE', batchCode: 'ZONE-P', readings: [['2026-10-31', 100], ['2026-11-30', 125]] })) as [Sub, Sub];
    const termID = await makeTerm(h, { serviceCode: 'PRE', batchCode: 'ZONE-P', billingPeriodID: 202611, startDate: '01/11/2026', endDate: '30/11/2026' });
    for (const [n, x] of [['load-subscriptions', 'Load Term Subscriptions'], ['validate-term', 'Validate Term'], ['approve-term', 'Approve Term']] as const) assert.equal((await step(h, n, x, { termID })).status, 200);
    const end = await sub('terminate-subscription', 'Terminate Subscription', { subscriptionID: Number(a.subscriptionId), endDate: '30/11/2026' });
    assert.equal(end.status, 409, JSON.stringify(end.body));
    assert.match(end.body.message, new RegExp(`reaches term ${termID} \\(billing to 31/12/2026\\)`));
    assert.equal((await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: Number(c.subscriptionId), date: '01/12/2026' })).status, 409);
    assert.equal((await sub('suspend-subscription', 'Suspend Subscription', { subscriptionID: Number(c.subscriptionId), date: '01/01/2027' })).status, 200);
  });
});
