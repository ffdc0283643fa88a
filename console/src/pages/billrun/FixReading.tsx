// A reading typed in for one subscription of the term, from the exceptions or failures
// table: the quickest fix for a missing or wrong reading.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Group, Select, Text, TextInput } from '@mantine/core';
import { ApiError, read, type Data } from '../../api/client.ts';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { useSession } from '../../session.tsx';
import { termSteps, type Term } from './actions.ts';
import { readingDayOf } from './ReadingsPanel.tsx';

type Reading = Data<'/billing/readings/get-readings'>['readings'][number];

/** What the row says is wrong: an exception's path and message, or a failure's first field and reason. */
export type Problem = { path?: string; message: string };

/**
 * The meter a problem names: its path (readings.PAGES, readings.PAGES.current.date) or, for
 * an older record without one, its words ("no reading of PAGES ..."). The first meter was
 * preset whatever the row said, and a reading meant for PAGES was saved on ROOM_HOURS.
 */
export function meterNamed(problem: Problem, meters: string[]): string | null {
  const fromPath = /^readings\.([^.]+)/.exec(problem.path ?? '')?.[1];
  const named = fromPath ?? meters.find((m) => new RegExp(`\\b${m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(problem.message));
  return named !== undefined && meters.includes(named) ? named : (meters[0] ?? null);
}

export function FixReading({ term, subscriptionID, problem, meters, onSaved }: { term: Term; subscriptionID: number; problem: Problem; meters: string[]; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const { app } = useSession();
  // The subscription's end, for the day preset: the term's last day was refused for a leaver ("after the subscription's end date").
  const subscription = useQuery({
    queryKey: ['subscription', subscriptionID],
    queryFn: async () =>
      (await read('/billing/subscriptions/get-subscriptions', { method: 'Retrieve', action: 'Retrieve Subscriptions', apiVersion: 'v2', data: { subscriptionID } })).subscriptions[0] ?? null,
  });
  // The template's meters may come after this row: the named one is the default until one is chosen.
  const [chosen, setMeter] = useState<string | null>(null);
  const meter = chosen ?? meterNamed(problem, meters);
  const [value, setValue] = useState('');
  const [typedDate, setDate] = useState<string | null>(null);
  const date = typedDate ?? (subscription.data !== undefined ? readingDayOf(term, subscription.data?.endDate ?? null, app?.timeZone) : '');
  // An effective reading of the meter on that day, which the save would correct: asked about first.
  const [replacing, setReplacing] = useState<Reading | null>(null);
  const [error, setError] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setReplacing(null);
    setBusy(true);
    setError({});
    try {
      await termSteps.capture(term.termID, [{ subscriptionID, inputCode: meter ?? '', readingDate: date.trim(), value: value.trim() }]);
      notifyDone(`Reading of ${meter} of subscription ${subscriptionID} recorded.`);
      await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
      await queryClient.invalidateQueries({ queryKey: ['readings'] });
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
  // A reading for a day that has one corrects it: an officer saved 130 meaning another meter and
  // silently replaced a good 2.5. The API takes it as a correction, so the console asks.
  const save = async () => {
    if (!meter) return;
    setBusy(true);
    try {
      const { readings } = await queryClient.fetchQuery({
        queryKey: ['readings', subscriptionID, meter],
        queryFn: () => read('/billing/readings/get-readings', { method: 'Retrieve', action: 'Retrieve Readings', apiVersion: 'v2', data: { subscriptionID, inputCode: meter } }),
        staleTime: 0,
      });
      const existing = readings.find((r) => r.effective && r.inputCode === meter && r.readingDate === date.trim());
      if (existing) {
        setReplacing(existing);
        setBusy(false);
        return;
      }
    } catch (err) {
      notifyError(err);
      setBusy(false);
      return;
    }
    await send();
  };
  const fields = (
    <Group gap={4} wrap="nowrap" align="flex-start">
      {meters.length > 1 && (
        <Select
          size="xs"
          w={120}
          data={meters}
          value={meter}
          onChange={(m) => {
            setMeter(m);
            setReplacing(null);
          }}
          allowDeselect={false}
          aria-label={`Meter for subscription ${subscriptionID}`}
          error={error.inputCode}
        />
      )}
      <TextInput
        size="xs"
        w={110}
        placeholder="dd/mm/yyyy"
        aria-label={`Reading date for subscription ${subscriptionID}`}
        value={date}
        onChange={(e) => {
          setDate(e.currentTarget.value);
          setReplacing(null);
        }}
        error={error.readingDate}
      />
      <TextInput
        size="xs"
        w={100}
        placeholder="value"
        aria-label={`Reading for subscription ${subscriptionID}`}
        value={value}
        onChange={(e) => {
          setValue(e.currentTarget.value);
          setReplacing(null);
        }}
        onKeyDown={(e) => e.key === 'Enter' && !replacing && void save()}
        error={error.value ?? error.subscriptionID}
      />
      <Button size="xs" onClick={() => void save()} loading={busy} disabled={!value.trim() || !date.trim() || replacing !== null}>
        Save
      </Button>
    </Group>
  );
  if (!replacing) return fields;
  return (
    <div>
      {fields}
      <Text size="xs" c="orange.8" mt={4} maw={460} data-testid={`replaces-reading-${subscriptionID}`}>
        {meter} already reads {replacing.value} on {replacing.readingDate} (reading {replacing.readingID}): saving {value.trim()} corrects it, and {replacing.value} stops counting.
      </Text>
      <Group gap={4} mt={4}>
        <Button size="compact-xs" color="orange" onClick={() => void send()}>
          Correct it to {value.trim()}
        </Button>
        <Button size="compact-xs" variant="default" onClick={() => setReplacing(null)}>
          Keep {replacing.value}
        </Button>
      </Group>
    </div>
  );
}
