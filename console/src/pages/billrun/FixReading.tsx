// A reading typed in for one subscription of the term, from the exceptions or failures
// table: the quickest fix for a missing or wrong reading.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Group, Select, Text, TextInput } from '@mantine/core';
import { ApiError } from '../../api/client.ts';
import { apiToIso, appTodayApi, earlierDay } from '../../api/dates.ts';
import { notifyDone, notifyError } from '../../components/feedback.tsx';
import { useSession } from '../../session.tsx';
import { termSteps, type Term } from './actions.ts';

/** What the row being fixed says of the reading: its code, the path at fault (`readings.METER…`) and, from validate-term, the day the fix is dated. */
export type Finding = { code: string; path?: string; readingDate?: string };

/** Whether a reading typed in can fix it: it names a meter (a held-back subscription, or a tariff's error, does not). */
export const readingFinding = (f: Finding): boolean => f.path?.startsWith('readings.') === true;

/** The meter a finding names (its path is readings.METER or readings.METER.current.value). */
export const meterOf = (f: Finding): string | undefined => (f.path?.startsWith('readings.') ? f.path.split('.')[1] : undefined);

export function FixReading({ term, subscriptionID, meters, finding, onSaved }: { term: Term; subscriptionID: number; meters: string[]; finding: Finding; onSaved: () => void }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  // The meter and day the finding names: the first meter and the term's end fixed another
  // meter than the one missing, and a terminated subscription's reading at the wrong day
  // (an officer's walk). A reading cannot be dated after today.
  const named = meterOf(finding);
  // The meter the finding names even when the template's newest version renamed or dropped
  // it: the term keeps the version it was made with (the first meter was taken, unseen).
  const choices = named !== undefined && !meters.includes(named) ? [named, ...meters] : meters;
  const [meter, setMeter] = useState<string | null>(named ?? meters[0] ?? null);
  const [value, setValue] = useState('');
  const [date, setDate] = useState(earlierDay(finding.readingDate ?? term.endDate, appTodayApi(app)));
  const [error, setError] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // A term's capture-readings replaces a reading already recorded on the day (bill-run.md);
  // said before the save, where it replaced a reading with no word.
  const replaces = finding.code === 'NEGATIVE_CONSUMPTION' && date === finding.readingDate && meter === named;
  const save = async () => {
    setBusy(true);
    setError({});
    try {
      await termSteps.capture(term.termID, [{ subscriptionID, inputCode: meter ?? '', readingDate: date, value: value.trim() }]);
      notifyDone(`Reading of ${meter ?? 'the meter'} for subscription ${subscriptionID} on ${date} recorded${replaces ? ', in place of the one below the previous reading' : ''}.`);
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
  // A term that has not started yet cannot be read: its readings would be dated before it (today),
  // and an officer's fix row saved one there, which then counted for the month before (a new user's walk).
  const today = appTodayApi(app);
  if (apiToIso(today) < apiToIso(term.startDate)) {
    return (
      <Text size="xs" c="dimmed" data-testid={`fix-later-${subscriptionID}`}>
        Not yet: this term starts on {term.startDate}, after today ({today}); its readings can be recorded from then.
      </Text>
    );
  }
  return (
    <div>
      <Group gap={4} wrap="nowrap" align="flex-start">
        {choices.length > 1 && <Select size="xs" w={110} data={choices} value={meter} onChange={setMeter} allowDeselect={false} aria-label="Meter" error={error.inputCode} />}
        {choices.length <= 1 && error.inputCode && (
          <Text size="xs" c="red">
            {meter}: {error.inputCode}
          </Text>
        )}
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
          {replaces ? 'Replace' : 'Save'}
        </Button>
      </Group>
      {/* Said where it can happen: a missing reading's own day has none to replace (an officer's walk read the warning on every row). */}
      {(replaces || date !== finding.readingDate || meter !== named) && (
        <Text size="xs" c="dimmed" data-testid={`fix-note-${subscriptionID}`}>
          {replaces ? `Replaces the reading of ${date}.` : `A reading of ${meter ?? 'the meter'} already recorded on that day is replaced.`}
        </Text>
      )}
    </div>
  );
}
