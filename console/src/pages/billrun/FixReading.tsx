// A reading typed in for one subscription of the term, from the exceptions or failures
// table: the quickest fix for a missing or wrong reading.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { ApiError } from '../../api/client.ts';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { termSteps, type Term } from './actions.ts';

export function FixReading({ term, subscriptionID, meters, onSaved }: { term: Term; subscriptionID: number; meters: string[]; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [meter, setMeter] = useState<string | null>(meters[0] ?? null);
  const [value, setValue] = useState('');
  const [date, setDate] = useState(term.endDate);
  const [error, setError] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    setError({});
    try {
      await termSteps.capture(term.termID, [{ subscriptionID, inputCode: meter ?? '', readingDate: date, value: value.trim() }]);
      notifyDone(`Reading of subscription ${subscriptionID} recorded.`);
      await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
      onSaved();
    } catch (err) {
      if (err instanceof ApiError && err.details.length) {
        const e: Record<string, string> = {};
        for (const d of err.details) e[d.path.replace(/^data\.readings\[0\]\./, '')] = d.message;
        setError(e);
      } else notifyError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      {meters.length > 1 && <Select size="xs" w={110} data={meters} value={meter} onChange={setMeter} aria-label="Meter" error={error.inputCode} />}
      <TextInput size="xs" w={110} placeholder="dd/mm/yyyy" aria-label="Reading date" value={date} onChange={(e) => setDate(e.currentTarget.value)} error={error.readingDate} />
      <TextInput
        size="xs"
        w={100}
        placeholder="value"
        aria-label={`Reading for subscription ${subscriptionID}`}
        value={value}
        onChange={(e) => setValue(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Enter' && void save()}
        error={error.value ?? error.subscriptionID}
      />
      <Button size="xs" onClick={() => void save()} loading={busy} disabled={!value.trim()}>
        Save
      </Button>
    </Group>
  );
}
