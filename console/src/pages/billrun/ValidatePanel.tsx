// Step 4: validate. Every roster subscription is rated without writing a bill: the
// exceptions (what would fail or look unusual) and the totals the run would make.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTemplates } from '../../api/queries.ts';
import { lineWorking } from '../../components/lineText.ts';
import { DataTable, type Column } from '../../components/DataTable.tsx';
import { Amount, StatusBadge, notifyError } from '../../components/feedback.tsx';
import { ALLOWED, termSteps, type Term, type Validation } from './actions.ts';
import { FixReading, readingFinding } from './FixReading.tsx';
import { meteredInputsOf } from './ReadingsPanel.tsx';

type Exception = Term['exceptions'][number];
type PreviewBill = Validation['previewBills'][number];

export function Totals({ items, testId }: { items: [string, string | number][]; testId?: string }) {
  return (
    <SimpleGrid cols={{ base: 3, lg: 6 }} spacing="xs">
      {items.map(([label, value]) => (
        <Paper key={label} withBorder p="xs">
          <Text size="xs" c="dimmed">
            {label}
          </Text>
          <Text fw={600} ff={typeof value === 'string' ? 'monospace' : undefined} data-testid={testId ? `${testId}-${label}` : undefined}>
            {typeof value === 'number' ? value.toLocaleString() : value}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}

export function ExceptionsTable({ term, exceptions, canWrite, onFixed }: { term: Term; exceptions: Exception[]; canWrite: boolean; onFixed: () => void }) {
  const templates = useTemplates();
  const meters = meteredInputsOf(templates.data, term.serviceCode).map((m) => m.code);
  const fixable = canWrite && ALLOWED.capture.includes(term.status);
  const columns: Column<Exception>[] = [
    { header: 'Severity', cell: ({ row }) => <StatusBadge status={row.original.severity} /> },
    { header: 'Code', accessorKey: 'code' },
    // The account's own number (older terms' stored exceptions have only the id).
    { header: 'Account', cell: ({ row }) => row.original.accountNumber || `id ${row.original.accountID}` },
    { header: 'Subscription', accessorKey: 'subscriptionID' },
    { header: 'What is wrong', accessorKey: 'message' },
    ...(fixable
      ? [
          {
            header: 'Fix: enter the reading',
            // Only where a reading is what is wrong: a subscription held back with another of its account had a row inviting it to replace a good reading (a reviewer).
            cell: ({ row }) => (readingFinding(row.original) ? <FixReading term={term} subscriptionID={row.original.subscriptionID} meters={meters} finding={row.original} onSaved={onFixed} /> : null),
          } as Column<Exception>,
        ]
      : []),
  ];
  // Before any check the term has none to show: "every subscription can be billed" was said of a term never validated.
  const checked = term.status !== 'Draft' && term.status !== 'Loaded';
  return <DataTable columns={columns} data={exceptions} empty={checked ? 'No exception: every subscription can be billed.' : 'Not validated yet: validate to see what would stop a bill.'} testId="exceptions-table" />;
}

const previewColumns = (modelOf: (code: string) => string | undefined): Column<PreviewBill>[] => [
  { header: 'Account', cell: ({ row }) => row.original.accountNumber ?? `id ${row.original.accountID}` },
  { header: 'Subscription', accessorKey: 'subscriptionID' },
  { header: 'Lines', cell: ({ row }) => row.original.lines.map((l) => lineWorking(l, modelOf(l.componentCode))).join('; ') },
  { header: 'Estimated', cell: ({ row }) => (row.original.estimated ? 'yes' : '') },
  { header: 'Total', cell: ({ row }) => <Amount value={row.original.total} />, meta: { align: 'right' } },
  { header: 'Total due', cell: ({ row }) => <Amount value={row.original.totalDue} />, meta: { align: 'right' } },
];

/** result is kept by the page: validating moves the term to Validated, and the findings must outlive that re-render. */
export function ValidatePanel({ term, canWrite, result, setResult, onNext }: { term: Term; canWrite: boolean; result: Validation | null; setResult: (v: Validation) => void; onNext: () => void }) {
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const [estimate, setEstimate] = useState(false);
  const [busy, setBusy] = useState(false);
  const allowed = ALLOWED.validate.includes(term.status);
  const validate = async () => {
    setBusy(true);
    try {
      const { data } = await termSteps.validate(term.termID, estimate);
      setResult(data);
      await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
    } catch (err) {
      notifyError(err);
    } finally {
      setBusy(false);
    }
  };
  // After a fix the findings are stale: validate again (the officer would, and Validated went back to Loaded).
  const onFixed = () => {
    if (result) void validate();
  };
  const exceptions = result?.exceptions ?? term.exceptions;
  return (
    <Stack>
      <Text size="sm">
        Rates every subscription on the roster as the run will, writing nothing. Errors stop a subscription from being billed; warnings flag unusual consumption.
      </Text>
      {canWrite && (
        <Group>
          <Button onClick={() => void validate()} loading={busy} disabled={!allowed}>
            Validate
          </Button>
          <Checkbox label="Estimate missing readings (from each meter's history)" checked={estimate} onChange={(e) => setEstimate(e.currentTarget.checked)} disabled={!allowed} />
        </Group>
      )}
      {!allowed && <Text size="sm" c="dimmed">Validation runs on a Loaded, Validated or Failed term; it is {term.status}.</Text>}
      {result && (
        <>
          {result.estimated > 0 && <Alert color="yellow">{result.estimated} missing reading(s) were estimated; their bills are marked estimated.</Alert>}
          {/* The term's calendar (a due date already passed, a term not ended): the API warned, and an officer never saw it. */}
          {result.warnings.map((w) => (
            <Alert key={w.code} color="orange" title="Check the term's dates" data-testid={`warning-${w.code}`}>
              {w.message}
            </Alert>
          ))}
          <Title order={5}>Preview of the run</Title>
          <Totals
            testId="preview"
            items={[
              ['Bills', result.preview.bills],
              ['Failures', result.preview.failures],
              ['Charges', result.preview.totals.charges],
              ['Tax', result.preview.totals.tax],
              ['Total', result.preview.totals.total],
              ['Total due', result.preview.totals.totalDue],
            ]}
          />
        </>
      )}
      <Title order={5}>
        Exceptions ({result ? result.exceptionCount : term.counts.exceptions}
        {(result ? result.exceptionCount : term.counts.exceptions) > exceptions.length ? `, first ${exceptions.length} shown` : ''})
      </Title>
      <ExceptionsTable term={term} exceptions={exceptions} canWrite={canWrite} onFixed={onFixed} />
      {canWrite && term.status === 'Validated' && (
        <Group>
          <Button variant="light" onClick={onNext}>
            Next: approve →
          </Button>
          {exceptions.some((e) => e.severity === 'error') && <Text size="sm" c="dimmed">Subscriptions with an error will fail in the run and can be retried once fixed.</Text>}
        </Group>
      )}
      {result && result.previewBills.length > 0 && (
        <>
          <Title order={5}>First {result.previewBills.length} bills as they would be</Title>
          <DataTable columns={previewColumns((code) => templates.data?.services.find((t) => t.serviceCode === term.serviceCode)?.components.find((c) => c.code === code)?.model)} data={result.previewBills} />
        </>
      )}
    </Stack>
  );
}
