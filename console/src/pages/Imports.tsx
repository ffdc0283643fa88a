// Bulk imports: a CSV file streamed to the server, its progress read while it runs, and
// the bad rows by row and column (the header is row 1, as a spreadsheet shows).
import { atText } from '../api/dates.ts';
import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, FileInput, Group, Progress, Select, Stack, Text, Title } from '@mantine/core';
import { read, uploadCsv, type ApiError, type Data } from '../api/client.ts';
import { DataTable, KeysetPager, type Column } from '../components/DataTable.tsx';
import { StatusBadge, notifyDone } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { useTemplates } from '../api/queries.ts';
import { downloadCsv } from '../components/download.ts';

type Import = Data<'/billing/imports/get-imports'>['imports'][number];
type RowError = Import['errors'][number];
type Kind = 'accounts' | 'subscriptions' | 'readings';

const importColumns: Column<Import>[] = [
  { header: 'Import', accessorKey: 'importID' },
  { header: 'Kind', accessorKey: 'kind' },
  { header: 'File', cell: ({ row }) => row.original.fileName ?? '—' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Dry run', cell: ({ row }) => (row.original.dryRun ? 'yes' : '') },
  { header: 'Rows', accessorKey: 'rowsRead', meta: { align: 'right' } },
  {
    header: 'Written',
    // A dry run counts what it checked, and wrote nothing: shown as written, it misled an officer.
    cell: ({ row }) => (row.original.dryRun ? 'nothing (dry run)' : `${row.original.accountsWritten} acc · ${row.original.subscriptionsWritten} sub · ${row.original.readingsWritten} rdg`),
  },
  { header: 'Errors', accessorKey: 'errorCount', meta: { align: 'right' } },
  { header: 'Started', cell: ({ row }) => atText(row.original.startedAt) },
];

const errorColumns: Column<RowError>[] = [
  { header: 'Row', accessorKey: 'row' },
  { header: 'Column', accessorKey: 'column' },
  { header: 'Problem', accessorKey: 'message' },
];

const COLUMNS: Record<Kind, string> = {
  accounts:
    'accountNumber, name (required); email, phone, address, deliveryPreference (email, print, both or none: how bills reach the customer; when left out, email for an account with an e-mail address, else print); optionally serviceCode, batchCode, startDate (dd/mm/yyyy), connection.<CODE> (such as the meter number: required when the template requires it), unmetered.<CODE>, reading.<METER> for a subscription with its opening reading',
  subscriptions: 'accountNumber, serviceCode, batchCode, startDate (required); endDate, readingDate, connection.<CODE>, unmetered.<CODE>, reading.<METER>',
  readings: 'subscriptionID (or accountNumber and serviceCode), inputCode, readingDate, value (required); kind, source, note',
};

/** A file of the kind with its columns and one made-up row, from the first template, to fill in. */
function exampleCsv(
  kind: Kind,
  t: { serviceCode: string; batches: string[]; meteredInputs: { code: string }[]; connectionInputs?: { code: string; type: string; required?: boolean }[] } | undefined,
): string {
  const service = t?.serviceCode ?? 'WATER';
  const batch = t?.batches[0] ?? 'ZONE-A';
  const meters = t?.meteredInputs.map((m) => m.code) ?? ['METER'];
  // The template's connection inputs (a meter number): a required one left out failed the example's own dry run (a new user's walk).
  const connection = t?.connectionInputs ?? [];
  const sample = (c: { type: string }) => (c.type === 'number' ? '1' : c.type === 'date' ? '01/01/2026' : c.type === 'boolean' ? 'true' : 'M-0001');
  const rows: string[][] =
    kind === 'accounts'
      ? [
          ['accountNumber', 'name', 'email', 'phone', 'address', 'serviceCode', 'batchCode', 'startDate', ...connection.map((c) => `connection.${c.code}`), ...meters.map((m) => `reading.${m}`)],
          ['A-0001', 'Jane Doe', 'jane@example.com', '+254 700 000001', '1 Main St', service, batch, '01/01/2026', ...connection.map(sample), ...meters.map(() => '0')],
        ]
      : kind === 'subscriptions'
        ? [
            ['accountNumber', 'serviceCode', 'batchCode', 'startDate', ...connection.map((c) => `connection.${c.code}`), ...meters.map((m) => `reading.${m}`)],
            ['A-0001', service, batch, '01/01/2026', ...connection.map(sample), ...meters.map(() => '0')],
          ]
        : [
            ['accountNumber', 'serviceCode', 'inputCode', 'readingDate', 'value'],
            ['A-0001', service, meters[0] ?? 'METER', '31/01/2026', '12'],
          ];
  return rows.map((r) => r.join(',')).join('\n') + '\n';
}

function Progressing() {
  // The running import's progress, from another connection than the upload's (saved twice a second).
  const running = useQuery({
    queryKey: ['imports', 'running'],
    refetchInterval: 500,
    queryFn: () => read('/billing/imports/get-imports', { method: 'Retrieve', action: 'Retrieve Imports', apiVersion: 'v2', data: { status: 'running', limit: 1 } }),
  });
  const i = running.data?.imports[0];
  return (
    <Stack gap={4} data-testid="import-progress">
      <Text size="sm">{i ? `Import ${i.importID}: ${i.rowsRead.toLocaleString()} rows read${i.percent !== null ? ` (${i.percent}%)` : ''}` : 'Sending the file ...'}</Text>
      <Progress value={i?.percent ?? 0} animated size="lg" aria-label="Import progress" />
    </Stack>
  );
}

export function Imports() {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('accounts');
  const [file, setFile] = useState<File | null>(null);
  const resetFile = useRef<() => void>(null);
  const [dryRun, setDryRun] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ importId: number | null; error: ApiError | null } | null>(null);
  const [offset, setOffset] = useState(0);
  const templates = useTemplates();
  const list = useQuery({
    queryKey: ['imports', offset],
    queryFn: () => read('/billing/imports/get-imports', { method: 'Retrieve', action: 'Retrieve Imports', apiVersion: 'v2', data: { limit: 20, offset } }),
  });
  const result = useQuery({
    queryKey: ['import', outcome?.importId],
    enabled: !!outcome?.importId,
    queryFn: () => read('/billing/imports/get-imports', { method: 'Retrieve', action: 'Retrieve Imports', apiVersion: 'v2', data: { importID: outcome!.importId! } }),
  });
  const done = result.data?.imports[0];
  const upload = async () => {
    if (!file) return;
    setBusy(true);
    setOutcome(null);
    try {
      const o = await uploadCsv(kind, file, dryRun);
      setOutcome(o);
      // Chosen again after a fix, a file of the same name fired no change and was not sent
      // (an officer's walk): each upload asks for the file anew.
      setFile(null);
      resetFile.current?.();
      if (!o.error) notifyDone(dryRun ? 'The file is valid; nothing was written.' : 'Imported.');
      await queryClient.invalidateQueries({ queryKey: ['imports'] });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <Title order={2}>Imports</Title>
      {can('biller') && (
        <Card withBorder>
          <Stack>
            <Group align="flex-end">
              <Select label="What the file holds" data={['accounts', 'subscriptions', 'readings']} value={kind} onChange={(v) => v && setKind(v as Kind)} allowDeselect={false} w={180} />
              <FileInput label="CSV file" placeholder="Choose a .csv file" accept=".csv,text/csv" value={file} onChange={setFile} resetRef={resetFile} w={320} clearable data-testid="import-file" />
              <Checkbox label="Check only (dry run)" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} mb={8} />
              <Button onClick={() => void upload()} disabled={!file} loading={busy}>
                Import
              </Button>
            </Group>
            <Group gap="xs">
              <Text size="xs" c="dimmed">
                Columns: {COLUMNS[kind]}. The first row names the columns. All or nothing: one bad row and nothing is written.
              </Text>
              <Button size="compact-xs" variant="subtle" onClick={() => downloadCsv(`example-${kind}.csv`, exampleCsv(kind, templates.data?.services[0]))}>
                Download an example file
              </Button>
            </Group>
            {busy && <Progressing />}
            {outcome && done && (
              <Alert color={outcome.error ? 'red' : 'teal'} title={outcome.error ? `Nothing was imported: ${done.errorCount} problem(s) in the rows` : `Import ${done.importID} ${done.status}`} data-testid="import-result">
                {outcome.error
                  ? outcome.error.message
                  : done.status === 'validated'
                    ? `${done.rowsRead} rows checked: every row is good. Nothing was written (a dry run); import the file without "Check only" to write it.`
                    : `${done.rowsRead} rows: ${done.accountsWritten} accounts, ${done.subscriptionsWritten} subscriptions, ${done.readingsWritten} readings written.`}
              </Alert>
            )}
            {outcome?.error && !done && <Alert color="red">{outcome.error.describe()}</Alert>}
            {done && done.errors.length > 0 && <DataTable columns={errorColumns} data={done.errors} testId="import-errors" />}
          </Stack>
        </Card>
      )}
      <Title order={4}>Earlier imports</Title>
      <DataTable columns={importColumns} data={list.data?.imports} loading={list.isLoading} empty="No import yet." />
      {/* get-imports answers no total: a full page means there may be more. */}
      <KeysetPager page={offset / 20} hasMore={(list.data?.imports.length ?? 0) === 20} onPrevious={() => setOffset(Math.max(0, offset - 20))} onNext={() => setOffset(offset + 20)} />
    </Stack>
  );
}
