// What is still open on a posted bill, as the ledger says (get-open-bills, per account): a
// paid bill looked the same as an unpaid one, POSTED with its total due (an officer's walk).
import { useQueries } from '@tanstack/react-query';
import { Badge } from '@mantine/core';
import { read, type Data } from '../../api/client.ts';
import type { Bill } from '../Bills.tsx';

type OpenBill = Data<'/billing/ledger/get-open-bills'>['bills'][number];
const PAGE = 1000;

/** Every open bill of an account, page after page (an account rarely has more than a few). */
async function openBillsOf(accountID: number): Promise<OpenBill[]> {
  const bills: OpenBill[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const d = await read('/billing/ledger/get-open-bills', { method: 'Retrieve', action: 'Retrieve Open Bills', apiVersion: 'v2', data: { accountID, limit: PAGE, offset } });
    bills.push(...d.bills);
    if (offset + PAGE >= d.paging.total) return bills;
  }
}

/**
 * The open bills of the accounts of these bills, by billID; undefined until all are read.
 * Only posted bills are asked about: a draft or withdrawn bill is owed by no one.
 */
export function useOpenBills(bills: Bill[]): Map<number, OpenBill> | undefined {
  const accounts = [...new Set(bills.filter((b) => b.status === 'posted').map((b) => b.accountID))];
  return useQueries({
    queries: accounts.map((accountID) => ({ queryKey: ['open-bills', accountID], queryFn: () => openBillsOf(accountID) })),
    combine: (results) => (results.every((r) => r.data) ? new Map(results.flatMap((r) => r.data ?? []).map((o) => [o.billID, o])) : undefined),
  });
}

/** An amount text above zero ("0.00" and "-5.00" are not). */
const owes = (amount: string) => !amount.startsWith('-') && /[1-9]/.test(amount);

/** Paid, partly paid (and how much is open) or open, red once overdue, for a posted bill that is not cancelled; nothing for any other. */
export function PaidBadge({ bill, open }: { bill: Bill; open: Map<number, OpenBill> | undefined }) {
  if (bill.status !== 'posted' || bill.creditNote !== null || open === undefined) return null;
  const o = open.get(bill.billID);
  const [label, color] = o === undefined ? (owes(bill.total) ? ['paid', 'green'] : ['nothing to pay', 'gray']) : owes(o.paid) ? [`partly paid: ${o.due} open`, o.daysOverdue > 0 ? 'red' : 'orange'] : [`open: ${o.due}`, o.daysOverdue > 0 ? 'red' : 'blue'];
  return (
    <Badge color={color} variant="outline" style={{ flexShrink: 0 }} miw="max-content" data-testid={`paid-${bill.billID}`}>
      {label}
    </Badge>
  );
}
