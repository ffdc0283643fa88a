// Bills by term, account or number, a page at a time (get-bills pages by afterBillID).
import { useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Badge, Group, NumberInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { read, type Data } from '../api/client.ts';
import { DataTable, KeysetPager, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { CreditNoteExtract } from './bill/CreditNoteExtract.tsx';

export type Bill = Data<'/billing/bills/get-bills'>['bills'][number];
const PAGE = 50;

export const billColumns: Column<Bill>[] = [
  { header: 'Number', accessorKey: 'billNumber' },
  { header: 'Account', accessorKey: 'accountNumber' },
  // Whose bill it is: the list named accounts by number alone (a new user's walk).
  { header: 'Customer', accessorKey: 'accountName' },
  { header: 'Term', accessorKey: 'termID' },
  { header: 'Period', cell: ({ row }) => `${row.original.periodStart} to ${row.original.periodEnd}` },
  { header: 'Due', accessorKey: 'dueDate' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Estimated', cell: ({ row }) => (row.original.estimated ? 'yes' : '') },
  { header: 'Total', cell: ({ row }) => <Amount value={row.original.total} />, meta: { align: 'right' } },
  {
    header: 'Total due',
    // A cancelled or withdrawn bill is owed no more: its figure struck through, not read as due (an officer's walk).
    cell: ({ row }) =>
      row.original.status === 'cancelled' || row.original.status === 'withdrawn' ? (
        <Text span td="line-through" c="dimmed" size="sm" ff="monospace" title={`${row.original.status}: not owed`}>
          {row.original.totalDue}
        </Text>
      ) : (
        <Amount value={row.original.totalDue} />
      ),
    meta: { align: 'right' },
  },
];

type OpenBill = Data<'/billing/ledger/get-open-bills'>['bills'][number];

/**
 * A posted bill's payment in a list: paid, part paid, unpaid, overdue (from the ledger's open
 * bills, settlement included). A draft or withdrawn bill, or one that owes nothing, has none.
 */
function PaidMark({ bill, open }: { bill: Bill; open: Map<number, OpenBill> | undefined }) {
  if (bill.status !== 'posted' || open === undefined) return null;
  const o = open.get(bill.billID);
  if (o === undefined) return /^[0-9.]*[1-9]/.test(bill.total) ? <Badge color="green" variant="light">paid</Badge> : null;
  const part = !/^0(\.0+)?$/.test(o.paid);
  const label = `${part ? `part paid, ${o.due} due` : 'unpaid'}${o.daysOverdue > 0 ? `, ${o.daysOverdue} d overdue` : ''}`;
  return (
    <Badge color={o.daysOverdue > 0 ? 'red' : 'yellow'} variant="light">
      {label}
    </Badge>
  );
}

export function BillsTable({
  filter,
}: {
  filter: { termID?: number; accountID?: number; accountNumber?: string; billNumber?: number; subscriptionID?: number; status?: 'draft' | 'posted' | 'withdrawn' | 'cancelled' };
}) {
  const navigate = useNavigate();
  // The first bill id of each page seen, to go back: get-bills pages forward only.
  const [afters, setAfters] = useState<number[]>([0]);
  const after = afters[afters.length - 1] ?? 0;
  const bills = useQuery({
    queryKey: ['bills', filter, after],
    queryFn: () =>
      read('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { ...filter, limit: PAGE + 1, ...(after ? { afterBillID: after } : {}) } }),
  });
  const rows = bills.data?.bills.slice(0, PAGE);
  const hasMore = (bills.data?.bills.length ?? 0) > PAGE;
  // Which of the page's posted bills are still open: one read for the page, not one a row.
  const posted = (rows ?? []).filter((b) => b.status === 'posted').map((b) => b.billID);
  const open = useQuery({
    queryKey: ['open-bills', 'page', posted],
    enabled: posted.length > 0,
    queryFn: async () =>
      new Map(
        (await read('/billing/ledger/get-open-bills', { method: 'Retrieve', action: 'Retrieve Open Bills', apiVersion: 'v2', data: { billIDs: posted, limit: posted.length } })).bills.map(
          (o) => [o.billID, o] as const,
        ),
      ),
  });
  const columns = useMemo<Column<Bill>[]>(
    () => [...billColumns, { header: 'Paid', cell: ({ row }) => <PaidMark bill={row.original} open={open.data} /> }],
    [open.data],
  );
  return (
    <>
      <DataTable
        columns={columns}
        data={rows}
        loading={bills.isLoading}
        empty="No bill."
        onRowClick={(b) => navigate(`/bills/${b.billID}`)}
        rowLabel={(b) => `Open bill ${b.billNumber}`}
        testId="bills-table"
      />
      <KeysetPager
        page={afters.length - 1}
        hasMore={hasMore}
        onPrevious={() => setAfters((a) => a.slice(0, -1))}
        onNext={() => rows && rows.length && setAfters((a) => [...a, rows[rows.length - 1]!.billID])}
      />
    </>
  );
}

export function Bills() {
  const { can, app } = useSession();
  const [params, setParams] = useSearchParams();
  const num = (k: string) => (params.get(k) ? Number(params.get(k)) : undefined);
  const termID = num('termID');
  const accountID = num('accountID');
  const accountNumber = params.get('accountNumber') || undefined;
  const billNumber = num('billNumber');
  const status = (params.get('status') as 'draft' | 'posted' | 'withdrawn' | 'cancelled' | null) ?? undefined;
  const set = (k: string, v: string | number | null | undefined) => {
    const p = new URLSearchParams(params);
    if (v === null || v === undefined || v === '') p.delete(k);
    else p.set(k, String(v));
    setParams(p);
  };
  const any = termID || accountID || accountNumber || billNumber;
  return (
    <Stack>
      <Title order={2}>Bills</Title>
      <Group align="flex-end">
        <NumberInput label="Term" value={termID ?? ''} onChange={(v) => set('termID', v)} w={120} allowDecimal={false} />
        {/* The number the officer sees on bills and accounts, not the internal id (an officer typed 10007 and got no bill). */}
        <TextInput key={accountNumber ?? ''} label="Account number" defaultValue={accountNumber ?? ''} onBlur={(e) => set('accountNumber', e.currentTarget.value.trim())} onKeyDown={(e) => e.key === 'Enter' && set('accountNumber', e.currentTarget.value.trim())} w={150} />
        <NumberInput label="Bill number" value={billNumber ?? ''} onChange={(v) => set('billNumber', v)} w={140} allowDecimal={false} />
        <Select label="Status" clearable data={['draft', 'posted', 'cancelled', 'withdrawn']} value={status ?? null} onChange={(v) => set('status', v)} w={140} />
      </Group>
      {any ? (
        <BillsTable key={JSON.stringify([termID, accountID, accountNumber, billNumber, status])} filter={{ termID, accountID, accountNumber, billNumber, status }} />
      ) : (
        <Text c="dimmed">Give a term, an account or a bill number (or open a bill run and follow its bills link).</Text>
      )}
      {can('biller') && app && <CreditNoteExtract key={app.today} today={app.today} />}
    </Stack>
  );
}
