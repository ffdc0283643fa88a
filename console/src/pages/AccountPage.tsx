// One account: its subscriptions, each meter's readings and consumption (a chart), its
// bills, its statement and its payments.
import { atText } from '../api/dates.ts';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Alert, Anchor, Button, Card, Group, Loader, Select, SimpleGrid, Stack, Tabs, Text, Title } from '@mantine/core';
import { BarChart } from '@mantine/charts';
import { ApiError, read, type Data } from '../api/client.ts';
import { DataTable, Pager, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge } from '../components/feedback.tsx';
import { BillsTable } from './Bills.tsx';
import { PaymentsTable } from './Payments.tsx';
import { AddReading, CorrectReading } from './account/ReadingForms.tsx';
import { DELIVERY_WORDS, EditAccount, type Delivery } from './account/EditAccount.tsx';
import { ChangeSubscription, MoveSubscription, NewSubscription, RecordDocument, SubscriptionHistory, changesOf, type Change } from './account/SubscriptionForms.tsx';
import { useSession } from '../session.tsx';
import { useTemplates } from '../api/queries.ts';

type Subscription = Data<'/billing/accounts/get-account'>['subscriptions'][number];
type Reading = Data<'/billing/readings/get-readings'>['readings'][number];
type Entry = Data<'/billing/ledger/get-statement'>['statement']['entries'][number];

/** `labelOf`: a connection input's label in its template ("Meter number", not METER_NO: an officer's walk), or its code. */
const subColumns = (labelOf: (serviceCode: string, code: string) => string): Column<Subscription>[] => [
  { header: 'Subscription', accessorKey: 'subscriptionID' },
  { header: 'Template', accessorKey: 'serviceCode' },
  { header: 'Batch', accessorKey: 'batchCode' },
  { header: 'From', accessorKey: 'startDate' },
  { header: 'To', cell: ({ row }) => row.original.endDate ?? '—' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Connection', cell: ({ row }) => Object.entries(row.original.connectionInputs).map(([k, v]) => `${labelOf(row.original.serviceCode, k)}: ${String(v)}`).join(', ') },
  { header: 'Documents', cell: ({ row }) => row.original.documents.map((d) => `${d.name}: ${d.reference} (${d.date})`).join(', ') || '—' },
];

const readingColumns = (correcting: number | null, setCorrecting: ((id: number | null) => void) | null): Column<Reading>[] => [
  { header: 'Date', accessorKey: 'readingDate' },
  { header: 'Meter', accessorKey: 'inputCode' },
  { header: 'Value', accessorKey: 'value', meta: { align: 'right' } },
  { header: 'Consumption', cell: ({ row }) => row.original.consumption ?? '—', meta: { align: 'right' } },
  { header: 'Kind', accessorKey: 'kind' },
  { header: 'Source', accessorKey: 'source' },
  { header: 'Reading', accessorKey: 'readingID' },
  { header: 'Effective', cell: ({ row }) => (row.original.effective ? 'yes' : `corrected by ${row.original.correctedByReadingID}`) },
  ...(setCorrecting === null
    ? []
    : [
        {
          header: '',
          id: 'correct',
          cell: ({ row }: { row: { original: Reading } }) =>
            !row.original.effective ? null : correcting === row.original.readingID ? (
              <CorrectReading reading={row.original} onDone={() => setCorrecting(null)} />
            ) : (
              <Button size="compact-xs" variant="default" onClick={() => setCorrecting(row.original.readingID)}>
                Correct
              </Button>
            ),
        } as Column<Reading>,
      ]),
];

const entryColumns: Column<Entry>[] = [
  { header: 'Date', accessorKey: 'date' },
  // In words: "bill_reversal" is the ledger's code, not what an officer reads.
  { header: 'Kind', cell: ({ row }) => row.original.kind.replaceAll('_', ' ') },
  { header: 'Description', accessorKey: 'description' },
  { header: 'Bill', cell: ({ row }) => (row.original.billID ? <Anchor inherit component={Link} to={`/bills/${row.original.billID}`}>{row.original.billNumber}</Anchor> : '') },
  { header: 'Reference', cell: ({ row }) => row.original.reference ?? '' },
  { header: 'Amount', cell: ({ row }) => <Amount value={row.original.amount} />, meta: { align: 'right' } },
  { header: 'Balance', cell: ({ row }) => <Amount value={row.original.balance} />, meta: { align: 'right' } },
];

function Readings({ subscriptions }: { subscriptions: Subscription[] }) {
  const { can } = useSession();
  const templates = useTemplates();
  const [correcting, setCorrecting] = useState<number | null>(null);
  const [chosen, setChosen] = useState<string | null>(subscriptions[0] ? String(subscriptions[0].subscriptionID) : null);
  const readings = useQuery({
    queryKey: ['readings', chosen],
    enabled: chosen !== null,
    queryFn: () => read('/billing/readings/get-readings', { method: 'Retrieve', action: 'Retrieve Readings', apiVersion: 'v2', data: { subscriptionID: Number(chosen) } }),
  });
  const rows = readings.data?.readings ?? [];
  const meters = [...new Set(rows.map((r) => r.inputCode))];
  // A reading is of one of the template's meters, read or not yet (the readings alone left out a meter never read).
  const serviceCode = subscriptions.find((s) => String(s.subscriptionID) === chosen)?.serviceCode;
  const inputs = templates.data?.services.find((t) => t.serviceCode === serviceCode)?.meteredInputs ?? [];
  const templateMeters = inputs.map((m) => m.code);
  const colors = ['teal.6', 'blue.6', 'grape.6', 'orange.6'];
  // A chart per meter, on its own scale and unit: kWh and kW on one axis left the demand flat and
  // each date twice along the bottom (a new user's walk). Consumption is exact decimal text; the chart
  // needs numbers, and only draws them.
  const charts = meters
    .map((code) => {
      const input = inputs.find((m) => m.code === code);
      const data = rows.filter((r) => r.inputCode === code && r.effective && r.consumption !== null).map((r) => ({ date: r.readingDate, [code]: Number(r.consumption) }));
      const title = input?.register === 'maximum' ? `${input.label} (${input.unit}): the highest demand of each period` : `${input?.label ?? code}${input ? ` (${input.unit})` : ''}: consumption between readings`;
      return { code, data, title };
    })
    .filter((c) => c.data.length > 0);
  return (
    <Stack>
      <Select label="Subscription" w={320} data={subscriptions.map((s) => ({ value: String(s.subscriptionID), label: `${s.subscriptionID} · ${s.serviceCode} · ${s.batchCode}` }))} value={chosen} onChange={setChosen} />
      {charts.length > 0 ? (
        charts.map((c, i) => (
          <Card withBorder key={c.code} data-testid={`chart-${c.code}`}>
            <Text size="sm" fw={500} mb="xs">
              {c.title}
            </Text>
            <BarChart h={200} data={c.data} dataKey="date" series={[{ name: c.code, color: colors[i % colors.length]! }]} />
          </Card>
        ))
      ) : (
        <Text c="dimmed" size="sm">No consumption to chart yet (it needs two readings).</Text>
      )}
      {can('biller') && chosen !== null && <AddReading key={chosen} subscriptionID={Number(chosen)} meters={templateMeters.length ? templateMeters : meters} />}
      <DataTable columns={readingColumns(correcting, can('biller') ? setCorrecting : null)} data={readings.data?.readings} loading={readings.isLoading} empty="No reading." />
    </Stack>
  );
}

function Statement({ accountID }: { accountID: number }) {
  const q = useQuery({
    queryKey: ['statement', accountID],
    queryFn: () => read('/billing/ledger/get-statement', { method: 'Retrieve', action: 'Retrieve Statement', apiVersion: 'v2', data: { accountID } }),
  });
  const s = q.data?.statement;
  return (
    <Stack>
      {s && (
        <Group gap="xl">
          <Text size="sm">Opening {s.openingBalance}</Text>
          <Text size="sm">Debits {s.debits}</Text>
          <Text size="sm">Credits {s.credits}</Text>
          <Text size="sm" fw={600}>
            Closing {s.closingBalance}
            <InCredit balance={s.closingBalance} />
          </Text>
        </Group>
      )}
      <DataTable columns={entryColumns} data={s?.entries} loading={q.isLoading} empty="No ledger entry yet." />
    </Stack>
  );
}

function AccountPayments({ accountID }: { accountID: number }) {
  const [offset, setOffset] = useState(0);
  const q = useQuery({
    queryKey: ['payments', { accountID }, offset],
    queryFn: () => read('/billing/payments/get-payments', { method: 'Retrieve', action: 'Retrieve Payments', apiVersion: 'v2', data: { accountID, limit: 50, offset } }),
  });
  return (
    <>
      <PaymentsTable data={q.data?.payments} loading={q.isLoading} />
      <Pager paging={q.data?.paging} onOffset={setOffset} />
    </>
  );
}

/** The account's bills, or one subscription's (an account with several meters: get-bills by subscriptionID). */
function AccountBills({ accountID, subscriptions }: { accountID: number; subscriptions: Subscription[] }) {
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <Stack>
      {subscriptions.length > 1 && (
        <Select
          label="Subscription"
          placeholder="every subscription"
          clearable
          w={320}
          data={subscriptions.map((s) => ({ value: String(s.subscriptionID), label: `${s.subscriptionID} · ${s.serviceCode} · ${s.batchCode}` }))}
          value={chosen}
          onChange={setChosen}
        />
      )}
      <BillsTable key={chosen ?? 'all'} filter={chosen === null ? { accountID } : { accountID, subscriptionID: Number(chosen) }} />
    </Stack>
  );
}

function Subscriptions({ accountID, account, subscriptions, canEdit }: { accountID: number; account: Data<'/billing/accounts/get-account'>['account']; subscriptions: Subscription[]; canEdit: boolean }) {
  const [adding, setAdding] = useState(false);
  const [changing, setChanging] = useState<{ id: number; change: Change } | null>(null);
  const [history, setHistory] = useState<number | null>(null);
  const target = changing && subscriptions.find((s) => s.subscriptionID === changing.id);
  const templates = useTemplates();
  const labelOf = (serviceCode: string, code: string) =>
    templates.data?.services.find((t) => t.serviceCode === serviceCode)?.connectionInputs?.find((c) => c.code === code)?.label ?? code;
  const historyColumn: Column<Subscription> = {
    header: '',
    id: 'history',
    cell: ({ row }) => (
      <Button size="compact-xs" variant="subtle" aria-label={`history of subscription ${row.original.subscriptionID}`} onClick={() => setHistory(row.original.subscriptionID)}>
        History
      </Button>
    ),
  };
  const columns: Column<Subscription>[] = canEdit
    ? [
        ...subColumns(labelOf),
        historyColumn,
        {
          header: '',
          id: 'change',
          cell: ({ row }) => (
            <Group gap={4} wrap="nowrap">
              {changesOf(row.original.status).map((c) => (
                <Button
                  key={c}
                  size="compact-xs"
                  variant="default"
                  color={c === 'terminate' ? 'red' : undefined}
                  aria-label={`${c} subscription ${row.original.subscriptionID}`}
                  onClick={() => {
                    setAdding(false);
                    setChanging({ id: row.original.subscriptionID, change: c });
                  }}
                >
                  {c[0]!.toUpperCase() + c.slice(1)}
                </Button>
              ))}
            </Group>
          ),
        },
      ]
    : [...subColumns(labelOf), historyColumn];
  return (
    <Stack>
      {canEdit && !adding && account.status === 'active' && (
        <Group>
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              setChanging(null);
              setAdding(true);
            }}
          >
            New subscription
          </Button>
        </Group>
      )}
      {adding && <NewSubscription account={account} onDone={() => setAdding(false)} />}
      {target && changing && changing.change === 'move' && <MoveSubscription key={`${changing.id}-move`} accountID={accountID} subscription={target} onDone={() => setChanging(null)} />}
      {target && changing && changing.change === 'documents' && <RecordDocument key={`${changing.id}-documents`} accountID={accountID} subscription={target} onDone={() => setChanging(null)} />}
      {target && changing && changing.change !== 'move' && changing.change !== 'documents' && <ChangeSubscription key={`${changing.id}-${changing.change}`} accountID={accountID} subscription={target} change={changing.change} onDone={() => setChanging(null)} />}
      <DataTable columns={columns} data={subscriptions} empty="No subscription." testId="subscriptions-table" />
      {history !== null && <SubscriptionHistory key={history} subscriptionID={history} onClose={() => setHistory(null)} />}
    </Stack>
  );
}


/** A balance below zero is what the account is owed: said in words beside the "-42.70" (an officer's walk). */
function InCredit({ balance }: { balance: string }) {
  return balance.startsWith('-') && /[1-9]/.test(balance) ? (
    <Text span size="sm" c="teal">
      {' '}
      ({balance.slice(1)} in credit)
    </Text>
  ) : null;
}


type Deposit = Data<'/billing/deposits/get-deposits'>['deposits'][number];
const depositColumns: Column<Deposit>[] = [
  { header: 'Subscription', accessorKey: 'subscriptionID' },
  { header: 'Charged on', accessorKey: 'chargedOn' },
  { header: 'Amount', cell: ({ row }) => <Amount value={row.original.amount} />, meta: { align: 'right' } },
  // Held is what payments paid of it; an unpaid one is "owed", not money in hand (a new user read "Held 0.00" so).
  {
    header: 'State',
    cell: ({ row }) => {
      const d = row.original;
      if (d.status === 'Released') return `released ${d.releasedOn ?? ''}`;
      const waiting = d.endedOn ? `, waiting for the final bill (ended ${d.endedOn})` : '';
      return /[1-9]/.test(d.held) ? `held ${d.held}${/[1-9]/.test(d.due) ? `, ${d.due} still owed` : ''}${waiting}` : `owed ${d.due}, nothing paid yet${waiting}`;
    },
  },
  { header: 'Applied to bills', cell: ({ row }) => <Amount value={row.original.applied} />, meta: { align: 'right' } },
  {
    header: 'Refund',
    // The refund still to be paid out: the balance says 0.00 after a final bill, and nothing else did (a new user).
    cell: ({ row }) => {
      const d = row.original;
      if (d.refunded === null || !/[1-9]/.test(d.refunded)) return '';
      return d.refundPaidOn ? `${d.refunded} paid out ${d.refundPaidOn}` : `${d.refunded} to pay out`;
    },
  },
];

/** The account's security deposits: held, owed, applied to its final bills, refunds to pay out. */
function Deposits({ accountID }: { accountID: number }) {
  const q = useQuery({
    queryKey: ['deposits', accountID],
    queryFn: () => read('/billing/deposits/get-deposits', { method: 'Retrieve', action: 'Retrieve Deposits', apiVersion: 'v2', data: { accountID } }),
  });
  return <DataTable columns={depositColumns} data={q.data?.deposits} loading={q.isLoading} empty="No security deposit." testId="deposits-table" />;
}

export function AccountPage() {
  const given = useParams().accountID ?? '';
  const accountID = /^[1-9][0-9]{0,15}$/.test(given) ? Number(given) : null;
  const { can } = useSession();
  const [editing, setEditing] = useState(false);
  const q = useQuery({
    queryKey: ['account', accountID],
    enabled: accountID !== null,
    queryFn: () => read('/billing/accounts/get-account', { method: 'Retrieve', action: 'Retrieve Account', apiVersion: 'v2', data: { accountID: accountID! } }),
  });
  // An address that names no account id ("#/accounts/abc") said only "The request is not valid." (an officer's walk).
  if (accountID === null) return <Alert color="red">No account "{given}": an account's page is #/accounts/ and its accountID, a number (find it with Accounts' search).</Alert>;
  if (q.isLoading) return <Loader />;
  if (!q.data) return <Alert color="red">{q.error instanceof ApiError && q.error.status === 404 ? `No account ${accountID}.` : q.error instanceof Error ? q.error.message : 'No such account.'}</Alert>;
  const { account: a, subscriptions } = q.data;
  const canEdit = can('biller');
  return (
    <Stack>
      <Anchor component={Link} to="/accounts" size="sm">
        ← Accounts
      </Anchor>
      <Group gap="xs">
        <Title order={2}>
          {a.name} ({a.accountNumber})
        </Title>
        <StatusBadge status={a.status} />
        {canEdit && !editing && (
          <Button size="xs" variant="default" onClick={() => setEditing(true)}>
            Change
          </Button>
        )}
      </Group>
      {editing ? (
        <EditAccount account={a} onDone={() => setEditing(false)} />
      ) : (
        <Card withBorder>
          <SimpleGrid cols={{ base: 3, lg: 6 }}>
            <Text size="sm">
              Balance <Amount value={a.balance} />
              <InCredit balance={a.balance} />
            </Text>
            <Text size="sm">E-mail {a.email ?? '—'}</Text>
            <Text size="sm">Phone {a.phone ?? '—'}</Text>
            <Text size="sm">Address {a.address ?? '—'}</Text>
            <Text size="sm">{DELIVERY_WORDS[a.deliveryPreference as Delivery] ?? `Bills by ${a.deliveryPreference}`}</Text>
            <Text size="sm">Since {atText(a.createdAt)}</Text>
          </SimpleGrid>
        </Card>
      )}
      <Tabs defaultValue="subscriptions" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="subscriptions">Subscriptions ({subscriptions.length})</Tabs.Tab>
          <Tabs.Tab value="readings">Readings</Tabs.Tab>
          <Tabs.Tab value="bills">Bills</Tabs.Tab>
          <Tabs.Tab value="statement">Statement</Tabs.Tab>
          <Tabs.Tab value="payments">Payments</Tabs.Tab>
          <Tabs.Tab value="deposits">Deposits</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="subscriptions" pt="sm">
          <Subscriptions accountID={accountID} account={a} subscriptions={subscriptions} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="readings" pt="sm">
          {subscriptions.length ? <Readings subscriptions={subscriptions} /> : <Text c="dimmed">No subscription.</Text>}
        </Tabs.Panel>
        <Tabs.Panel value="bills" pt="sm">
          <AccountBills accountID={accountID} subscriptions={subscriptions} />
        </Tabs.Panel>
        <Tabs.Panel value="statement" pt="sm">
          <Statement accountID={accountID} />
        </Tabs.Panel>
        <Tabs.Panel value="payments" pt="sm">
          <AccountPayments accountID={accountID} />
        </Tabs.Panel>
        <Tabs.Panel value="deposits" pt="sm">
          <Deposits accountID={accountID} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
