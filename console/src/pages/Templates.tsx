import { Link, useNavigate } from 'react-router';
import { atText } from '../api/dates.ts';
import { Button, Group, Stack, Title } from '@mantine/core';
import { useTemplates } from '../api/queries.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { StatusBadge } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import type { ServiceRecord } from './templates/model.ts';
import { TemplatesTabs } from './DocumentTemplates.tsx';

const columns: Column<ServiceRecord>[] = [
  { header: 'Code', accessorKey: 'serviceCode' },
  { header: 'Name', accessorKey: 'serviceLabel' },
  { header: 'Type', accessorKey: 'serviceType' },
  { header: 'Version', accessorKey: 'version' },
  { header: 'Components', accessorFn: (s) => s.components.length },
  { header: 'Batches', accessorFn: (s) => s.batches.join(', ') },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.archiveStatus ? 'archived' : 'active'} /> },
  { header: 'Changed', cell: ({ row }) => `${atText(row.original.modifiedAt)} by ${row.original.modifiedBy}` },
];

export function Templates() {
  const { can } = useSession();
  const navigate = useNavigate();
  const templates = useTemplates();
  return (
    <Stack>
      <TemplatesTabs active="pricing" />
      <Group justify="space-between">
        <Title order={2}>Pricing templates</Title>
        {can('admin') && (
          <Button component={Link} to="/templates/new">
            New template
          </Button>
        )}
      </Group>
      <DataTable
        columns={columns}
        data={templates.data?.services}
        loading={templates.isLoading}
        empty="No template yet."
        onRowClick={(s) => navigate(`/templates/${encodeURIComponent(s.serviceCode)}`)}
        rowLabel={(s) => `Open template ${s.serviceCode}`}
        testId="templates-table"
      />
    </Stack>
  );
}
