// validate-term's dry run: the whole roster rated by the code that bills (rateRoster),
// nothing written. Its failures are the exceptions, its bills the preview.
import type { Queryable } from '../db/pool.ts';
import { sumBills, totalsText, type BillTotals } from '../rating/index.ts';
import type { TermException } from './schemas.ts';
import type { PreviewBill, Totals } from '../bills/schemas.ts';
import { loadRosterInputs, rateRoster, type RunContext } from './rateRoster.ts';
import { rosterSlices } from './roster.ts';
import { formatDate } from '../calendar/calendar.ts';

export type DryRun = { exceptions: TermException[]; bills: number; failures: number; totals: Totals; previewBills: PreviewBill[] };

export async function dryRun(db: Queryable, ctx: RunContext, o: { chunkSize: number; previewLimit: number }): Promise<DryRun> {
  const exceptions: TermException[] = [];
  const previewBills: PreviewBill[] = [];
  let totals: BillTotals | undefined;
  let bills = 0;
  let failures = 0;
  for (const [from, to] of await rosterSlices(db, ctx.termId, o.chunkSize)) {
    const chunk = await rateRoster(ctx, await loadRosterInputs(db, ctx, from, to));
    for (const f of chunk.failed) {
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
    totals = sumBills(chunk.rated.map((r) => r.bill), totals);
    bills += chunk.rated.length;
    for (const { input, bill } of chunk.rated) {
      if (previewBills.length < o.previewLimit) {
        previewBills.push({
          subscriptionID: Number(input.subscriptionId),
          accountID: Number(input.accountId),
          charges: bill.charges,
          tax: bill.tax,
          total: bill.total,
          balanceBroughtForward: bill.balanceBroughtForward,
          totalDue: bill.totalDue,
          estimated: bill.estimated,
          lines: bill.lines.map((l) => ({
            componentCode: l.componentCode,
            quantity: l.quantity,
            ...(l.rate !== undefined ? { rate: l.rate } : {}),
            amount: l.amount,
            ...(l.trace.segment === undefined ? {} : { version: l.trace.segment.version, segment: `${formatDate(l.trace.segment.start)} to ${formatDate(l.trace.segment.end)}` }),
          })),
          ...(bill.segments === undefined
            ? {}
            : { segments: bill.segments.map((g) => ({ version: g.version, startDate: formatDate(g.start), endDate: formatDate(g.end), days: g.days })) }),
        });
      }
    }
  }
  return { exceptions, bills, failures, totals: totalsText(totals ?? sumBills([]), ctx.minorUnits), previewBills };
}
