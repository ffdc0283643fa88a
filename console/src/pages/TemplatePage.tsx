// One template: its settings, its meters, each component with its tiers as a table, and its
// earlier versions (a term keeps the version it was made with, so an officer reading an old
// bill needs the components it was priced with).
import { atText } from '../api/dates.ts';
import { Link, useParams } from 'react-router';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Button, Card, Group, Loader, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { call, read, type Data } from '../api/client.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { useDocumentTemplates, useTemplates } from '../api/queries.ts';
import { ConfirmButton } from '../components/Confirm.tsx';
import { notifyDone, notifyError } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { CONNECTION_TYPES, conversionText, CYCLES, fromRecord, recordOfVersion, type ServiceRecord } from './templates/model.ts';
import { MeterHead } from './templates/MeterHead.tsx';

function Field({ label, value }: { label: string; value: React.ReactNode }) {
  // A grid cell may shrink below its longest word, and a long one (an e-mail address) breaks:
  // on a phone the page ran 429 px wide for 390 and the address was cut off (an officer's walk).
  return (
    <div style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </div>
  );
}

type Version = Data<'/billing/services/get-service-versions'>['versions'][number];
const VERSIONS_PAGE = 10;
const versionColumns: Column<Version>[] = [
  { header: 'Version', accessorKey: 'version' },
  // The day its prices take effect: a run spanning it bills each part at its own version (a new user found the date nowhere).
  { header: 'In force from', cell: ({ row }) => row.original.effectiveFrom ?? 'the beginning' },
  { header: 'Made', cell: ({ row }) => `${atText(row.original.createdAt)} by ${row.original.createdBy}` },
  { header: 'Name', accessorFn: (x) => x.definition.serviceLabel },
  { header: 'Components', accessorFn: (x) => x.definition.components.map((c) => c.code).join(', ') },
  { header: 'Due after', accessorFn: (x) => `${x.definition.dueDateOffset} days` },
];

type TierProration = { period?: string; basisDays: number | string; decimals: number; rounding: string };

/** A tiered component's proration in words: what the edit form does not show, the page must. */
const tierProrationText = (p: TierProration) =>
  `bounds written for ${p.basisDays} days, scaled by ${p.period === 'readingPeriod' ? 'the days between the two readings' : 'the days billed'}, rounded ${p.rounding} to ${p.decimals} decimal(s)`;


/** "on 70% of the consumption, at most 35 a bill": a component's inputShare in words. */
const shareText = (x: { percentage: unknown; maximum?: unknown }) => {
  const text = (v: unknown) => (typeof v === 'object' && v !== null && 'value' in v ? `value ${String((v as { value: unknown }).value)}` : String(v));
  return `on ${text(x.percentage)}% of the consumption${x.maximum === undefined ? '' : `, at most ${text(x.maximum)} a bill`}`;
};

/** "at least 60% of CONTRACT", "the part above 100% of NMD": a component's floor or excessOver in words. */
const pctOf = (v: unknown) => (v === undefined ? '100' : typeof v === 'object' && v !== null && 'value' in v ? `value ${String((v as { value: unknown }).value)}` : String(v));
const boundText = (kind: 'floor' | 'excessOver', x: { input: string; percentage?: unknown }) =>
  kind === 'floor' ? `at least ${pctOf(x.percentage)}% of ${x.input}` : `the part above ${pctOf(x.percentage)}% of ${x.input}`;
/** "at least 75% of the highest demand of the 11 month(s) before": a component's ratchet in words. */
const ratchetText = (x: { percentage: unknown; months: number }) => `at least ${pctOf(x.percentage)}% of the highest demand of the ${x.months} month(s) before`;

export function TemplatePage() {
  const code = useParams().code!;
  const { can } = useSession();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const [page, setPage] = useState(0);
  const [shown, setShown] = useState<number | null>(null);
  const documents = useDocumentTemplates();
  const versions = useQuery({
    queryKey: ['service-versions', code, page],
    queryFn: () =>
      read('/billing/services/get-service-versions', { method: 'Retrieve', action: 'Retrieve Package Versions', apiVersion: 'v2', serviceCode: code, limit: VERSIONS_PAGE, offset: page * VERSIONS_PAGE }),
  });
  if (templates.isLoading) return <Loader />;
  const current = templates.data?.services.find((s) => s.serviceCode === code);
  if (!current) return <Alert color="red">No template {code}.</Alert>;
  const old = shown === null || shown === current.version ? undefined : versions.data?.versions.find((x) => x.version === shown);
  // An earlier version read as the list record it was then, so the same view shows it.
  const r: ServiceRecord = old ? recordOfVersion(current, old) : current;
  const v = fromRecord(r);
  // A price given as one of the template's values ({ value: 'VAT' }) is shown with it: "15% (VAT)", not "VAT%" (a new user).
  const named = (x: string) => r.values.find((n) => n.code === x);
  const valued = (x: string) => (named(x) === undefined ? x : `${named(x)!.value} (${x})`);
  const percent = (x: string) => (named(x) === undefined ? `${x}%` : `${named(x)!.value}% (${x})`);
  const documentName = (id: string) => {
    if (id === '') return 'Standard';
    const t = documents.data?.templates.find((d) => String(d.templateID) === id);
    return t === undefined ? `template ${id}` : `${t.name} (${id})${t.archiveStatus === 0 ? '' : ', archived'}`;
  };
  const archive = async (archiveStatus: 0 | 1) => {
    try {
      await call('/billing/services/archive-service', { method: 'Update', action: 'Archive Package', apiVersion: 'v2', serviceCode: code, archiveStatus });
      notifyDone(archiveStatus ? 'Archived.' : 'Restored.');
      await queryClient.invalidateQueries({ queryKey: ['services'] });
    } catch (err) {
      notifyError(err);
    }
  };
  return (
    <Stack>
      <Anchor component={Link} to="/templates" size="sm">
        ← Templates
      </Anchor>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={2}>
            {r.serviceLabel} ({r.serviceCode})
          </Title>
          <Badge variant="light" color={old ? 'orange' : undefined} data-testid="shown-version">
            version {r.version}
            {old ? ` (current is ${current.version})` : ''}
          </Badge>
          {r.archiveStatus === 1 && <Badge color="dark">archived</Badge>}
        </Group>
        {can('admin') && (
          <Group>
            <Button component={Link} to={`/templates/${encodeURIComponent(code)}/edit`}>
              Change
            </Button>
            {r.archiveStatus === 0 ? (
              <ConfirmButton variant="light" color="orange" question="Archive this template? It takes no new subscriptions or terms until restored." onConfirm={() => archive(1)}>
                Archive
              </ConfirmButton>
            ) : (
              <Button variant="light" onClick={() => void archive(0)}>
                Restore
              </Button>
            )}
          </Group>
        )}
      </Group>
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
          <Field label="Type" value={r.serviceType} />
          <Field label="Charging" value={r.chargingType} />
          <Field label="Bills" value={r.postType === 'Post Account' ? 'one per account' : 'one per subscription'} />
          <Field label="Billing cycle" value={CYCLES.find((c) => c.value === String(r.billingCycleLookupID))?.label ?? r.billingCycleLookupID} />
          <Field label="Due after" value={`${r.dueDateOffset} days`} />
          <Field label="Security deposit" value={r.securityDeposit === null || r.securityDeposit === undefined ? 'none' : `${r.securityDeposit} a subscription`} />
          <Field label="Posting" value={r.postBilling ? 'at the end of each run' : 'by post-term'} />
          <Field label="Batches" value={r.batches.join(', ') || '—'} />
          <Field label="Changed" value={`${atText(r.modifiedAt)} by ${r.modifiedBy}`} />
          <Field label="Made" value={`${atText(r.createdAt)} by ${r.createdBy}`} />
          <Field label="Values" value={r.values.map((x) => `${x.code} = ${x.value}`).join(', ') || '—'} />
          {/* Asked of each subscription (a meter number): not shown anywhere but the API (a new user's walk). */}
          <Field
            label="Connection details"
            value={(r.connectionInputs ?? []).map((c) => `${c.label} (${c.code}, ${CONNECTION_TYPES.find((t) => t.value === c.type)?.label.toLowerCase() ?? c.type}${c.required ? ', required' : ''})`).join('; ') || '—'}
          />
          <Field label="Description" value={r.description || '—'} />
          {/* What its bills look like and where customers pay: only the edit form showed them (an officer's walk). */}
          <Field label="Invoice template" value={documentName(v.invoiceTemplateID)} />
          <Field label="E-mail template" value={documentName(v.emailTemplateID)} />
          <Field
            label="Bank accounts"
            value={v.bankAccounts.map((b) => [b.bankName, b.accountName, b.accountNumber, b.branch, b.swift].filter((x) => x !== '').join(' · ')).join('; ') || 'none: the bills print no "How to pay"'}
          />
        </SimpleGrid>
        <Text size="xs" c="dimmed" mt="sm">
          Each change is a new version, in force from its date (the versions below); a term spanning a version's date bills each part of it at the version in force then.
        </Text>
      </Card>
      <Title order={4}>Versions</Title>
      <DataTable
        columns={versionColumns}
        data={versions.data?.versions}
        loading={versions.isLoading}
        onRowClick={(x) => setShown(x.version)}
        rowLabel={(x) => `Show version ${x.version}`}
        highlight={(x) => (x.version === r.version ? 'var(--mantine-color-blue-light)' : undefined)}
        testId="versions-table"
      />
      {versions.data && versions.data.paging.total > VERSIONS_PAGE && (
        <Group gap="xs">
          <Button size="xs" variant="default" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Newer
          </Button>
          <Text size="xs" c="dimmed">
            {page * VERSIONS_PAGE + 1} to {Math.min((page + 1) * VERSIONS_PAGE, versions.data.paging.total)} of {versions.data.paging.total}
          </Text>
          <Button size="xs" variant="default" disabled={(page + 1) * VERSIONS_PAGE >= versions.data.paging.total} onClick={() => setPage(page + 1)}>
            Older
          </Button>
        </Group>
      )}
      <Title order={4}>Meters{old ? ` of version ${old.version}` : ''}</Title>
      {/* Wide tables scroll sideways, not the page (docs/console.md; on a phone this one ran 429 px wide: an officer's walk). */}
      <ScrollArea type="auto">
      <Table withTableBorder>
        <MeterHead />
        <Table.Tbody>
          {v.meteredInputs.map((m) => (
            <Table.Tr key={m.code}>
              <Table.Td>{m.code}</Table.Td>
              <Table.Td>{m.label}</Table.Td>
              <Table.Td>{m.unit}{m.conversion ? `; ${conversionText(m.conversion)}` : ''}</Table.Td>
              <Table.Td>{m.decimals}</Table.Td>
              <Table.Td>{m.register === 'maximum' ? 'Highest demand' : 'Consumption'}</Table.Td>
              <Table.Td>{m.rolloverAt || '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </ScrollArea>
      <Title order={4}>Components{old ? ` of version ${old.version}` : ''}</Title>
      <Stack>
        {v.components.map((c) => (
          <Card key={c.code} withBorder>
            <Group gap="xs" mb="xs">
              <Text fw={600}>
                {c.name} ({c.code})
              </Text>
              <Badge variant="outline">{c.model}</Badge>
              <Badge variant="light" color={c.category === 'tax' ? 'grape' : 'blue'}>
                {c.category}
              </Badge>
              {c.prorate && <Badge variant="light">prorated</Badge>}
            </Group>
            {c.kept.description && (
              <Text size="sm" c="dimmed">
                {c.kept.description}
              </Text>
            )}
            <Text size="sm">
              {c.model === 'flat' && `Amount ${valued(c.amount)} per term`}
              {c.model === 'perUnit' && `${valued(c.rate)} per unit of ${c.input}`}
              {c.model === 'perDay' && `${valued(c.rate)} a day billed`}
              {c.model === 'perUnitPerDay' && `${valued(c.rate)} per unit of ${c.input} per day billed`}
              {c.model === 'package' && `${valued(c.price)} per ${c.size} units of ${c.input}`}
              {c.model === 'percentage' && `${percent(c.percentage)} of ${c.of.join(', ')}`}
              {c.model === 'commitment' && `At least ${valued(c.amount)} across ${c.of.join(', ')}${c.prorate ? ', prorated by days' : ''}`}
              {c.model === 'totalRounding' && `The sum of ${c.of.join(', ')} rounded (${c.rounding ?? 'halfUp'}) to a multiple of ${String(c.increment)}`}
              {(c.model === 'graduated' || c.model === 'volume') && `Tiers of ${c.input} (${c.model})`}
              {c.kept.tierProration !== undefined && ` · ${tierProrationText(c.kept.tierProration as TierProration)}`}
              {c.kept.inputShare !== undefined && ` · ${shareText(c.kept.inputShare as { percentage: unknown; maximum?: unknown })}`}
              {c.kept.floor !== undefined && ` · ${boundText('floor', c.kept.floor as { input: string; percentage?: unknown })}`}
              {c.kept.excessOver !== undefined && ` · ${boundText('excessOver', c.kept.excessOver as { input: string; percentage?: unknown })}`}
              {c.kept.ratchet !== undefined && ` · ${ratchetText(c.kept.ratchet as { percentage: unknown; months: number })}`}
              {c.roundEachTier && ' · each tier rounded to the cent'}
              {c.minimum && ` · minimum ${c.minimum}`}
              {c.maximum && ` · maximum ${c.maximum}`}
            </Text>
            {(c.model === 'graduated' || c.model === 'volume') && (
              <ScrollArea type="auto" mt="xs" maw={520}>
              <Table withTableBorder>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>From</Table.Th>
                    <Table.Th>Up to</Table.Th>
                    <Table.Th>Rate</Table.Th>
                    <Table.Th>Flat fee</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {c.tiers.map((t, i) => (
                    <Table.Tr key={i}>
                      <Table.Td>{i === 0 ? '0' : c.tiers[i - 1]!.upTo}</Table.Td>
                      <Table.Td>{t.upTo || 'and above'}</Table.Td>
                      <Table.Td ff="monospace">{t.rate}</Table.Td>
                      <Table.Td ff="monospace">{t.flat || '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              </ScrollArea>
            )}
          </Card>
        ))}
      </Stack>
    </Stack>
  );
}
