// verify-bill of a Post Account bill (docs/verification.md): each of its groups is
// verified as the subscription bill it was rated as (its recorded source, its lines, its
// subtotal, the account's balance), by verifyBills' own path; then the account's amounts
// are compared with the sums of the re-rated groups. A difference inside a group names
// the group's subscription in its field ("subscription 12: amount").
import { Dec } from '../rating/index.ts';
import { isAccountBillSource } from '../billRun/accountRun.ts';
import { splitGroups, type StoredGroup } from '../bills/accountBills.ts';
import type { Amounts, BillVerification, Difference, StoredBill } from './verifyBills.ts';

/** A stored account bill: a bill row with its groups. */
export type StoredAccountBill = StoredBill & { groups: StoredGroup[] };

export const isAccountBill = (b: StoredBill & { groups?: StoredGroup[] | null }): b is StoredAccountBill =>
  Array.isArray(b.groups) && isAccountBillSource(b.source);

/** One StoredBill per group of an account bill, as verifyBills reads a subscription bill. */
export function groupBills(b: StoredAccountBill): StoredBill[] {
  const source = b.source as unknown as { groups: (NonNullable<StoredBill['source']> & { subscriptionId: string })[] };
  const sources = new Map(source.groups.map((g) => [g.subscriptionId, g]));
  const lines = Array.isArray(b.lines) ? b.lines : [];
  return splitGroups(lines, b.groups).map(({ group, lines }) => ({
    ...b,
    subscription_id: group.subscriptionId,
    period_start: group.periodStart,
    period_end: group.periodEnd,
    charges: group.charges,
    tax: group.tax,
    total: group.total,
    total_due: new Dec(group.total).plus(b.balance_brought_forward).toFixed(),
    lines,
    source: sources.get(group.subscriptionId) ?? null,
  }));
}

const FIELDS = [
  ['charges', 'charges'],
  ['tax', 'tax'],
  ['total', 'total'],
  ['balanceBroughtForward', 'balance_brought_forward'],
  ['totalDue', 'total_due'],
] as const;

/** The account bill's verification from its groups' (in group order). */
export function accountVerification(b: StoredAccountBill, groups: BillVerification[]): BillVerification {
  const mu = b.minor_units;
  const differences: Difference[] = [];
  const problems = groups.flatMap((g) => g.problems.map((p) => ({ ...p, path: `subscriptions.${g.subscriptionID}.${p.path}` })));
  for (const g of groups) for (const d of g.differences) differences.push({ ...d, field: `subscription ${g.subscriptionID}: ${d.field}` });
  const stored = Object.fromEntries(FIELDS.map(([f, c]) => [f, new Dec(b[c]).toFixed(mu)])) as Amounts;
  let rerated: Amounts | null = null;
  if (groups.every((g) => g.rerated !== null)) {
    let charges = new Dec(0);
    let tax = new Dec(0);
    for (const g of groups) {
      charges = charges.plus(g.rerated!.charges);
      tax = tax.plus(g.rerated!.tax);
    }
    const balance = new Dec(groups[0]?.rerated?.balanceBroughtForward ?? b.balance_brought_forward);
    const total = charges.plus(tax);
    rerated = { charges: charges.toFixed(mu), tax: tax.toFixed(mu), total: total.toFixed(mu), balanceBroughtForward: balance.toFixed(mu), totalDue: total.plus(balance).toFixed(mu) };
    for (const [f] of FIELDS) {
      const s = new Dec(stored[f]);
      const r = new Dec(rerated[f]);
      if (!s.eq(r)) differences.push({ componentCode: null, field: f, stored: stored[f], rerated: rerated[f], difference: s.minus(r).toFixed(mu) });
    }
  }
  return {
    billID: Number(b.bill_id),
    billNumber: Number(b.bill_number),
    termID: Number(b.term_id),
    subscriptionID: null,
    accountID: Number(b.account_id),
    basis: 'recorded',
    matches: differences.length === 0 && problems.length === 0,
    stored,
    rerated,
    differences,
    problems,
  };
}
