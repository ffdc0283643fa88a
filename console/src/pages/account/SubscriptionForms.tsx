// A subscription made, suspended, resumed or terminated from its account's page: an officer
// with one new customer, or one leaving, had only the API or a CSV import for it. The API
// checks every rule; its refusals go under the fields they name.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Group, SimpleGrid, Text, TextInput } from '@mantine/core';
import { call, type Data } from '../../api/client.ts';
import { SubmitOrCancel } from '../../components/SubmitOrCancel.tsx';
import { TemplateAndBatch, useTemplateChoice } from '../../components/TemplateAndBatch.tsx';
import { notifyDone, useSave } from '../../components/feedback.tsx';

type Subscription = Data<'/billing/accounts/get-account'>['subscriptions'][number];

export function NewSubscription({ accountID, accountNumber, onDone }: { accountID: number; accountNumber: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const choice = useTemplateChoice();
  const { template, serviceCode, batchCode } = choice;
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [opening, setOpening] = useState<Record<string, string>>({});
  const { errors, busy, run } = useSave((p) => ['serviceCode', 'batchCode', 'startDate', 'endDate'].includes(p) || p.startsWith('openingReadings.'));
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      // Only the chosen template's meters: what was typed for another template's stays behind.
      const readings = Object.fromEntries((template?.meteredInputs ?? []).flatMap((m) => (opening[m.code]?.trim() ? [[m.code, opening[m.code]!.trim()]] : [])));
      const { headers } = await call('/billing/subscriptions/make-subscription', {
        method: 'Create',
        action: 'Create Subscription',
        apiVersion: 'v2',
        data: {
          accountNumber,
          serviceCode: serviceCode ?? '',
          batchCode: batchCode ?? '',
          startDate: startDate.trim(),
          ...(endDate.trim() ? { endDate: endDate.trim() } : {}),
          ...(Object.keys(readings).length ? { openingReadings: readings } : {}),
        },
      });
      notifyDone(`Subscription ${headers.get('x-billrun-subscription-id') ?? ''} to ${serviceCode} made.`);
      await queryClient.invalidateQueries({ queryKey: ['account', accountID] });
      onDone();
    });
  };
  return (
    <Card withBorder>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <TemplateAndBatch choice={choice} errors={errors} />
          <TextInput label="First day" placeholder="dd/mm/yyyy" value={startDate} onChange={(e) => setStartDate(e.currentTarget.value)} error={errors.startDate} required />
          <TextInput label="Last day (optional)" placeholder="dd/mm/yyyy" value={endDate} onChange={(e) => setEndDate(e.currentTarget.value)} error={errors.endDate} />
          {template?.meteredInputs.map((m) => (
            <TextInput
              key={m.code}
              label={`Opening reading of ${m.code}`}
              description="on the first day"
              value={opening[m.code] ?? ''}
              onChange={(e) => setOpening({ ...opening, [m.code]: e.currentTarget.value })}
              error={errors[`openingReadings.${m.code}`]}
            />
          ))}
        </SimpleGrid>
        <SubmitOrCancel label="Make the subscription" busy={busy} onCancel={onDone} />
      </form>
    </Card>
  );
}

const ACTIONS = {
  suspend: { label: 'Suspend', path: '/billing/subscriptions/suspend-subscription', action: 'Suspend Subscription', date: 'date', hint: 'first day not billed', done: 'suspended' },
  resume: { label: 'Resume', path: '/billing/subscriptions/resume-subscription', action: 'Resume Subscription', date: 'date', hint: 'first day billed again', done: 'resumed' },
  terminate: { label: 'Terminate', path: '/billing/subscriptions/terminate-subscription', action: 'Terminate Subscription', date: 'endDate', hint: 'last day billed', done: 'terminated' },
} as const;
type Action = keyof typeof ACTIONS;

/** What a subscription in this status may do next (the API's moves: docs/accounts.md). */
const NEXT: Record<Subscription['status'], Action[]> = { active: ['suspend', 'terminate'], suspended: ['resume', 'terminate'], terminated: [] };

/** Suspend, resume or terminate one subscription: its buttons, then the chosen one's date (and reason) in the row. */
export function SubscriptionActions({ accountID, subscription }: { accountID: number; subscription: Subscription }) {
  const queryClient = useQueryClient();
  const [doing, setDoing] = useState<Action | null>(null);
  const [date, setDate] = useState('');
  const [reason, setReason] = useState('');
  const { errors, busy, run } = useSave((p) => p === 'date' || p === 'endDate' || p === 'reason');
  if (doing === null)
    return (
      <Group gap={4} wrap="nowrap">
        {NEXT[subscription.status].map((a) => (
          <Button key={a} size="compact-xs" variant="default" color={a === 'terminate' ? 'red' : undefined} onClick={() => setDoing(a)}>
            {ACTIONS[a].label}
          </Button>
        ))}
      </Group>
    );
  const a = ACTIONS[doing];
  const save = () =>
    run(async () => {
      const data = { subscriptionID: subscription.subscriptionID, ...(reason.trim() ? { reason: reason.trim() } : {}) };
      // One call per action: each route has its own typed body (the date is endDate for a termination).
      if (doing === 'terminate') await call(ACTIONS.terminate.path, { method: 'Update', action: ACTIONS.terminate.action, apiVersion: 'v2', data: { ...data, endDate: date.trim() } });
      else if (doing === 'suspend') await call(ACTIONS.suspend.path, { method: 'Update', action: ACTIONS.suspend.action, apiVersion: 'v2', data: { ...data, date: date.trim() } });
      else await call(ACTIONS.resume.path, { method: 'Update', action: ACTIONS.resume.action, apiVersion: 'v2', data: { ...data, date: date.trim() } });
      notifyDone(`Subscription ${subscription.subscriptionID} ${a.done} on ${date.trim()}.`);
      setDoing(null);
      await queryClient.invalidateQueries({ queryKey: ['account', accountID] });
    });
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      <Text size="xs" mt={6}>
        {a.label}:
      </Text>
      <TextInput size="xs" w={110} placeholder="dd/mm/yyyy" aria-label={`${a.label} date (${a.hint})`} description={a.hint} value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors[a.date]} />
      {doing !== 'resume' && <TextInput size="xs" w={140} placeholder="reason (optional)" aria-label="Reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={errors.reason} />}
      <Button size="xs" onClick={() => void save()} loading={busy} disabled={!date.trim()}>
        {a.label}
      </Button>
      <Button size="xs" variant="subtle" onClick={() => setDoing(null)}>
        Cancel
      </Button>
    </Group>
  );
}
