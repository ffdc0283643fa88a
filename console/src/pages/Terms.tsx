// The bill runs: every term, newest first, and a form to start a new one.
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Button, Card, Group, List, NumberInput, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { call, read } from '../api/client.ts';
import { addDaysIso, apiToIso, CYCLE_MONTHS, isoToApi, monthOfPeriod, periodAfter, previousMonth } from '../api/dates.ts';
import { useTemplates, useTemplateVersions, versionInForce } from '../api/queries.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { Amount, StatusBadge, showRefusal } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';

type Term = Awaited<ReturnType<typeof listTerms>>['terms'][number];
const listTerms = () => read('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule' });

const columns: Column<Term>[] = [
  { header: 'Term', accessorKey: 'termID' },
  { header: 'Label', accessorKey: 'label' },
  { header: 'Period', cell: ({ row }) => `${row.original.startDate} to ${row.original.endDate}` },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Subscriptions', accessorFn: (t) => t.counts.subscriptions, meta: { align: 'right' } },
  { header: 'Bills', accessorFn: (t) => t.counts.bills, meta: { align: 'right' } },
  { header: 'Failures', accessorFn: (t) => t.counts.failures, meta: { align: 'right' } },
  // After corrections the bills in force, as the term's page says it (the list showed the run's first total: an officer's walk).
  {
    header: 'Total',
    cell: ({ row }) => {
      const t = row.original;
      const corrected = t.corrections.cancelled + t.corrections.rebills > 0;
      return corrected ? (
        <span title={`in force after corrections; the run billed ${t.totals.total}`}>
          <Amount value={t.corrections.totals.total} /> (corrected)
        </span>
      ) : (
        <Amount value={t.totals.total} />
      );
    },
    meta: { align: 'right' },
  },
];

/** The form, once the app's today is known: its default month is the one before the app's today, not the browser's. */
function NewTerm() {
  const { app } = useSession();
  return app === null ? null : <NewTermForm key={app.today} today={app.today} />;
}

function NewTermForm({ today: appToday }: { today: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const month = previousMonth(new Date(`${apiToIso(appToday)}T00:00:00Z`));
  const [chosenService, setServiceCode] = useState<string | null>(null);
  const [chosenBatch, setBatchCode] = useState<string | null>(null);
  const [period, setPeriod] = useState<number | string>(month.period);
  const [start, setStart] = useState<string | null>(month.start);
  const [end, setEnd] = useState<string | null>(month.end);
  const [label, setLabel] = useState('');
  const [due, setDue] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The period typed or picked by the officer, which the proposal below leaves alone.
  const [periodChosen, setPeriodChosen] = useState(false);
  const { app } = useSession();
  const live = (templates.data?.services ?? []).filter((s) => s.archiveStatus === 0);
  // The only template, and its only batch, are chosen already (an officer's walk: a choice of one).
  const serviceCode = chosenService ?? (live.length === 1 ? live[0]!.serviceCode : null);
  const template = live.find((s) => s.serviceCode === serviceCode);
  const batches = template?.batches ?? [];
  const batchCode = chosenBatch !== null && batches.includes(chosenBatch) ? chosenBatch : batches.length === 1 ? batches[0]! : null;
  // The due date a term gets by default (its last day + the template's days to pay), said before
  // the term is made when it has passed already: the run would date its bills today, due before
  // they are sent, and only validation said so, when the only fix was to make the term again.
  // make-term takes the days to pay of the version in force on the term's last day, not the newest (a reviewer).
  const versions = useTemplateVersions(serviceCode);
  const lastDayVersion = versions.data && end ? versionInForce(versions.data.versions, end) : undefined;
  const offset = lastDayVersion?.definition.dueDateOffset ?? template?.dueDateOffset;
  const defaultDue = end && offset !== undefined && (lastDayVersion !== undefined || !versions.isLoading) ? addDaysIso(end, offset) : null;
  // The period after the template and batch's last term, proposed once both are chosen: the month
  // before today was proposed whatever was billed already, and the overlap was found only on
  // saving (an officer's walk).
  const earlier = useQuery({
    queryKey: ['terms', 'of', serviceCode, batchCode],
    enabled: serviceCode !== null && batchCode !== null,
    queryFn: () => read('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { serviceCode: serviceCode!, batchCode: batchCode! } }),
  });
  const lastTerm = (earlier.data?.terms ?? []).filter((t) => t.status !== 'Cancelled').reduce<Term | undefined>((a, t) => (a === undefined || apiToIso(t.endDate) > apiToIso(a.endDate) ? t : a), undefined);
  const proposed = lastTerm === undefined ? undefined : periodAfter(apiToIso(lastTerm.endDate), CYCLE_MONTHS[template?.billingCycleLookupID ?? 1] ?? 1);
  useEffect(() => {
    if (periodChosen || proposed === undefined) return;
    setPeriod(proposed.period);
    setStart(proposed.start);
    setEnd(proposed.end);
  }, [periodChosen, proposed?.period, proposed?.start, proposed?.end]);
  // Days between the last term and this one that no term bills (an officer's walk: a month skipped without a word).
  const gapFrom = lastTerm !== undefined && start !== null && addDaysIso(apiToIso(lastTerm.endDate), 1) < start.slice(0, 10) ? addDaysIso(apiToIso(lastTerm.endDate), 1) : null;
  const today = app?.today ? apiToIso(app.today) : null;
  const duePassed = due === null && defaultDue !== null && today !== null && defaultDue < today ? defaultDue : null;
  const make = useMutation({
    mutationFn: async () => {
      const { headers } = await call('/billing/terms/make-term', {
        method: 'Create',
        action: 'Create Bill Term',
        apiVersion: 'v2',
        operation: 'schedule',
        data: {
          serviceCode: serviceCode ?? '',
          batchCode: batchCode ?? '',
          billingPeriodID: Number(period),
          startDate: start ? isoToApi(start) : '',
          endDate: end ? isoToApi(end) : '',
          ...(label.trim() ? { label: label.trim() } : {}),
          ...(due ? { dueDate: isoToApi(due) } : {}),
        },
      });
      return Number(headers.get('x-billrun-term-id'));
    },
    onSuccess: (termID) => {
      void queryClient.invalidateQueries({ queryKey: ['terms'] });
      navigate(`/terms/${termID}`);
    },
    onError: (err) => {
      showRefusal(err, setErrors, (p) => ['serviceCode', 'batchCode', 'billingPeriodID', 'startDate', 'endDate', 'label', 'dueDate'].includes(p));
      // A dropdown left on "Choose" is sent empty, and the API's rule for a code is about typing
      // one: said as what the officer is to do (an officer's walk).
      setErrors((e) => ({
        ...e,
        ...(serviceCode === null ? { serviceCode: 'Choose a template' } : {}),
        ...(batchCode === null ? { batchCode: 'Choose a batch' } : {}),
      }));
    },
  });
  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setErrors({});
          make.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={4}>Start a bill run</Title>
          <Text size="sm" c="dimmed">
            A bill run (a term) bills one template's subscriptions in one batch for one period.
          </Text>
          <SimpleGrid cols={{ base: 2, lg: 3 }}>
            <Select
              label="Template"
              placeholder={live.length ? 'Choose' : 'No template yet: make one first'}
              data={live.map((s) => ({ value: s.serviceCode, label: `${s.serviceLabel} (${s.serviceCode})` }))}
              value={serviceCode}
              onChange={(v) => {
                setServiceCode(v);
                const t = live.find((s) => s.serviceCode === v);
                setBatchCode(t?.batches.length === 1 ? (t.batches[0] ?? null) : null);
              }}
              error={errors.serviceCode}
              allowDeselect={false}
              required
            />
            {/* Picking the chosen batch again cleared it, with the raw rule as the error (an officer's walk). */}
            <Select label="Batch" placeholder="Choose" data={batches} value={batchCode} onChange={setBatchCode} allowDeselect={false} error={errors.batchCode} required />
            <NumberInput
              label="Billing period"
              description="e.g. 202611: sets the days to that month"
              value={period}
              onChange={(v) => {
                setPeriodChosen(true);
                // A refusal of the period or the days said of the values before (an officer's walk: still red after the change).
                setErrors(({ billingPeriodID: _p, startDate: _s, endDate: _e, ...rest }) => rest);
                setPeriod(v);
                // The period and the days went apart (202611 over October's days) until the overlap check refused it.
                const month = monthOfPeriod(Number(v));
                if (month) {
                  setStart(month.start);
                  setEnd(month.end);
                }
              }}
              error={errors.billingPeriodID}
              required
              allowDecimal={false}
            />
            <DatePickerInput label="First day" valueFormat="DD/MM/YYYY" value={start} onChange={(v) => { setPeriodChosen(true); setErrors(({ startDate: _s, billingPeriodID: _p, ...rest }) => rest); setStart(v); }} error={errors.startDate} required />
            <DatePickerInput label="Last day" valueFormat="DD/MM/YYYY" value={end} onChange={(v) => { setPeriodChosen(true); setErrors(({ endDate: _e, startDate: _s, ...rest }) => rest); setEnd(v); }} error={errors.endDate} required />
            <TextInput label="Label (optional)" value={label} onChange={(e) => setLabel(e.currentTarget.value)} error={errors.label} />
            <DatePickerInput
              label="Due date (optional)"
              description="Default: the last day plus the template's days to pay"
              valueFormat="DD/MM/YYYY"
              clearable
              value={due}
              onChange={setDue}
              error={errors.dueDate}
            />
          </SimpleGrid>
          {gapFrom !== null && (
            <Alert color="orange" data-testid="period-gap">
              The last bill run of this template and batch ended on {lastTerm!.endDate}: this one starts on {isoToApi(start!)}, so {isoToApi(gapFrom)} to{' '}
              {isoToApi(addDaysIso(start!, -1))} would be billed by no term. Make a term for those days first, unless they are not to be billed.
            </Alert>
          )}
          {lastTerm !== undefined && (
            <Text size="sm" c="dimmed" data-testid="last-term">
              The last bill run of this template and batch, term {lastTerm.termID} ({lastTerm.status}), covered {lastTerm.startDate} to {lastTerm.endDate}
              {periodChosen ? '.' : ': the period after it is proposed.'}
            </Text>
          )}
          {duePassed && (
            <Alert color="orange" data-testid="due-passed">
              Its bills would be due on {isoToApi(duePassed)} (the last day plus the template's {offset} days to pay), before today ({app?.today}). Give a later
              due date above so that customers have time to pay.
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={make.isPending}>
              Make the term
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function GettingStarted() {
  return (
    <Alert color="blue" title="Before the first bill run">
      <List size="sm" type="ordered">
        {/* The app's name, address, time zone and currency are on every bill: left at the sample's, the first bills went out under it (an officer's walk). */}
        <List.Item>
          Give the app its name, address, time zone and currency, as the bills will show them (<Anchor inherit component={Link} to="/settings">Settings</Anchor>; an admin does this).
        </List.Item>
        <List.Item>
          Make a pricing template with its batches (<Anchor inherit component={Link} to="/templates/new">New template</Anchor>; an admin does this).
        </List.Item>
        <List.Item>
          Bring in the accounts with their subscriptions and opening readings (<Anchor inherit component={Link} to="/imports">Imports</Anchor>: a CSV file).
        </List.Item>
        <List.Item>Come back here and start a bill run for last month.</List.Item>
      </List>
    </Alert>
  );
}

export function Terms() {
  const { can } = useSession();
  const navigate = useNavigate();
  const terms = useQuery({ queryKey: ['terms'], queryFn: listTerms });
  const templates = useTemplates();
  const rows = [...(terms.data?.terms ?? [])].sort((a, b) => b.termID - a.termID);
  return (
    <Stack>
      <Title order={2}>Bill runs</Title>
      {templates.data && templates.data.services.length === 0 && <GettingStarted />}
      {can('biller') && <NewTerm />}
      <DataTable
        columns={columns}
        data={terms.data ? rows : undefined}
        loading={terms.isLoading}
        empty="No bill run yet."
        onRowClick={(t) => navigate(`/terms/${t.termID}`)}
        rowLabel={(t) => `Open term ${t.termID}`}
        testId="terms-table"
      />
    </Stack>
  );
}
