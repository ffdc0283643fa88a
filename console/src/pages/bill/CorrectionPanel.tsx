// Corrections of one bill (docs/corrections.md): a posted bill cancelled by a credit note and
// billed again with the readings as they are now; a cancelled bill says by which credit note
// and what replaced it; a rebill says which bill it replaces. An officer could do none of it
// here and had to use the API (a new user's walk).
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Button, Checkbox, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { ApiError, call, fetchFile, read, type Data } from '../../api/client.ts';
import { openBlob } from '../../components/download.ts';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { useSession } from '../../session.tsx';

type Bill = Data<'/billing/bills/get-bills'>['bills'][number];
type Correction = Data<'/billing/bills/cancel-bill'>;

async function openCreditNote(creditNoteID: number): Promise<void> {
  try {
    const { blob } = await fetchFile('/billing/documents/get-credit-note-document', { method: 'Retrieve', action: 'Retrieve Credit Note Document', apiVersion: 'v2', data: { creditNoteID } });
    openBlob(blob);
  } catch (err) {
    notifyError(err);
  }
}

/**
 * A link to another bill by its number, which is what an officer reads on paper (the link
 * said "its rebill" and the address holds the bill's id, not its number: an officer's walk).
 */
function BillLink({ billID, before }: { billID: number; before: string }) {
  const q = useQuery({
    queryKey: ['bill', billID],
    queryFn: async () => (await read('/billing/bills/get-bills', { method: 'Retrieve', action: 'Retrieve Bills', apiVersion: 'v2', data: { billID } })).bills[0] ?? null,
  });
  return (
    <Anchor inherit component={Link} to={`/bills/${billID}`}>
      {before} {q.data ? q.data.billNumber : '…'}
    </Anchor>
  );
}

export function CorrectionPanel({ bill }: { bill: Bill }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const [rebill, setRebill] = useState(true);
  const [error, setError] = useState<string | undefined>();
  // What the correction would do (cancel-bill's dry run), shown before it is confirmed: an officer
  // rebilled a bill whose reading was not yet corrected, and the customer got a credit note and the
  // same bill again.
  const [preview, setPreview] = useState<Correction | null>(null);
  const [busy, setBusy] = useState(false);
  const note = bill.creditNote;

  const refused = (err: unknown) => {
    if (err instanceof ApiError) {
      const onReason = err.details.find((d) => d.path === 'data.reason');
      if (onReason) return setError(onReason.message);
    }
    notifyError(err);
  };
  const check = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const { data } = await call('/billing/bills/cancel-bill', { method: 'Update', action: 'Cancel Bill', apiVersion: 'v2', data: { billID: bill.billID, reason: reason.trim(), rebill, dryRun: true } });
      setPreview(data);
    } catch (err) {
      refused(err);
    } finally {
      setBusy(false);
    }
  };
  const cancel = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const { data } = await call('/billing/bills/cancel-bill', { method: 'Update', action: 'Cancel Bill', apiVersion: 'v2', data: { billID: bill.billID, reason: reason.trim(), rebill } });
      const made = data.creditNotes[0];
      notifyDone(
        made?.rebillNumber != null
          ? `Bill ${bill.billNumber} cancelled by credit note ${made.creditNoteNumber}; bill ${made.rebillNumber} replaces it.`
          : `Bill ${bill.billNumber} cancelled by credit note ${made?.creditNoteNumber ?? ''}.`,
      );
      // Balances, statements, ageing and the term's bills all moved.
      await queryClient.invalidateQueries();
      setPreview(null);
      if (made?.rebillID != null) void navigate(`/bills/${made.rebillID}`);
    } catch (err) {
      refused(err);
    } finally {
      setBusy(false);
    }
  };
  const unchanged = preview !== null && preview.rebilled > 0 && Number(preview.change) === 0;

  return (
    <Stack gap="xs" data-testid="corrections">
      {bill.correctsBillID !== null && (
        <Alert color="blue" title="A corrected bill">
          {/* Bill ids are not bill numbers: the link says what it is (a reviewer found ids shown as numbers). */}
          This bill replaces <BillLink billID={bill.correctsBillID} before="bill" />, cancelled by a credit note.
        </Alert>
      )}
      {note && (
        <Alert color="orange" title={`Cancelled by credit note ${note.creditNoteNumber} on ${note.creditDate}`}>
          <Stack gap={4}>
            <Text size="sm">
              {note.amount} credited to the account. Reason: {note.reason}
            </Text>
            {note.rebillID !== null ? (
              <Text size="sm">
                Replaced by <BillLink billID={note.rebillID} before="bill" />.
              </Text>
            ) : (
              <Text size="sm">Not billed again.</Text>
            )}
            <Group>
              <Button size="xs" variant="light" color="orange" onClick={() => void openCreditNote(note.creditNoteID)}>
                Open the credit note (PDF)
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
      {bill.status === 'posted' && can('biller') && (
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Title order={5}>Correct this bill</Title>
            <Text size="sm" c="dimmed">
              A posted bill is never changed: it is cancelled by a credit note (which reverses it on the account) and, if you choose, billed again with the
              readings and tariff as they are now. Correct a wrong reading first (the account's readings), then cancel and rebill. Payments that settled it
              move to the open bills.
            </Text>
            <TextInput
              label="Reason"
              description="Printed on the credit note"
              required
              value={reason}
              onChange={(e) => {
                setReason(e.currentTarget.value);
                setPreview(null);
              }}
              error={error}
              maw={480}
            />
            <Checkbox
              label="Bill again with the readings as they are now"
              checked={rebill}
              onChange={(e) => {
                setRebill(e.currentTarget.checked);
                setPreview(null);
              }}
            />
            {preview === null ? (
              <Group>
                <Button color="orange" disabled={reason.trim() === ''} loading={busy} onClick={() => void check()}>
                  {rebill ? 'Cancel and rebill' : 'Cancel the bill'}
                </Button>
              </Group>
            ) : (
              <Alert color={unchanged ? 'yellow' : 'orange'} title={rebill ? `Cancel bill ${bill.billNumber} by a credit note and bill it again?` : `Cancel bill ${bill.billNumber} by a credit note, without a new bill?`} data-testid="correction-preview">
                <Stack gap="xs">
                  <Text size="sm">
                    Credit note of {preview.credited}
                    {preview.rebilled > 0 ? `; the new bill would be ${preview.rebilledAmount} (a change of ${preview.change} on the account)` : ''}
                    {Number(preview.lateChargesReversed) !== 0 ? `; late payment charges reversed: ${preview.lateChargesReversed}` : ''}.
                  </Text>
                  {unchanged && (
                    <Text size="sm" fw={500}>
                      The new bill would be the same as this one. If a reading was wrong, correct it first (the account's readings): otherwise the customer gets a credit note
                      and the same bill again.
                    </Text>
                  )}
                  <Group gap="xs">
                    <Button size="xs" color="orange" loading={busy} onClick={() => void cancel()}>
                      Yes
                    </Button>
                    <Button size="xs" variant="default" onClick={() => setPreview(null)}>
                      No
                    </Button>
                  </Group>
                </Stack>
              </Alert>
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
