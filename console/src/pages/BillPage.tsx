// One bill: its amounts, its lines, each line's explanation (the trace in words), its PDF and e-mails.
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Accordion, Alert, Anchor, Badge, Code, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { read } from '../api/client.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge } from '../components/feedback.tsx';
import { Totals } from './billrun/ValidatePanel.tsx';
import type { Bill } from './Bills.tsx';
import { DocumentPanel } from './bill/DocumentPanel.tsx';
import { CorrectionPanel } from './bill/CorrectionPanel.tsx';
import { rateText } from '../components/lineText.ts';

type Line = Bill['lines'][number];

const lineColumns: Column<Line>[] = [
  { header: 'Component', cell: ({ row }) => `${row.original.name} (${row.original.componentCode})` },
  { header: 'Category', accessorKey: 'category' },
  { header: 'Quantity', cell: ({ row }) => `${row.original.quantity}${row.original.unit ? ' ' + row.original.unit : ''}`, meta: { align: 'right' } },
  { header: 'Rate', cell: ({ row }) => rateText(row.original.rate, row.original.trace.model, 'days' in row.original.trace ? row.original.trace.days : undefined), meta: { align: 'right' } },
  { header: 'Amount', cell: ({ row }) => <Amount value={row.original.amount} />, meta: { align: 'right' } },
];

/**
 * Whether a posted bill is paid: "posted" alone left a paid bill looking unpaid (an officer's
 * walk). Read from the ledger's open bills, settlement included, by the bill's id (the
 * account's first 1000 said nothing of a bill past them, a reviewer).
 */
function Settled({ bill }: { bill: Bill }) {
  const q = useQuery({
    queryKey: ['open-bills', bill.accountID, bill.billID],
    queryFn: () => read('/billing/ledger/get-open-bills', { method: 'Retrieve', action: 'Retrieve Open Bills', apiVersion: 'v2', data: { billID: bill.billID } }),
  });
  if (!q.data) return null;
  const open = q.data.bills.find((o) => o.billID === bill.billID);
  if (open) {
    const overdue = open.daysOverdue > 0 ? `, ${open.daysOverdue} day(s) overdue` : '';
    return (
      <Badge color={open.daysOverdue > 0 ? 'red' : 'yellow'} variant="light" data-testid="bill-settlement">
        {/^0(\.0+)?$/.test(open.paid) ? `unpaid: ${open.due} due${overdue}` : `part paid: ${open.paid} paid, ${open.due} due${overdue}`}
      </Badge>
    );
  }
  if (!/^[0-9.]*[1-9]/.test(bill.total)) return null;
  return (
    <Badge color="green" variant="light" data-testid="bill-settlement">
      paid
    </Badge>
  );
}

export function BillPage() {
  const billID = Number(useParams().billID);
  const q = useQuery({
    queryKey: ['bill', billID],
    queryFn: async () => (await read('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { billID } })).bills[0] ?? null,
  });
  if (q.isLoading) return <Loader />;
  const b = q.data;
  if (!b) return <Alert color="red">No bill {billID}.</Alert>;
  return (
    <Stack>
      <Anchor component={Link} to={`/bills?termID=${b.termID}`} size="sm">
        ← Bills of term {b.termID}
      </Anchor>
      <Paper withBorder p="md">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={3}>Bill {b.billNumber}</Title>
            <StatusBadge status={b.status} />
            {b.estimated && <StatusBadge status="estimated" />}
            {b.status === 'posted' && <Settled bill={b} />}
          </Group>
          <Text size="sm">
            Account{' '}
            <Anchor inherit component={Link} to={`/accounts/${b.accountID}`}>
              {b.accountNumber}
            </Anchor>{' '}
            {b.accountName} · subscription {b.subscriptionID} · billed {b.billDate} · due {b.dueDate} · period {b.periodStart} to {b.periodEnd}
          </Text>
        </Group>
      </Paper>
      {/* Keyed by the bill: a reason typed on one bill is not carried to the next opened. */}
      <CorrectionPanel key={b.billID} bill={b} />
      <Totals
        items={[
          ['Charges', b.charges],
          ['Tax', b.tax],
          ['Total', b.total],
          ['Brought forward', b.balanceBroughtForward],
          // A cancelled bill keeps its figures, but nothing of it is owed (an officer's walk read it as due).
          [b.status === 'cancelled' ? 'Total due (cancelled: not owed)' : b.status === 'withdrawn' ? 'Total due (withdrawn: not owed)' : 'Total due', b.totalDue],
        ]}
      />
      <Title order={4}>Lines</Title>
      <DataTable columns={lineColumns} data={b.lines} testId="bill-lines" />
      <Title order={4}>Explanation</Title>
      <Accordion variant="contained" multiple defaultValue={b.lines.map((l) => l.componentCode)} data-testid="explanation">
        {b.lines.map((l) => (
          <Accordion.Item key={l.componentCode} value={l.componentCode}>
            <Accordion.Control>
              {l.name}: {l.amount}
            </Accordion.Control>
            <Accordion.Panel>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {l.explanation}
              </Text>
              <details>
                <summary>
                  <Text span size="xs" c="dimmed">
                    The calculation's trace
                  </Text>
                </summary>
                <Code block>{JSON.stringify(l.trace, null, 2)}</Code>
              </details>
            </Accordion.Panel>
          </Accordion.Item>
        ))}
      </Accordion>
      <DocumentPanel termID={b.termID} billID={billID} billNumber={b.billNumber} billStatus={b.status} />
    </Stack>
  );
}
