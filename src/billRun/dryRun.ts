// validate-term's dry run: the whole roster rated by the code that bills (rateRoster),
// nothing written. Its failures are the exceptions, its bills the preview.
import type { Queryable } from '../db/pool.ts';
import { sumBills, totalsText, type BillTotals, type RatedLine } from '../rating/index.ts';
import type { TermException } from './schemas.ts';
import type { PreviewBill, Totals } from '../bills/schemas.ts';
import { loadRosterInputs, rateRoster, type FailedEntry, type RunContext } from './rateRoster.ts';
import { accountSlices, loadAccountInputs, rateAccounts, sumAccountBills } from './accountRun.ts';
import { rosterSlices } from './roster.ts';
import { formatDate } from '../calendar/calendar.ts';
import { lineDays } from '../bills/explain.ts';
import { datedDetails } from './checkReadings.ts';

export type DryRun = { exceptions: TermException[]; bills: number; failures: number; totals: Totals; previewBills: PreviewBill[] };

export async function dryRun(db: Queryable, ctx: RunContext, o: { chunkSize: number; previewLimit: number; postAccount?: boolean }): Promise<DryRun> {
  const exceptions: TermException[] = [];
  const previewBills: PreviewBill[] = [];
  let totals: BillTotals | undefined;
  let bills = 0;
  let failures = 0;
  if (o.postAccount) return accountDryRun(db, ctx, o);
  for (const [from, to] of await rosterSlices(db, ctx.termId, o.chunkSize)) {
    const chunk = await rateRoster(ctx, await loadRosterInputs(db, ctx, from, to));
    for (const f of chunk.failed) {
      failures++;
      exceptions.push(...exceptionsOf(f, ctx));
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
          lines: bill.lines.map((l) => previewLine(l)),
          ...(bill.segments === undefined
            ? {}
            : { segments: bill.segments.map((g) => ({ version: g.version, startDate: formatDate(g.start), endDate: formatDate(g.end), days: g.days })) }),
        });
      }
    }
  }
  return { exceptions, bills, failures, totals: totalsText(totals ?? sumBills([]), ctx.minorUnits), previewBills };
}

const previewLine = (l: RatedLine, subscriptionId?: string): PreviewBill['lines'][number] => ({
  ...(subscriptionId === undefined ? {} : { subscriptionID: Number(subscriptionId) }),
  componentCode: l.componentCode,
  name: l.name,
  quantity: l.quantity,
  ...(l.rate !== undefined ? { rate: l.rate } : {}),
  amount: l.amount,
  ...lineDays(l),
});

/**
 * A failure as validate-term's exceptions: one, or one per meter when several have no
 * reading (each row names its meter, so the officer types each in its own row).
 */
const exceptionsOf = (f: FailedEntry, ctx: RunContext): TermException[] => {
  const base = { subscriptionID: Number(f.input.subscriptionId), accountID: Number(f.input.accountId), code: f.code, severity: 'error' as const };
  const details = datedDetails(f, ctx.start, ctx.end);
  const at = (d: (typeof details)[number]) => ({ path: d.path, ...(d.readingDate === undefined ? {} : { readingDate: d.readingDate }) });
  if (f.code === 'MISSING_READING' && details.length > 1) return details.map((d) => ({ ...base, message: d.message, ...at(d) }));
  return [{ ...base, message: f.reason, ...(details[0] ? at(details[0]) : {}) }];
};

/**
 * A Post Account term's dry run: the chunks' slices of accounts and their rating
 * (accountRun.ts), so the preview has one bill per account, and an account held back by a
 * failing subscription shows its other subscriptions as ACCOUNT_HELD_BACK exceptions, as
 * the run records them.
 */
async function accountDryRun(db: Queryable, ctx: RunContext, o: { chunkSize: number; previewLimit: number }): Promise<DryRun> {
  const exceptions: TermException[] = [];
  const previewBills: PreviewBill[] = [];
  let totals: BillTotals | undefined;
  let bills = 0;
  let failures = 0;
  for (const [from, to] of await accountSlices(db, ctx.termId, o.chunkSize)) {
    const chunk = await rateAccounts(ctx, await loadAccountInputs(db, ctx, from, to));
    for (const f of chunk.failed) {
      failures++;
      exceptions.push(...exceptionsOf(f, ctx));
    }
    totals = sumAccountBills(chunk.bills, totals);
    bills += chunk.bills.length;
    for (const { accountId, subscriptions, bill } of chunk.bills) {
      if (previewBills.length >= o.previewLimit) break;
      previewBills.push({
        subscriptionID: null,
        accountID: Number(accountId),
        charges: bill.charges,
        tax: bill.tax,
        total: bill.total,
        balanceBroughtForward: bill.balanceBroughtForward,
        totalDue: bill.totalDue,
        estimated: bill.estimated,
        lines: subscriptions.flatMap((s) => s.bill.lines.map((l) => previewLine(l, s.input.subscriptionId))),
        subscriptions: bill.groups.map((g) => ({
          subscriptionID: Number(g.subscriptionId),
          periodStart: formatDate(g.periodStart),
          periodEnd: formatDate(g.periodEnd),
          charges: g.charges,
          tax: g.tax,
          total: g.total,
          estimated: g.estimated,
          lineCount: g.lineCount,
        })),
      });
    }
  }
  return { exceptions, bills, failures, totals: totalsText(totals ?? sumBills([]), ctx.minorUnits), previewBills };
}
