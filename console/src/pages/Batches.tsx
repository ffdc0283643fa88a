import { useState } from 'react';
import { atText } from '../api/dates.ts';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Group, Stack, TextInput, Title } from '@mantine/core';
import { call, type Data } from '../api/client.ts';
import { useBatches } from '../api/queries.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { notifyDone, showRefusal } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';

type Batch = Data<'/billing/batches/get-batches'>['batches'][number];
const columns: Column<Batch>[] = [
  { header: 'Code', accessorKey: 'batchCode' },
  { header: 'Label', accessorKey: 'label' },
  { header: 'Templates', accessorFn: (b) => b.serviceCodes.join(', ') },
  { header: 'Subscriptions', accessorKey: 'subscriptionCount', meta: { align: 'right' } },
  { header: 'Made', cell: ({ row }) => `${atText(row.original.createdAt)} by ${row.original.createdBy}` },
];

export function Batches() {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const batches = useBatches();
  const [code, setCode] = useState('');
  const [label, setLabel] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setErrors({});
    try {
      await call('/billing/batches/make-batch', { method: 'Create', action: 'Create Batch', apiVersion: 'v2', data: { batchCode: code.trim(), ...(label.trim() ? { label: label.trim() } : {}) } });
      notifyDone(`Batch ${code.trim()} made.`);
      setCode('');
      setLabel('');
      await queryClient.invalidateQueries({ queryKey: ['batches'] });
    } catch (err) {
      showRefusal(err, setErrors, (p) => p === 'batchCode' || p === 'label');
    }
  };
  return (
    <Stack>
      <Title order={2}>Batches</Title>
      {can('admin') && (
        <Card withBorder>
          <form onSubmit={submit}>
            <Group align="flex-start">
              <TextInput label="Batch code" required value={code} onChange={(e) => setCode(e.currentTarget.value)} error={errors.batchCode} />
              <TextInput label="Label" value={label} onChange={(e) => setLabel(e.currentTarget.value)} error={errors.label} />
              <Button type="submit" mt={25}>
                Make batch
              </Button>
            </Group>
          </form>
        </Card>
      )}
      <DataTable columns={columns} data={batches.data?.batches} loading={batches.isLoading} empty="No batch yet." />
    </Stack>
  );
}
