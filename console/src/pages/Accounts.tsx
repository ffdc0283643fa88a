// Account search: by number (its start) or name (any part), a page at a time from the
// server: under 200 ms over a million accounts (bench/accountSearch.bench.ts).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { read, type Data } from '../api/client.ts';
import { DataTable, Pager, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { NewAccount } from './account/NewAccount.tsx';

type Account = Data<'/billing/accounts/get-accounts'>['accounts'][number];
const PAGE = 50;

const columns: Column<Account>[] = [
  { header: 'Number', accessorKey: 'accountNumber' },
  { header: 'Name', accessorKey: 'name' },
  { header: 'E-mail', accessorKey: 'email' },
  { header: 'Phone', accessorKey: 'phone' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Subscriptions', accessorKey: 'subscriptionCount', meta: { align: 'right' } },
  { header: 'Balance', cell: ({ row }) => <Amount value={row.original.balance} />, meta: { align: 'right' } },
];

export function Accounts() {
  const navigate = useNavigate();
  const { can } = useSession();
  const [adding, setAdding] = useState(false);
  const [text, setText] = useState('');
  const [search] = useDebouncedValue(text.trim(), 250);
  const [offset, setOffset] = useState(0);
  // Nothing is listed before a search: counting every account of a million-account app
  // costs more than any search (bench/accountSearch.bench.ts).
  const accounts = useQuery({
    queryKey: ['accounts', search, offset],
    enabled: search !== '',
    placeholderData: keepPreviousData,
    queryFn: () =>
      read('/billing/accounts/get-accounts', { method: 'Retrieve', action: 'Retrieve Accounts', apiVersion: 'v2', data: { search, limit: PAGE, offset } }),
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Accounts</Title>
        {can('biller') && !adding && <Button onClick={() => setAdding(true)}>New account</Button>}
      </Group>
      {adding && <NewAccount onCancel={() => setAdding(false)} />}
      <TextInput
        label="Search"
        placeholder="Account number (its beginning) or name (any part)"
        value={text}
        autoFocus
        onChange={(e) => {
          setText(e.currentTarget.value);
          setOffset(0);
        }}
        w={420}
      />
      {search === '' && <Text c="dimmed">Type the beginning of an account number or any part of a name.</Text>}
      {search !== '' && <DataTable
        columns={columns}
        data={accounts.data?.accounts}
        loading={accounts.isLoading}
        empty="No account matches."
        onRowClick={(a) => navigate(`/accounts/${a.accountID}`)}
        rowLabel={(a) => `Open account ${a.accountNumber}`}
        testId="accounts-table"
      />}
      {search !== '' && <Pager paging={accounts.data?.paging} onOffset={setOffset} />}
    </Stack>
  );
}
