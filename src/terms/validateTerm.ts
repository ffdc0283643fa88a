import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import type { Caller } from '../auth/roles.ts';
import { Dec } from '../rating/index.ts';
import { moveTerm } from './states.ts';
import { lockTerm, setStatus } from './store.ts';
import { loadRosterInputs, rateRoster, runContext } from './rateRoster.ts';
import { countReadings, estimateMissing, unusualConsumption } from './checkReadings.ts';
import { rosterSlices } from './planRun.ts';
import type { PreviewBill, TermException, Totals } from './schemas.ts';

const STORED_EXCEPTIONS = 100;

export type Validation = {
  exceptions: TermException[];
  exceptionCount: number;
  estimated: number;
  preview: { bills: number; failures: number; totals: Totals };
  previewBills: PreviewBill[];
};

/**
 * Step 4: a dry run of the whole roster through the code that bills (rateRoster), so
 * every subscription that could not be billed shows as an exception and the preview's
 * amounts are the bills' amounts; plus warnings for consumption far from history.
 * With estimateMissing, missing readings are first estimated from history and recorded.
 */
export async function validateTerm(
  db: pg.Pool,
  caller: Caller,
  termId: number,
  opts: { estimateMissing?: boolean; previewLimit?: number; chunkSize: number },
): Promise<Validation> {
  return inTransaction(db, async (tx) => {
    const term = await lockTerm(tx, caller.appCode, termId);
    if (!term) throw notFound('term', 'data.termID');
    const status = moveTerm(term.status, 'validate');
    const ctx = await runContext(tx, term, null);
    const estimated = opts.estimateMissing ? await estimateMissing(tx, ctx, caller.email) : 0;
    const limit = opts.previewLimit ?? 100;

    const exceptions: TermException[] = [];
    const previewBills: PreviewBill[] = [];
    let bills = 0;
    let failures = 0;
    const sum = { charges: new Dec(0), tax: new Dec(0), total: new Dec(0), balanceBroughtForward: new Dec(0), totalDue: new Dec(0) };
    for (const [from, to] of await rosterSlices(tx, term.term_id, opts.chunkSize)) {
      const { rated, failed } = await rateRoster(ctx, await loadRosterInputs(tx, ctx, from, to));
      for (const f of failed) {
        failures++;
        exceptions.push({
          subscriptionID: Number(f.input.subscriptionId),
          accountID: Number(f.input.accountId),
          code: f.code,
          severity: 'error',
          message: f.reason,
          ...(f.details[0] ? { path: f.details[0].path } : {}),
        });
      }
      for (const { input, bill } of rated) {
        bills++;
        for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] = sum[k].plus(bill[k]);
        if (previewBills.length < limit) {
          previewBills.push({
            subscriptionID: Number(input.subscriptionId),
            accountID: Number(input.accountId),
            charges: bill.charges,
            tax: bill.tax,
            total: bill.total,
            balanceBroughtForward: bill.balanceBroughtForward,
            totalDue: bill.totalDue,
            estimated: bill.estimated,
            lines: bill.lines.map((l) => ({ componentCode: l.componentCode, quantity: l.quantity, ...(l.rate !== undefined ? { rate: l.rate } : {}), amount: l.amount })),
          });
        }
      }
    }
    exceptions.push(...(await unusualConsumption(tx, ctx)));
    const totals = Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v.toFixed(ctx.minorUnits)])) as Totals;
    await setStatus(
      tx,
      term.term_id,
      status,
      caller.email,
      'validated_at = now(), exceptions = $4, exception_count = $5, reading_count = $6',
      [JSON.stringify(exceptions.slice(0, STORED_EXCEPTIONS)), exceptions.length, await countReadings(tx, ctx)],
    );
    return { exceptions: exceptions.slice(0, 1000), exceptionCount: exceptions.length, estimated, preview: { bills, failures, totals }, previewBills };
  });
}
