// An outside check against published utility tariffs (2026-11-27): each tariff expressed
// through make-service (and update-service for a dated change), accounts, subscriptions and
// readings made through their operations, a term run through the bill-run steps by the
// worker, and the bill read back with get-bills and compared with the amount worked out by
// hand from the utility's published rule. Each test here failed when written.
//
// What held (not tested again here): a US electric residential bill (customer charge,
// three inclining blocks, a fuel rider per kWh, two riders as a percentage of base, a
// franchise fee on those, sales tax on all), a UK business gas bill across a price change
// (standing charge per day, m3 converted to kWh, Climate Change Levy, VAT 20%), an
// Australian quarterly water bill with yearly blocks prorated by the reading period's days
// across a 1 July price change, a US gas bill in therms (new connection, roll-over,
// suspension, estimate), a municipal Post Account bill with rounded steps, sewer as a
// percentage, VAT and rounding to 5 cents, and a correction of a segmented bill with its
// follower: every line and total agreed with the hand-worked amount.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startRun, waitForStatus } from '../terms/fixtures.ts';
import { fetchFile, needsPoppler, pdfText } from '../documents/support.ts';

const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
const termEnv = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', operation: 'schedule', data });

let h: Harness;
let close: () => Promise<void>;
before(async () => {
  ({ h, close } = await startRun({}, []));
});
after(() => close());

async function ok(path: string, body: unknown): Promise<any> {
  const r = await h.post(path, body);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r;
}
const makeService = (service: unknown) => ok('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
const updateService = (service: unknown, effectiveFrom: string) =>
  ok('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', effectiveFrom, service });

/** An account with one subscription (opening reading on `openDate`), then the readings given; answers the subscription's id. */
async function customer(o: { account: string; serviceCode: string; batchCode: string; meter: string; open: string; openDate: string; readings: [string, string][] }): Promise<number> {
  await ok('/billing/accounts/make-account', env('Create', 'Create Account', { accountNumber: o.account, name: `Customer ${o.account}` }));
  const s = await ok(
    '/billing/subscriptions/make-subscription',
    env('Create', 'Create Subscription', { accountNumber: o.account, serviceCode: o.serviceCode, batchCode: o.batchCode, startDate: '01/01/2026', openingReadings: { [o.meter]: o.open }, readingDate: o.openDate }),
  );
  const subscriptionID = Number(s.headers.get('x-billrun-subscription-id'));
  await ok(
    '/billing/readings/capture-readings',
    env('Create', 'Capture Readings', { readings: o.readings.map(([readingDate, value]) => ({ subscriptionID, inputCode: o.meter, readingDate, value })) }),
  );
  return subscriptionID;
}

/** make-term, then load, validate, approve and process; answers the term's bills once it is Processed (or Posted). */
async function billTerm(data: Record<string, unknown>): Promise<any[]> {
  const m = await ok('/billing/terms/make-term', termEnv('Create', 'Create Bill Term', data));
  const termID = Number(m.headers.get('x-billrun-term-id'));
  for (const [name, action] of [
    ['load-subscriptions', 'Load Term Subscriptions'],
    ['validate-term', 'Validate Term'],
    ['approve-term', 'Approve Term'],
    ['process-term', 'Process Term'],
  ] as const) {
    await ok(`/billing/terms/${name}`, termEnv('Update', action, { termID }));
  }
  const t = await waitForStatus(h, termID, ['Processed', 'Posted', 'Failed']);
  assert.notEqual(t.status, 'Failed', JSON.stringify(t));
  const r = await ok('/billing/bills/get-bills', env('Retrieve', 'Retrieve Bills', { termID }));
  return r.body.data.bills;
}

describe('a bill spanning a seasonal change of a daily baseline allowance (PG&E-style E-1)', () => {
  // PG&E's residential tariff E-1 prices energy in two tiers: up to the baseline quantity, and
  // above it. The baseline quantity is a daily allowance (kWh a day, by season and territory)
  // times the days of the billing period; when the period spans the change of season (1 June:
  // winter to summer) each season's daily allowance counts for its own days (PG&E Electric
  // Rule 19 / tariff E-1, "Baseline quantities ... are prorated by the number of days in each
  // season"). Here winter 12.1 kWh a day, summer 16.4; tier 1 at 0.40, tier 2 at 0.50;
  // allowance rounded to whole kWh.
  //
  // Meter read 20000 on 17/05/2026 and 20600 on 17/06/2026: 600 kWh over 31 days, 14 of them
  // (18/05 to 31/05) in winter and 17 (01/06 to 17/06) in summer.
  //   baseline = 12.1 x 14 + 16.4 x 17 = 169.4 + 278.8 = 448.2, 448 kWh (rounded once;
  //   each season rounded alone, 169 + 279, is 448 too)
  //   energy = 448 x 0.40 + 152 x 0.50 = 179.20 + 76.00 = 255.20
  //
  // In billrun: tierProration { period: readingPeriod, basisDays: 1, decimals: 0, halfUp },
  // tier 1 upTo 12.1 (version 1) and 16.4 (version 2, effective 01/06/2026). The summer
  // segment's allowance is rounded "on the running total of days" with the summer daily
  // allowance applied to the winter days too: round(16.4 x 31) - round(16.4 x 14) = 508 - 230
  // = 278, so the bill's baseline is 169 + 278 = 447 kWh (16.4 x 17 = 278.8 is nowhere near
  // 278), and energy 255.30. docs/rating.md ("Tier bounds") says the running total is there
  // "so the segments' bounds add up to the bound the bill would have": here they add up to
  // 447, which is neither the bill's 448.2 rounded (448) nor the seasons' own (169 + 279).
  const tariff = (baseline: string) => ({
    code: 'E1',
    name: 'Residential E-1',
    serviceType: 'Sale',
    chargingType: 'Postpaid',
    postType: 'Post Subscription',
    billingCycle: 1,
    dueDateOffset: 20,
    meteredInputs: [{ code: 'KWH', label: 'Electric meter', unit: 'kWh', decimals: 0, rolloverAt: 100000 }],
    components: [
      {
        code: 'ENERGY',
        name: 'Energy charges',
        model: 'graduated',
        input: 'KWH',
        tiers: [
          { upTo: baseline, rate: '0.40' },
          { upTo: null, rate: '0.50' },
        ],
        tierProration: { period: 'readingPeriod', basisDays: 1, decimals: 0, rounding: 'halfUp' },
      },
    ],
    batches: ['E1-ROUTE'],
  });

  test('baseline 12.1 kWh/day x 14 winter days + 16.4 x 17 summer days = 448 kWh at tier 1: energy 255.20, not 255.30', async () => {
    await makeService(tariff('12.1'));
    await updateService(tariff('16.4'), '01/06/2026');
    await customer({ account: 'E1-1', serviceCode: 'E1', batchCode: 'E1-ROUTE', meter: 'KWH', open: '20000', openDate: '17/05/2026', readings: [['17/06/2026', '20600']] });
    const [bill] = await billTerm({ serviceCode: 'E1', batchCode: 'E1-ROUTE', billingPeriodID: 202606, startDate: '18/05/2026', endDate: '17/06/2026' });
    const energy = bill.lines.filter((l: any) => l.componentCode === 'ENERGY');
    assert.equal(energy.length, 2, 'one line per season');
    const tier1 = energy.map((l: any) => Number(l.trace.tiers[0].quantity));
    // Winter's part: 12.1 x 14 = 169.4, 169; summer's: 16.4 x 17 = 278.8, 279 (or 448 - 169).
    assert.equal(tier1[0], 169);
    assert.equal(tier1[0] + tier1[1], 448, `baseline ${tier1.join(' + ')} kWh; 12.1 x 14 + 16.4 x 17 = 448.2`);
    assert.equal(bill.total, '255.20');
  });
});

describe("a final bill paid by the customer's security deposit", { skip: needsPoppler() }, () => {
  // A utility's final bill on a move-out applies the security deposit held to it and refunds
  // the rest, and says so on the bill: "Security deposit applied -34.52 ... Refund due to
  // you 65.48", never "Total due 34.52" (e.g. a municipal water final account, or a US
  // utility's closing bill: "deposit plus interest applied to your final bill"). product.md:
  // securityDeposit is "held on the account apart from its balance, applied to the final bill
  // and the rest refunded when it is terminated"; the bill's document shows "the total due".
  //
  // Deposit 100.00 paid on 01/10/2026; moved out on 15/10/2026 with the meter at 1010 (1000
  // on 30/09). Final bill: service 30.00 x 15/31 = 14.516..., 14.52; water 10 kL x 2.00 =
  // 20.00; total 34.52. Posting applies the deposit (the statement: deposit_release -100.00,
  // deposit_refund 65.48, balance 0.00): nothing is due and 65.48 comes back. The bill's
  // document asks "Total due: 34.52 USD by 20/11/2026" and says nothing of the deposit
  // applied or the refund, so a customer pays 34.52 a second time.
  test('the final bill document says the deposit paid it, not "Total due: 34.52"', async () => {
    await makeService({
      code: 'DEPOSIT',
      name: 'Water with a deposit',
      serviceType: 'Sale',
      chargingType: 'Postpaid',
      postType: 'Post Subscription',
      billingCycle: 1,
      dueDateOffset: 20,
      postBilling: 1,
      securityDeposit: '100.00',
      meteredInputs: [{ code: 'W', label: 'Water meter', unit: 'kL', decimals: 0, rolloverAt: 100000 }],
      components: [
        { code: 'SVC', name: 'Service', model: 'flat', amount: '30.00' },
        { code: 'USE', name: 'Water', model: 'perUnit', input: 'W', rate: '2.00' },
      ],
      batches: ['DEP-ROUTE'],
    });
    const subscriptionID = await customer({ account: 'DEP-1', serviceCode: 'DEPOSIT', batchCode: 'DEP-ROUTE', meter: 'W', open: '1000', openDate: '30/09/2026', readings: [['15/10/2026', '1010']] });
    await ok('/billing/payments/make-payment', env('Create', 'Create Payment', { accountNumber: 'DEP-1', amount: '100.00', paymentDate: '01/10/2026', reference: 'DEP-1-PAY', channel: 'bank' }));
    await ok('/billing/subscriptions/terminate-subscription', env('Update', 'Terminate Subscription', { subscriptionID, endDate: '15/10/2026', reason: 'moved out' }));
    const [bill] = await billTerm({ serviceCode: 'DEPOSIT', batchCode: 'DEP-ROUTE', billingPeriodID: 202610, startDate: '01/10/2026', endDate: '31/10/2026' });
    assert.equal(bill.total, '34.52');
    const st = await ok('/billing/ledger/get-statement', env('Retrieve', 'Retrieve Statement', { accountNumber: 'DEP-1' }));
    const kinds = st.body.data.statement.entries.map((e: any) => `${e.kind} ${e.amount}`);
    assert.ok(kinds.includes('deposit_release -100.00') && kinds.includes('deposit_refund 65.48'), kinds.join(', '));
    assert.equal(st.body.data.statement.balance, '0.00');

    let pdf: Awaited<ReturnType<typeof fetchFile>> | undefined;
    for (let i = 0; i < 300; i++) {
      pdf = await fetchFile(h, '/billing/documents/get-bill-document', env('Retrieve', 'Retrieve Bill Document', { billID: bill.billID }));
      if (pdf.status !== 409) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(pdf!.status, 200);
    const text = pdfText(pdf!.bytes);
    assert.doesNotMatch(text, /Total due: 34\.52/, 'the deposit paid this bill; the customer owes nothing and is owed 65.48');
    assert.match(text, /65\.48/, 'the refund of the rest of the deposit');
  });
});
