// A processed term's documents: how their rendering stands, the failed ones with their
// reasons and "render again", and the print extract for the print house.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Checkbox, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { call, fetchFile, read } from '../../api/client.ts';
import { DataTable, type Column } from '../../components/DataTable.tsx';
import { ExtractButtons } from '../../components/ExtractButtons.tsx';
import { notifyDone, notifyError, StatusBadge } from '../../components/feedback.tsx';
import type { BillDocument } from '../bill/DocumentPanel.tsx';

const FAILED_SHOWN = 100;
const FORMATS = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSON lines' },
  { format: 'pdf', label: 'PDF of every bill' },
] as const;

const failedColumns: Column<BillDocument>[] = [
  { header: 'Bill', accessorKey: 'billID' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Attempts', accessorKey: 'attempts' },
  { header: 'Reason', cell: ({ row }) => row.original.error ?? '—' },
];

function useDocuments(termID: number, status: 'pending' | 'failed', limit: number) {
  return useQuery({
    queryKey: ['term-documents', termID, status],
    queryFn: () => read('/billing/documents/get-bill-documents', { method: 'Retrieve', action: 'Retrieve Bill Documents', apiVersion: 'v2', data: { termID, status, limit } }),
    // Rendering goes on in the workers after the run: look again while some wait.
    refetchInterval: (q) => (status === 'pending' && (q.state.data?.documents.length ?? 0) > 0 ? 2000 : false),
  });
}

export function DocumentsPanel({ termID, canWrite }: { termID: number; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const pending = useDocuments(termID, 'pending', 1);
  const failed = useDocuments(termID, 'failed', FAILED_SHOWN);
  const [onlyPrint, setOnlyPrint] = useState(false);
  const renderAgain = async () => {
    try {
      const { headers } = await call('/billing/documents/render-bill-documents', { method: 'Update', action: 'Render Bill Documents', apiVersion: 'v2', data: { termID } });
      notifyDone(`${headers.get('x-billrun-documents') ?? 'The'} document(s) queued for rendering.`);
      await queryClient.invalidateQueries({ queryKey: ['term-documents', termID] });
    } catch (err) {
      notifyError(err);
    }
  };
  const failedRows = failed.data?.documents ?? [];
  const waiting = (pending.data?.documents.length ?? 0) > 0;
  return (
    <Paper withBorder p="md" data-testid="term-documents">
      <Stack gap="xs">
        <Title order={4}>Documents</Title>
        <Text size="sm">
          {waiting ? 'Rendering: some bills still wait for their PDF. ' : 'Every bill has been through rendering. '}
          {failedRows.length === 0
            ? 'None failed.'
            : `${failedRows.length === FAILED_SHOWN ? `At least ${FAILED_SHOWN}` : failedRows.length} failed (below, with the reason).`}
        </Text>
        {failedRows.length > 0 && (
          <>
            <DataTable columns={failedColumns} data={failedRows} testId="failed-documents" />
            {canWrite && (
              <Group>
                <Button size="xs" variant="light" color="orange" onClick={() => void renderAgain()}>
                  Render the failed ones again
                </Button>
              </Group>
            )}
          </>
        )}
        {canWrite && (
          <>
            <Title order={5}>Print extract</Title>
            <Group gap="xs">
              <ExtractButtons
                formats={FORMATS}
                name={`term-${termID}${onlyPrint ? '-print' : ''}`}
                fetch={(format) =>
                  fetchFile('/billing/documents/get-print-extract', { method: 'Retrieve', action: 'Retrieve Print Extract', apiVersion: 'v2', data: { termID, format, ...(onlyPrint ? { only: 'print' as const } : {}) } })
                }
              />
              <Checkbox size="xs" label="Only the accounts that take paper" checked={onlyPrint} onChange={(e) => setOnlyPrint(e.currentTarget.checked)} />
            </Group>
          </>
        )}
      </Stack>
    </Paper>
  );
}
