// What the corrections' end-to-end tests share: calls through HTTP that must succeed, a
// term made, run and posted, and the reads a correction is checked by (bills, statement,
// check-ledger).
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { makeTerm, step, waitForStatus, type Sub } from '../terms/fixtures.ts';

export const envelope = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });

export function correctionCalls(h: () => Harness) {
  /** A call that must answer 200 (as a biller unless told); its data. */
  async function ok(path: string, body: unknown, token = h().tokens.biller) {
    const r = await h().post(path, body, token);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    return r.body.data;
  }

  /** Makes, runs and posts a term of the batch; answers its id. */
  async function postedTerm(data: Record<string, unknown>, failures = 0): Promise<number> {
    const termID = await makeTerm(h(), data);
    assert.equal((await step(h(), 'load-subscriptions', 'Load Term Subscriptions', { termID })).status, 200);
    assert.equal((await step(h(), 'process-term', 'Process Term', { termID })).status, 200);
    const t = await waitForStatus(h(), termID, ['Processed', 'Failed']);
    assert.equal(t.status, 'Processed', JSON.stringify(t));
    assert.equal(t.counts.failures, failures);
    assert.equal((await step(h(), 'post-term', 'Post Term', { termID })).status, 200);
    return termID;
  }

  const billsOf = async (filter: Record<string, unknown>) => (await ok('/billing/bills/get-bills', envelope('Retrieve', 'Retrieve Bills', filter), h().tokens.viewer)).bills;
  const accountNumberOf = async (s: Pick<Sub, 'accountId'>) =>
    (await h().db.query('SELECT account_number FROM account WHERE account_id = $1', [s.accountId])).rows[0].account_number as string;
  const statementOf = async (s: Pick<Sub, 'accountId'>) =>
    (await ok('/billing/ledger/get-statement', envelope('Retrieve', 'Retrieve Statement', { accountNumber: await accountNumberOf(s) }), h().tokens.viewer)).statement;
  const ledgerOk = async () => {
    const c = (await ok('/billing/ledger/check-ledger', envelope('Retrieve', 'Check Ledger', {}), h().tokens.viewer)).check;
    assert.deepEqual(c.problems, []);
    assert.equal(c.ok, true);
  };
  /** Corrects the reading of a subscription's meter on a date (correct-reading). */
  const correctReading = async (s: Pick<Sub, 'subscriptionId'>, date: string, value: string) => {
    const r = await h().db.query('SELECT reading_id FROM reading WHERE subscription_id = $1 AND reading_date = $2 ORDER BY reading_id DESC LIMIT 1', [s.subscriptionId, date]);
    await ok('/billing/readings/correct-reading', envelope('Update', 'Correct Reading', { readingID: Number(r.rows[0].reading_id), value, note: 'misread' }));
  };
  /** Records an actual reading of the subscription's METER (capture-readings). */
  const capture = (s: Pick<Sub, 'subscriptionId'>, date: string, value: number) =>
    ok('/billing/readings/capture-readings', envelope('Create', 'Capture Readings', { readings: [{ subscriptionID: Number(s.subscriptionId), inputCode: 'METER', readingDate: date, value, kind: 'actual' }] }));
  /** The subscription's live bills, oldest term first: [termID, water m3]. */
  const liveWater = async (s: Sub) => {
    const bills = (await billsOf({ accountID: Number(s.accountId) })) as any[];
    return bills
      .filter((b) => b.status !== 'cancelled' && b.subscriptionID === Number(s.subscriptionId))
      .sort((x, y) => x.termID - y.termID)
      .map((b) => [b.termID, b.lines.find((l: any) => l.componentCode === 'WATER').quantity]);
  };
  /** The subscription's live bill in the term. */
  const billOf = async (s: Sub, termID: number) =>
    ((await billsOf({ accountID: Number(s.accountId), termID })) as any[]).find((b) => b.status !== 'cancelled' && b.subscriptionID === Number(s.subscriptionId));
  return { ok, postedTerm, billsOf, accountNumberOf, statementOf, ledgerOk, correctReading, capture, liveWater, billOf };
}

/** A 2026 month of a batch, as make-term takes it. */
export const month2026 = (batchCode: string, m: number) => {
  const end = new Date(Date.UTC(2026, m, 0)).getUTCDate();
  const mm = String(m).padStart(2, '0');
  return { batchCode, billingPeriodID: Number(`2026${mm}`), startDate: `01/${mm}/2026`, endDate: `${end}/${mm}/2026` };
};
