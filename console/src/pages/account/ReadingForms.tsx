// A subscription's readings entered and corrected from its account: a new officer found the
// bill page telling them to correct the account's reading first, and no action there to do
// it (the import refuses a second reading of a day, pointing at a readingID the console did
// not show).
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { call, type Data } from '../../api/client.ts';
import { notifyDone, useSave } from '../../components/feedback.tsx';

type Reading = Data<'/billing/readings/get-readings'>['readings'][number];

/** A corrected value (and date) for one effective reading: the original is kept, and stops counting. */
export function CorrectReading({ reading, onDone }: { reading: Reading; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(reading.value);
  const [date, setDate] = useState(reading.readingDate);
  const { errors, busy, run } = useSave((p) => p === 'value' || p === 'readingDate');
  const save = () =>
    run(async () => {
      const { headers } = await call('/billing/readings/correct-reading', {
        method: 'Update',
        action: 'Correct Reading',
        apiVersion: 'v2',
        data: { readingID: reading.readingID, value: value.trim(), ...(date !== reading.readingDate ? { readingDate: date.trim() } : {}) },
      });
      notifyDone(`Reading ${reading.readingID} corrected (reading ${headers.get('x-billrun-reading-id') ?? ''} now counts). Rebill a posted bill that used it from the bill's page.`);
      await queryClient.invalidateQueries({ queryKey: ['readings'] });
      onDone();
    });
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      <TextInput size="xs" w={110} aria-label="Corrected date" value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors.readingDate} />
      <TextInput size="xs" w={100} aria-label="Corrected value" value={value} onChange={(e) => setValue(e.currentTarget.value)} error={errors.value} onKeyDown={(e) => e.key === 'Enter' && void save()} />
      <Button size="xs" onClick={() => void save()} loading={busy} disabled={!value.trim()}>
        Save
      </Button>
      <Button size="xs" variant="subtle" onClick={onDone}>
        Cancel
      </Button>
    </Group>
  );
}

/** A new reading of one of the subscription's meters. */
export function AddReading({ subscriptionID, meters }: { subscriptionID: number; meters: string[] }) {
  const queryClient = useQueryClient();
  // The meters come with the readings, which may arrive after this form: the first is the default until one is chosen.
  const [chosen, setMeter] = useState<string | null>(null);
  const meter = chosen ?? meters[0] ?? null;
  const [date, setDate] = useState('');
  const [value, setValue] = useState('');
  const { errors, busy, run } = useSave((p) => ['inputCode', 'readingDate', 'value'].includes(p), 'data.readings[0].');
  const save = () =>
    run(async () => {
      await call('/billing/readings/capture-readings', {
        method: 'Create',
        action: 'Capture Readings',
        apiVersion: 'v2',
        data: { readings: [{ subscriptionID, inputCode: meter ?? '', readingDate: date.trim(), value: value.trim() }] },
      });
      notifyDone(`Reading of ${meter} on ${date} recorded.`);
      setValue('');
      await queryClient.invalidateQueries({ queryKey: ['readings'] });
    });
  return (
    <Group gap="xs" align="flex-end">
      {meters.length > 0 ? (
        <Select label="Meter" w={120} data={meters} value={meter} onChange={setMeter} allowDeselect={false} error={errors.inputCode} />
      ) : (
        <TextInput label="Meter (input code)" w={150} value={meter ?? ''} onChange={(e) => setMeter(e.currentTarget.value)} error={errors.inputCode} />
      )}
      <TextInput label="Reading date" placeholder="dd/mm/yyyy" w={130} value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors.readingDate} />
      <TextInput label="Value" w={120} value={value} onChange={(e) => setValue(e.currentTarget.value)} error={errors.value} onKeyDown={(e) => e.key === 'Enter' && void save()} />
      <Button onClick={() => void save()} loading={busy} disabled={!value.trim() || !date.trim() || !meter}>
        Add the reading
      </Button>
    </Group>
  );
}
