// Step 3: readings for the term. The officer downloads the roster as a reading sheet,
// fills in the values and uploads it; bad rows come back by row and column.
import { useRef, useState } from 'react';
import Papa from 'papaparse';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, FileButton, Group, Stack, Table, Text } from '@mantine/core';
import { ApiError, fetchFile } from '../../api/client.ts';
import { useTemplates } from '../../api/queries.ts';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { downloadBlob } from '../../components/download.ts';
import { appTodayApi, earlierDay } from '../../api/dates.ts';
import { useSession } from '../../session.tsx';
import { ALLOWED, termSteps, type ReadingInput, type Term } from './actions.ts';

export function meteredInputsOf(templates: ReturnType<typeof useTemplates>['data'], serviceCode: string) {
  return templates?.services.find((s) => s.serviceCode === serviceCode)?.meteredInputs ?? [];
}

/**
 * The term's reading sheet, made by the API (get-reading-sheet): a row per roster meter with
 * the account, its address, the meter number and the reading the bill subtracts from, so
 * a misread shows before it is keyed in (an officer's walk: ids and codes alone).
 */
async function downloadSheet(term: Term, unreadOnly: boolean): Promise<void> {
  const { blob } = await fetchFile('/billing/terms/get-reading-sheet', {
    method: 'Retrieve',
    action: 'Retrieve Reading Sheet',
    apiVersion: 'v2',
    operation: 'schedule',
    data: { termID: term.termID, ...(unreadOnly ? { unreadOnly: true } : {}) },
  });
  downloadBlob(`readings-term-${term.termID}${unreadOnly ? '-unread' : ''}.csv`, blob);
}

type RowError = { row: number; column: string; message: string };

export function ReadingsPanel({ term, canWrite }: { term: Term; canWrite: boolean }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const meters = meteredInputsOf(templates.data, term.serviceCode).map((m) => m.code);
  const [busy, setBusy] = useState(false);
  const [rowErrors, setRowErrors] = useState<RowError[]>([]);
  const [result, setResult] = useState<string | null>(null);
  const allowed = ALLOWED.capture.includes(term.status);
  // The sheet lists the roster, which step 2 loads.
  const loaded = term.status !== 'Draft' && term.status !== 'Cancelled';
  const resetFile = useRef<() => void>(null);

  const download = async (unreadOnly: boolean) => {
    try {
      await downloadSheet(term, unreadOnly);
    } catch (err) {
      notifyError(err);
    }
  };

  const upload = async (file: File | null) => {
    if (!file) return;
    setBusy(true);
    setRowErrors([]);
    setResult(null);
    try {
      const parsed = Papa.parse<Record<string, string>>(await file.text(), { header: true, skipEmptyLines: 'greedy', transform: (v) => v.trim() });
      // Rows without a value are the sheet's untouched lines: not sent. fileRow maps each sent reading back to its line (the header is line 1).
      const readings: ReadingInput[] = [];
      const fileRow: number[] = [];
      const local: RowError[] = [];
      parsed.data.forEach((r, i) => {
        if (!r.value) return;
        const id = Number(r.subscriptionID);
        if (!Number.isInteger(id) || id < 1) local.push({ row: i + 2, column: 'subscriptionID', message: 'must be a subscription id' });
        readings.push({ subscriptionID: id, inputCode: r.inputCode ?? '', readingDate: r.readingDate || earlierDay(term.endDate, appTodayApi(app)), value: r.value, ...(r.note ? { note: r.note } : {}) });
        fileRow.push(i + 2);
      });
      if (local.length) return setRowErrors(local);
      if (readings.length === 0) return setResult('The file has no row with a value.');
      try {
        const { headers } = await termSteps.capture(term.termID, readings);
        setResult(`${headers.get('x-billrun-readings') ?? readings.length} reading(s) recorded from ${file.name}.`);
        notifyDone('Readings recorded.');
        await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const errs = err.details.map((d) => {
          const m = /^data\.readings\[(\d+)\]\.?(.*)$/.exec(d.path);
          return m ? { row: fileRow[Number(m[1])] ?? 0, column: m[2] || '(row)', message: d.message } : { row: 0, column: d.path, message: d.message };
        });
        setRowErrors(errs.length ? errs : [{ row: 0, column: '', message: err.message }]);
      }
    } catch (err) {
      notifyError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack>
      <Text size="sm">
        Readings dated in the term ({term.startDate} to {term.endDate}) of the meters {meters.join(', ') || '(none)'}. Download the sheet of this term's
        subscriptions (each with its account, address, meter number and the last reading: what the bill subtracts from, or, on a demand register, when it was
        reset), fill in the <b>value</b> column (leave a row empty to skip it), and upload it. Readings already recorded through imports count too, and the sheet
        shows them.
      </Text>
      {!loaded && <Text size="sm" c="dimmed">The sheet lists the term's roster: load the subscriptions first (step 2).</Text>}
      <Group>
        <Button variant="default" onClick={() => void download(false)} disabled={meters.length === 0 || !loaded}>
          Download reading sheet (CSV)
        </Button>
        <Button variant="subtle" onClick={() => void download(true)} disabled={meters.length === 0 || !loaded}>
          Only the meters not read yet
        </Button>
        {canWrite && (
          // Cleared after each pick: the same file fixed and picked again under its name was not sent (an officer's walk).
          <FileButton resetRef={resetFile} onChange={(f) => void upload(f).finally(() => resetFile.current?.())} accept=".csv,text/csv">
            {(props) => (
              <Button {...props} loading={busy} disabled={!allowed} data-testid="upload-readings">
                Upload readings (CSV)
              </Button>
            )}
          </FileButton>
        )}
      </Group>
      {!allowed && <Text size="sm" c="dimmed">Readings can be captured when the term is Loaded, Validated, Failed or Processed (for failed subscriptions); it is {term.status}.</Text>}
      {result && <Alert color="teal">{result}</Alert>}
      {rowErrors.length > 0 && (
        <Alert color="red" title="Nothing was recorded: fix these rows and upload again">
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Row</Table.Th>
                <Table.Th>Column</Table.Th>
                <Table.Th>Problem</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rowErrors.map((e, i) => (
                <Table.Tr key={i}>
                  <Table.Td>{e.row || '—'}</Table.Td>
                  <Table.Td>{e.column}</Table.Td>
                  <Table.Td>{e.message}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Alert>
      )}
    </Stack>
  );
}
