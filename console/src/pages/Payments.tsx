// Payments received (and a form to record one) and the ageing of what accounts owe.
import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { Anchor, Button, Card, Group, Popover, SimpleGrid, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { call, read, type Data } from '../api/client.ts';
import { DataTable, Pager, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge, notifyDone, useSave } from '../components/feedback.tsx';
import { Totals } from './billrun/ValidatePanel.tsx';
import { useSession } from '../session.tsx';

type Payment = Data<'/billing/payments/get-payments'>['payments'][number];
type Aged = Data<'/billing/ledger/get-ageing'>['accounts'][number];

const paymentColumns: Column<Payment>[] = [
  { header: 'Date', accessorKey: 'paymentDate' },
  { header: 'Account', cell: ({ row }) => <Anchor inherit component={Link} to={`/accounts/${row.original.accountID}`}>{row.original.accountNumber}</Anchor> },
  { header: 'Reference', accessorKey: 'reference' },
  { header: 'Channel', accessorKey: 'channel' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Amount', cell: ({ row }) => <Amount value={row.original.amount} />, meta: { align: 'right' } },
  { header: 'Applied', cell: ({ row }) => <Amount value={row.original.applied} />, meta: { align: 'right' } },
  { header: 'Unapplied', cell: ({ row }) => <Amount value={row.original.unapplied} />, meta: { align: 'right' } },
  { header: 'Reversal', cell: ({ row }) => <Reversal payment={row.original} /> },
];

export function PaymentsTable({ data, loading }: { data: Payment[] | undefined; loading: boolean }) {
  return <DataTable columns={paymentColumns} data={data} loading={loading} empty="No payment." />;
}

/**
 * A reversed payment's reason and date; for a biller, a posted payment's "Reverse" (a bounced
 * cheque, a chargeback: reverse-payment), with its reason and ledger date. Before, a payment
 * keyed against the wrong account could only be undone through the API (an officer's walk).
 */
function Reversal({ payment }: { payment: Payment }) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [f, setF] = useState({ reason: '', reversalDate: '' });
  const { errors, busy, run } = useSave((p) => p in f);
  if (payment.reversal) return <Text size="sm">{`${payment.reversal.reversalDate}: ${payment.reversal.reason}`}</Text>;
  if (!can('biller') || payment.status !== 'Posted') return null;
  const reverse = () =>
    run(async () => {
      await call('/billing/payments/reverse-payment', {
        method: 'Update',
        action: 'Reverse Payment',
        apiVersion: 'v2',
        data: { paymentID: payment.paymentID, reason: f.reason.trim(), ...(f.reversalDate.trim() ? { reversalDate: f.reversalDate.trim() } : {}) },
      });
      notifyDone(`Payment ${payment.reference} of ${payment.amount} reversed; the bills it paid are open again.`);
      setOpen(false);
      setF({ reason: '', reversalDate: '' });
      // The account's balance, its bills and the ageing moved with it.
      await queryClient.invalidateQueries();
    });
  return (
    <Popover opened={open} onChange={setOpen} trapFocus withArrow shadow="md" position="bottom-end">
      <Popover.Target>
        <Button size="compact-xs" variant="subtle" color="red" aria-label={`Reverse payment ${payment.reference}`} onClick={() => setOpen((o) => !o)}>
          Reverse
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" w={280}>
          <Text size="sm">Reverse payment {payment.reference} of {payment.amount}: a reversing ledger entry; the bills it paid are open again. A payment is reversed once.</Text>
          <TextInput label="Reason" required placeholder="a bounced cheque" value={f.reason} onChange={(e) => setF({ ...f, reason: e.currentTarget.value })} error={errors.reason} />
          <TextInput label="Reversal date" placeholder="today" description="dd/mm/yyyy" value={f.reversalDate} onChange={(e) => setF({ ...f, reversalDate: e.currentTarget.value })} error={errors.reversalDate} />
          <Group gap="xs">
            <Button size="xs" color="red" loading={busy} disabled={f.reason.trim() === ''} onClick={() => void reverse()}>
              Reverse payment
            </Button>
            <Button size="xs" variant="default" onClick={() => setOpen(false)}>
              Keep it
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

const agedColumns: Column<Aged>[] = [
  { header: 'Account', cell: ({ row }) => <Anchor inherit component={Link} to={`/accounts/${row.original.accountID}`}>{row.original.accountNumber}</Anchor> },
  { header: 'Name', accessorKey: 'name' },
  ...(['current', 'days30', 'days60', 'days90', 'over90', 'credit', 'balance'] as const).map(
    (k): Column<Aged> => ({ header: { current: 'Current', days30: '1–30', days60: '31–60', days90: '61–90', over90: 'Over 90', credit: 'Credit', balance: 'Balance' }[k], cell: ({ row }) => <Amount value={row.original[k]} />, meta: { align: 'right' } }),
  ),
];

/**
 * An amount the API took, as the app writes amounts: "2000" is "2000.00 KES" (the notice read
 * "of 2000", an officer's walk). Text only: the API checked it, nothing is computed.
 */
function asAmount(typed: string, app: { currency: string; minorUnits: number } | null): string {
  if (app === null) return typed;
  const [whole, fraction = ''] = typed.split('.');
  const digits = app.minorUnits > fraction.length ? fraction.padEnd(app.minorUnits, '0') : fraction;
  return `${whole}${digits ? `.${digits}` : ''} ${app.currency}`;
}

function RecordPayment() {
  const queryClient = useQueryClient();
  const { app } = useSession();
  // The day the money was received: a bank file is keyed days later, and every payment was dated today (an officer's walk).
  const [f, setF] = useState({ accountNumber: '', amount: '', reference: '', channel: 'bank', paymentDate: '' });
  const { errors, busy, run } = useSave((p) => p in f);
  const set = (k: keyof typeof f) => (e: React.ChangeEvent<HTMLInputElement>) => setF({ ...f, [k]: e.currentTarget.value });
  // Whose account the money goes to, and what it owes, before it is recorded: a mistyped
  // number showed nothing until the payment had settled someone else's bills (an officer's walk).
  const [typed] = useDebouncedValue(f.accountNumber.trim(), 300);
  const payer = useQuery({
    queryKey: ['payer', typed],
    enabled: typed !== '',
    queryFn: () => read('/billing/accounts/get-accounts', { method: 'Retrieve', action: 'Retrieve Accounts', apiVersion: 'v2', data: { accountNumber: typed, limit: 1 } }),
  });
  const found = typed === '' || typed !== f.accountNumber.trim() ? undefined : payer.data?.accounts[0];
  const payerText =
    typed === '' || typed !== f.accountNumber.trim() || payer.isLoading || payer.isError
      ? undefined
      : found === undefined
        ? 'no account with this number'
        : `${found.name}: ${found.balance.startsWith('-') ? `in credit ${found.balance.slice(1)}` : `owes ${found.balance}`}`;
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await call('/billing/payments/make-payment', { method: 'Create', action: 'Create Payment', apiVersion: 'v2', data: { accountNumber: f.accountNumber.trim(), amount: f.amount.trim(), reference: f.reference.trim(), channel: f.channel.trim(), ...(f.paymentDate.trim() ? { paymentDate: f.paymentDate.trim() } : {}) } });
      notifyDone(`Payment ${f.reference.trim()} of ${asAmount(f.amount.trim(), app)} from ${f.accountNumber.trim()} by ${f.channel.trim()}${f.paymentDate.trim() ? ` paid on ${f.paymentDate.trim()}` : ' paid today'} recorded and settled against the oldest debts.`);
      // Every field afresh: a channel and a date kept from the payment before went onto the next one unseen (an officer's walk).
      setF({ accountNumber: '', amount: '', reference: '', channel: 'bank', paymentDate: '' });
      // A payment settles bills: the ageing, statements and bills all moved, not only this list.
      await queryClient.invalidateQueries();
    });
  };
  return (
    <Card withBorder>
      <form onSubmit={submit}>
        <Group align="flex-start">
          <TextInput label="Account number" required value={f.accountNumber} onChange={set('accountNumber')} error={errors.accountNumber} description={payerText} inputWrapperOrder={['label', 'input', 'description', 'error']} />
          <TextInput label="Amount" required value={f.amount} onChange={set('amount')} error={errors.amount} w={140} />
          <TextInput label="Reference" required value={f.reference} onChange={set('reference')} error={errors.reference} />
          <TextInput label="Channel" required value={f.channel} onChange={set('channel')} error={errors.channel} w={120} />
          <TextInput label="Paid on" placeholder="today" description="dd/mm/yyyy" value={f.paymentDate} onChange={set('paymentDate')} error={errors.paymentDate} w={130} />
          <Button type="submit" mt={25} loading={busy}>
            Record payment
          </Button>
        </Group>
      </form>
    </Card>
  );
}

export function Payments() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [agedOffset, setAgedOffset] = useState(0);
  const payments = useQuery({
    queryKey: ['payments', 'all', offset],
    queryFn: () => read('/billing/payments/get-payments', { method: 'Retrieve', action: 'Retrieve Payments', apiVersion: 'v2', data: { limit: 50, offset } }),
  });
  const ageing = useQuery({
    queryKey: ['ageing', agedOffset],
    queryFn: () => read('/billing/ledger/get-ageing', { method: 'Retrieve', action: 'Retrieve Ageing', apiVersion: 'v2', data: { limit: 50, offset: agedOffset } }),
  });
  const a = ageing.data?.ageing;
  return (
    <Stack>
      <Title order={2}>Payments and ageing</Title>
      <Tabs defaultValue="payments">
        <Tabs.List>
          <Tabs.Tab value="payments">Payments</Tabs.Tab>
          <Tabs.Tab value="ageing">Ageing</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="payments" pt="sm">
          <Stack>
            {can('biller') && <RecordPayment />}
            <PaymentsTable data={payments.data?.payments} loading={payments.isLoading} />
            <Pager paging={payments.data?.paging} onOffset={setOffset} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="ageing" pt="sm">
          <Stack>
            {a && (
              <>
                <Text size="sm" c="dimmed">
                  As of {a.asOf}, {a.accountCount} account(s) owing or in credit.
                </Text>
                <SimpleGrid cols={1}>
                  {/* The credit waiting for bills has its card: without it the cards did not add up to the balance (an officer's walk). */}
                  <Totals items={[['Current', a.current], ['1–30 days', a.days30], ['31–60 days', a.days60], ['61–90 days', a.days90], ['Over 90', a.over90], ['Less credit', a.credit], ['Balance', a.balance]]} />
                </SimpleGrid>
              </>
            )}
            <DataTable columns={agedColumns} data={ageing.data?.accounts} loading={ageing.isLoading} empty="Nobody owes anything." />
            <Pager paging={ageing.data?.paging} onOffset={setAgedOffset} />
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
