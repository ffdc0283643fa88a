// Step 6: process now or at a date-time in the app's time zone; live progress while the
// run's jobs go (get-terms every second: counts and chunks, never the bills); failures
// with their reasons, fixed and retried.
import { atText } from '../../api/dates.ts';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { read } from '../../api/client.ts';
import { useTemplates } from '../../api/queries.ts';
import { DataTable, Pager, type Column } from '../../components/DataTable.tsx';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { useSession } from '../../session.tsx';
import { ALLOWED, RUNNING, termSteps, type Term } from './actions.ts';
import { FixReading, readingFinding } from './FixReading.tsx';
import { meteredInputsOf } from './ReadingsPanel.tsx';
import type { Data } from '../../api/client.ts';

type Failure = Data<'/billing/terms/get-failures'>['failures'][number];

function Failures({ term, canWrite }: { term: Term; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const meters = meteredInputsOf(templates.data, term.serviceCode).map((m) => m.code);
  const [offset, setOffset] = useState(0);
  const failures = useQuery({
    queryKey: ['failures', term.termID, offset, term.counts.failures],
    queryFn: () =>
      read('/billing/terms/get-failures', { method: 'Retrieve', action: 'Retrieve Term Failures', apiVersion: 'v2', operation: 'schedule', data: { termID: term.termID, limit: 50, offset } }),
  });
  const columns: Column<Failure>[] = [
    { header: 'Account', accessorKey: 'accountNumber' },
    { header: 'Subscription', accessorKey: 'subscriptionID' },
    { header: 'Code', accessorKey: 'code' },
    { header: 'Reason', accessorKey: 'reason' },
    ...(canWrite && (term.status === 'Processed' || term.status === 'Posted')
      ? [{ header: 'Fix: enter the reading', cell: ({ row }) => {
            const finding = { code: row.original.code, path: row.original.details[0]?.path, readingDate: row.original.details[0]?.readingDate };
            return readingFinding(finding) ? <FixReading term={term} subscriptionID={row.original.subscriptionID} meters={meters} finding={finding} onSaved={() => {}} /> : null;
          } } as Column<Failure>]
      : []),
  ];
  return (
    <Stack gap="xs">
      <Title order={5}>Not billed ({term.counts.failures})</Title>
      <DataTable columns={columns} data={failures.data?.failures} loading={failures.isLoading} testId="failures-table" />
      <Pager paging={failures.data?.paging} onOffset={setOffset} />
      {canWrite && (term.status === 'Processed' || term.status === 'Posted') && (
        <Group>
          <Button
            onClick={async () => {
              try {
                await termSteps.retry(term.termID);
                notifyDone('The failed subscriptions are being rated again.');
                await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
              } catch (err) {
                notifyError(err);
              }
            }}
          >
            Retry the failed subscriptions
          </Button>
          <Text size="sm" c="dimmed">
            Fix their readings first (above, or by uploading a sheet in step 3).
          </Text>
        </Group>
      )}
    </Stack>
  );
}

export function ProcessPanel({ term, canWrite }: { term: Term; canWrite: boolean }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const [at, setAt] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const allowed = ALLOWED.process.includes(term.status);
  const running = RUNNING.includes(term.status);
  const process = async () => {
    setBusy(true);
    try {
      // The picker's "YYYY-MM-DD HH:mm:ss" is a wall-clock time: the API reads it in the app's zone.
      await termSteps.process(term.termID, at ? at.replace(' ', 'T').slice(0, 19) : null);
      notifyDone(at ? `Scheduled for ${at} (${app?.timeZone ?? 'app time'}).` : 'The run has started.');
      await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
    } catch (err) {
      notifyError(err);
    } finally {
      setBusy(false);
    }
  };
  const p = term.job.progress;
  return (
    <Stack>
      {term.status === 'Scheduled' && (
        <Text size="sm" c="dimmed">
          Waiting for its time. When it starts, the steps not done yet (load, the readings' check) run first. Cancel the term to stop it.
        </Text>
      )}
      {term.status !== 'Approved' && allowed && (
        <Text size="sm" c="dimmed">
          Steps not done yet (load, validate, approve) run first. If a reading is missing the term ends Failed and no bill is made.
        </Text>
      )}
      {canWrite && allowed && (
        <Group align="flex-end">
          <DateTimePicker
            label={`Run at (${app?.timeZone ?? 'the app time zone'})`}
            description="Empty: now"
            placeholder="now"
            valueFormat="DD/MM/YYYY HH:mm"
            clearable
            value={at}
            onChange={setAt}
            w={240}
          />
          <Button onClick={() => void process()} loading={busy}>
            {at ? 'Schedule the run' : 'Process now'}
          </Button>
        </Group>
      )}
      {(running || term.job.state !== 'none') && (
        <Stack gap={4} data-testid="progress">
          <Group justify="space-between">
            <Text size="sm">
              Job: <b>{term.job.state}</b>
              {term.job.sheduleTime && ` · scheduled for ${term.job.sheduleTime.replace('T', ' ')} (${app?.timeZone ?? 'app time'})`}
              {term.job.startedAt && ` · started ${atText(term.job.startedAt)}`}
              {term.job.finishedAt && ` · finished ${atText(term.job.finishedAt)}`}
            </Text>
            <Text size="sm">
              {p.chunksDone} of {p.chunksTotal} chunks · {term.counts.bills.toLocaleString()} bills · {term.counts.failures.toLocaleString()} failures
            </Text>
          </Group>
          <Progress value={p.percent} animated={running} size="lg" aria-label="Run progress" />
          {term.job.lastError && <Alert color="red">{term.job.lastError}</Alert>}
        </Stack>
      )}
      {term.status === 'Failed' && (
        <Alert color="red" title="The run stopped before billing">
          Its own check found {term.counts.exceptions} exception(s), listed in step 4. Fix the readings, then process again.
        </Alert>
      )}
      {term.counts.failures > 0 && <Failures term={term} canWrite={canWrite} />}
    </Stack>
  );
}
