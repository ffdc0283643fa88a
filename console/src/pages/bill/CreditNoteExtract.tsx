// The credit notes of a span of days for the print house (get-credit-note-extract): a
// customer on paper gets no e-mail, and the term's print extract holds bills only.
import { useState } from 'react';
import { Checkbox, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { fetchFile } from '../../api/client.ts';
import { ExtractButtons } from '../../components/ExtractButtons.tsx';

const FORMATS = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSON lines' },
  { format: 'pdf', label: 'PDF of every note' },
] as const;
const compact = (dmy: string) => dmy.trim().split('/').reverse().join('');

/** today: the app's, dd/mm/yyyy; the span starts on the first of its month. */
export function CreditNoteExtract({ today }: { today: string }) {
  const [from, setFrom] = useState(`01/${today.slice(3)}`);
  const [to, setTo] = useState(today);
  const [onlyPrint, setOnlyPrint] = useState(true);
  return (
    <Paper withBorder p="md" data-testid="credit-note-extract">
      <Stack gap="xs">
        <Title order={5}>Credit notes for the print house</Title>
        <Text size="sm" c="dimmed">
          The credit notes dated in these days, for customers on paper (those on e-mail receive theirs by e-mail).
        </Text>
        <Group gap="xs" align="flex-end">
          <TextInput size="xs" label="From" description="dd/mm/yyyy" value={from} onChange={(e) => setFrom(e.currentTarget.value)} w={120} />
          <TextInput size="xs" label="To" description="dd/mm/yyyy" value={to} onChange={(e) => setTo(e.currentTarget.value)} w={120} />
          <ExtractButtons
            formats={FORMATS}
            name={`credit-notes-${compact(from)}-${compact(to)}${onlyPrint ? '-print' : ''}`}
            fetch={(format) =>
              fetchFile('/billing/documents/get-credit-note-extract', {
                method: 'Retrieve',
                action: 'Retrieve Credit Note Extract',
                apiVersion: 'v2',
                data: { from: from.trim(), to: to.trim(), format, ...(onlyPrint ? { only: 'print' as const } : {}) },
              })
            }
          />
          <Checkbox size="xs" label="Only the accounts that take paper" checked={onlyPrint} onChange={(e) => setOnlyPrint(e.currentTarget.checked)} />
        </Group>
      </Stack>
    </Paper>
  );
}
