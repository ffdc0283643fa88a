// A bill's document (its PDF and the state of its rendering) and the e-mails that carried it.
// The PDF is fetched with the token and opened from a blob URL: the token is no cookie, so
// a plain link to the operation would reach the API unauthenticated.
import { atText } from '../../api/dates.ts';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { call, fetchFile, read, type Data } from '../../api/client.ts';
import { DataTable, type Column } from '../../components/DataTable.tsx';
import { downloadBlob, openBlob } from '../../components/download.ts';
import { notifyDone, notifyError, StatusBadge } from '../../components/feedback.tsx';
import { useSession } from '../../session.tsx';

type Delivery = Data<'/billing/deliveries/get-deliveries'>['deliveries'][number];
export type BillDocument = Data<'/billing/documents/get-bill-documents'>['documents'][number];

/** One bill's document state: get-bill-documents pages by billID, so the page after billID - 1 starts with it. */
export function useBillDocument(termID: number, billID: number) {
  return useQuery({
    queryKey: ['bill-document', billID],
    queryFn: async () => {
      const d = await read('/billing/documents/get-bill-documents', {
        method: 'Retrieve',
        action: 'Retrieve Bill Documents',
        apiVersion: 'v2',
        data: { termID, afterBillID: billID - 1, limit: 1 },
      });
      return d.documents.find((x) => x.billID === billID) ?? null;
    },
    // A document is rendered by a worker after the run: look again while it is pending.
    refetchInterval: (q) => (q.state.data?.status === 'pending' ? 2000 : false),
  });
}

export async function fetchBillPdf(billID: number): Promise<Blob> {
  const { blob } = await fetchFile('/billing/documents/get-bill-document', { method: 'Retrieve', action: 'Retrieve Bill Document', apiVersion: 'v2', data: { billID } });
  return blob;
}

const deliveryColumns = (resend: ((d: Delivery) => void) | null): Column<Delivery>[] => [
  { header: 'E-mail', accessorKey: 'deliveryID' },
  // A cancelled bill's page lists its credit note's e-mail too; a rebill's e-mail carries the note (docs/corrections.md).
  {
    header: 'Of',
    cell: ({ row }) =>
      row.original.document === 'credit note' ? 'Credit note' : row.original.creditNoteID !== null ? 'Bill, with its credit note' : 'Bill',
  },
  { header: 'To', accessorKey: 'recipient' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Attempts', accessorKey: 'attempts' },
  { header: 'Queued', cell: ({ row }) => atText(row.original.queuedAt) },
  { header: 'Sent', cell: ({ row }) => row.original.sentAt ? atText(row.original.sentAt) : '—' },
  { header: 'Last error', cell: ({ row }) => row.original.lastError ?? '—' },
  { header: 'Resend of', cell: ({ row }) => row.original.resendOf ?? '—' },
  ...(resend
    ? [
        {
          header: '',
          id: 'resend',
          cell: ({ row }: { row: { original: Delivery } }) => (
            <Button size="compact-xs" variant="light" onClick={() => resend(row.original)}>
              Send again
            </Button>
          ),
        },
      ]
    : []),
];

export function DocumentPanel({ termID, billID, billNumber, billStatus }: { termID: number; billID: number; billNumber: number; billStatus: string }) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const doc = useBillDocument(termID, billID);
  const deliveries = useQuery({
    queryKey: ['bill-deliveries', billID],
    queryFn: () => read('/billing/deliveries/get-deliveries', { method: 'Retrieve', action: 'Retrieve Deliveries', apiVersion: 'v2', data: { billID } }),
  });
  const withPdf = async (use: (blob: Blob) => void) => {
    setBusy(true);
    try {
      use(await fetchBillPdf(billID));
    } catch (err) {
      notifyError(err, 'No PDF');
    } finally {
      setBusy(false);
    }
  };
  const renderAgain = async () => {
    try {
      await call('/billing/documents/render-bill-documents', { method: 'Update', action: 'Render Bill Documents', apiVersion: 'v2', data: { termID, billIDs: [billID] } });
      notifyDone('Queued for rendering.');
      await queryClient.invalidateQueries({ queryKey: ['bill-document', billID] });
    } catch (err) {
      notifyError(err);
    }
  };
  const resend = async (d: Delivery) => {
    try {
      const { headers } = await call('/billing/deliveries/resend-delivery', { method: 'Update', action: 'Resend Delivery', apiVersion: 'v2', data: { deliveryID: d.deliveryID } });
      notifyDone(`Queued as e-mail ${headers.get('x-billrun-delivery-id') ?? ''}.`);
      await queryClient.invalidateQueries({ queryKey: ['bill-deliveries', billID] });
    } catch (err) {
      notifyError(err);
    }
  };
  const d = doc.data;
  return (
    <Stack gap="xs">
      <Title order={4}>Bill document (PDF)</Title>
      {/* A draft's PDF looks like the final bill, number and payment reference included (an officer's walk): it is rendered for review when the run ends and sent only once the term is posted. */}
      {billStatus === 'draft' && (
        <Alert color="yellow" data-testid="draft-document">
          This bill is a draft: its document is for review, and is not sent to the customer until the term is posted. Posting does not change it.
        </Alert>
      )}
      <Paper withBorder p="sm" data-testid="bill-document">
        {doc.isLoading ? (
          <Loader size="sm" />
        ) : !d ? (
          <Text size="sm" c="dimmed">
            No document yet: documents are made when the bill run finishes.
          </Text>
        ) : (
          <Group justify="space-between">
            <Group gap="xs">
              <StatusBadge status={d.status} />
              <Text size="sm">
                {d.status === 'rendered' && `${Math.ceil((d.bytes ?? 0) / 1024)} kB, rendered ${atText(d.renderedAt)} with template ${d.templateID || 'default'} version ${d.templateVersion}`}
                {d.status === 'pending' && 'Waiting for a worker to render it.'}
                {d.status === 'failed' && `Rendering failed after ${d.attempts} attempts.`}
              </Text>
            </Group>
            <Group gap="xs">
              {d.status === 'rendered' && (
                <>
                  <Button size="xs" loading={busy} onClick={() => void withPdf(openBlob)}>
                    Open PDF
                  </Button>
                  <Button size="xs" variant="default" disabled={busy} onClick={() => void withPdf((b) => downloadBlob(`bill-${billNumber}.pdf`, b))}>
                    Download
                  </Button>
                </>
              )}
              {d.status === 'failed' && can('biller') && (
                <Button size="xs" variant="light" color="orange" onClick={() => void renderAgain()}>
                  Render again
                </Button>
              )}
            </Group>
          </Group>
        )}
        {d?.error && (
          <Alert color="red" mt="xs" title="Why it failed">
            {d.error}
          </Alert>
        )}
      </Paper>
      <Title order={4}>E-mails</Title>
      <DataTable
        columns={deliveryColumns(can('biller') ? (x) => void resend(x) : null)}
        data={deliveries.data?.deliveries}
        loading={deliveries.isLoading}
        empty="Not e-mailed: a bill is e-mailed when it is posted, if its account takes e-mail."
        testId="bill-deliveries"
      />
    </Stack>
  );
}
