// An account's subscriptions changed from its page: a new one (make-subscription), and a
// suspension, its end and a termination (suspend-, resume-, terminate-subscription). Each
// was API-only: an officer connecting a customer between imports had to leave for curl.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Autocomplete, Button, Card, Checkbox, Group, Loader, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { call, read, type Data } from '../../api/client.ts';
import { useTemplates } from '../../api/queries.ts';
import { appTodayApi, atText } from '../../api/dates.ts';
import { notifyDone, useSave } from '../../components/feedback.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { useSession } from '../../session.tsx';

type Account = Data<'/billing/accounts/get-account'>['account'];
type Subscription = Data<'/billing/accounts/get-account'>['subscriptions'][number];
type Template = Data<'/billing/services/get-services'>['services'][number];

/**
 * A connection input as the template types it: a number as a JSON number when it reads as
 * one (the API checks it), a box for a boolean, text otherwise (dates dd/mm/yyyy).
 */
function connectionValue(type: string, text: string): string | number | boolean {
  if (type === 'boolean') return text === 'true';
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(text.trim()) && Number.isSafeInteger(Math.trunc(Number(text)))) return Number(text.trim());
  return text.trim();
}

export function NewSubscription({ account, onDone }: { account: Account; onDone: () => void }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const active = (templates.data?.services ?? []).filter((t) => t.archiveStatus === 0);
  // The only template is chosen already, also when the templates arrive after the form opened
  // (taken once at the first render, it stayed empty after a reload: a new user's walk).
  const [chosenService, setServiceCode] = useState<string | null>(null);
  const serviceCode = chosenService ?? (active.length === 1 ? active[0]!.serviceCode : null);
  const template: Template | undefined = active.find((t) => t.serviceCode === serviceCode);
  const [batchCode, setBatchCode] = useState<string | null>(null);
  const [startDate, setStartDate] = useState(appTodayApi(app));
  const [values, setValues] = useState<Record<string, string>>({});
  // A demand register opens at 0 (its reset when installed): filled in, so that the form sends
  // what it shows (a placeholder 0 sent nothing, and the first run asked for it: a reviewer).
  const opening: Record<string, string> = Object.fromEntries((template?.meteredInputs ?? []).filter((m) => m.register === 'maximum').map((m) => [`m.${m.code}`, '0']));
  const value = (key: string) => values[key] ?? opening[key] ?? '';
  const setValue = (key: string, v: string) => setValues({ ...values, [key]: v });
  // Errors under the inputs they name; any other (the account, a closed account ...) is notified.
  const { errors, busy, run } = useSave((p) => ['serviceCode', 'batchCode', 'startDate', 'readingDate'].includes(p) || /^(connectionInputs|unmeteredInputs|openingReadings|documents)\./.test(p));
  const errorAt = (prefix: string) => Object.entries(errors).find(([p]) => p === prefix || p.startsWith(`${prefix}.`))?.[1];
  const batches = template?.batches ?? [];
  const batch = batchCode !== null && batches.includes(batchCode) ? batchCode : batches.length === 1 ? batches[0]! : null;

  const save = (e: React.FormEvent) => {
    e.preventDefault();
    if (!template) return;
    void run(async () => {
      const connectionInputs: Record<string, string | number | boolean> = {};
      for (const c of template.connectionInputs) if (value(`c.${c.code}`) !== '' || c.type === 'boolean') connectionInputs[c.code] = connectionValue(c.type, value(`c.${c.code}`));
      const unmeteredInputs: Record<string, string> = {};
      for (const u of template.unmeteredInputs) if (value(`u.${u.code}`).trim() !== '') unmeteredInputs[u.code] = value(`u.${u.code}`).trim();
      const openingReadings: Record<string, string> = {};
      for (const m of template.meteredInputs) if (value(`m.${m.code}`).trim() !== '') openingReadings[m.code] = value(`m.${m.code}`).trim();
      const documents = (template.requiredDocs ?? []).map((name) => ({ name, reference: value(`d.${name}`).trim(), date: value(`dd.${name}`).trim() }));
      const { headers } = await call('/billing/subscriptions/make-subscription', {
        method: 'Create',
        action: 'Create Subscription',
        apiVersion: 'v2',
        data: {
          accountNumber: account.accountNumber,
          serviceCode: template.serviceCode,
          batchCode: batch ?? '',
          startDate: startDate.trim(),
          ...(Object.keys(connectionInputs).length ? { connectionInputs } : {}),
          ...(Object.keys(unmeteredInputs).length ? { unmeteredInputs } : {}),
          ...(Object.keys(openingReadings).length ? { openingReadings } : {}),
          ...(documents.length ? { documents } : {}),
        },
      });
      notifyDone(`Subscription ${headers.get('x-billrun-subscription-id') ?? ''} to ${template.serviceCode} made, from ${startDate.trim()}.`);
      await queryClient.invalidateQueries({ queryKey: ['account', account.accountID] });
      onDone();
    });
  };

  return (
    <Card withBorder>
      <Title order={5} mb="xs">
        New subscription
      </Title>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <Select label="Template" required data={active.map((t) => ({ value: t.serviceCode, label: `${t.serviceLabel} (${t.serviceCode})` }))} value={serviceCode} onChange={setServiceCode} allowDeselect={false} error={errors.serviceCode} />
          <Select label="Batch" required data={batches} value={batch} onChange={setBatchCode} allowDeselect={false} error={errors.batchCode} disabled={!template} />
          <TextInput label="From" description="dd/mm/yyyy: the first day billed" required value={startDate} onChange={(e) => setStartDate(e.currentTarget.value)} error={errors.startDate} />
          {template?.connectionInputs.map((c) =>
            c.type === 'boolean' ? (
              <Checkbox key={c.code} mt="lg" label={c.label} checked={value(`c.${c.code}`) === 'true'} onChange={(e) => setValue(`c.${c.code}`, String(e.currentTarget.checked))} error={errorAt(`connectionInputs.${c.code}`)} />
            ) : (
              <TextInput
                key={c.code}
                label={c.label}
                description={c.type === 'date' ? 'dd/mm/yyyy' : c.type === 'number' ? 'a number' : undefined}
                required={c.required === true}
                value={value(`c.${c.code}`)}
                onChange={(e) => setValue(`c.${c.code}`, e.currentTarget.value)}
                error={errorAt(`connectionInputs.${c.code}`)}
              />
            ),
          )}
          {template?.unmeteredInputs.map((u) => (
            <TextInput key={u.code} label={u.label} placeholder={u.default === undefined ? '' : `${String(u.default)} (the template's)`} value={value(`u.${u.code}`)} onChange={(e) => setValue(`u.${u.code}`, e.currentTarget.value)} error={errorAt(`unmeteredInputs.${u.code}`)} />
          ))}
          {template?.meteredInputs.map((m) => (
            <TextInput
              key={m.code}
              label={`Opening reading of ${m.label || m.code}`}
              // A demand register's opening is its reset: 0 (a new user left it blank and the first bill run asked for it).
              description={m.register === 'maximum' ? `${m.unit}, a demand register: 0 when it is installed (reset)` : `${m.unit}, read on the first day`}
              value={value(`m.${m.code}`)}
              onChange={(e) => setValue(`m.${m.code}`, e.currentTarget.value)}
              error={errorAt(`openingReadings.${m.code}`) ?? errors.readingDate}
            />
          ))}
          {(template?.requiredDocs ?? []).flatMap((name, i) => [
            <TextInput key={`${name}-ref`} label={`${name}: reference`} required value={value(`d.${name}`)} onChange={(e) => setValue(`d.${name}`, e.currentTarget.value)} error={errorAt(`documents.${i}.reference`) ?? errorAt(`documents.${i}.name`)} />,
            // Its own date, asked: the first day billed was sent for it unseen (a reviewer: a 2019 title deed recorded as of 2027).
            <TextInput key={`${name}-date`} label={`${name}: dated`} description="dd/mm/yyyy" required value={value(`dd.${name}`)} onChange={(e) => setValue(`dd.${name}`, e.currentTarget.value)} error={errorAt(`documents.${i}.date`)} />,
          ])}
        </SimpleGrid>
        {template === undefined && <Text size="sm" c="dimmed" mt="xs">Choose the template: its inputs and meters follow.</Text>}
        <FormActions submit="Make the subscription" busy={busy} onCancel={onDone} disabled={!template} />
      </form>
    </Card>
  );
}

export type Change = 'suspend' | 'resume' | 'terminate' | 'move' | 'documents';

const CHANGES: Record<Exclude<Change, 'move' | 'documents'>, { title: string; action: 'Suspend Subscription' | 'Resume Subscription' | 'Terminate Subscription'; dateLabel: string; note: string; done: (id: number, date: string) => string }> = {
  suspend: {
    title: 'Suspend',
    action: 'Suspend Subscription',
    dateLabel: 'First day suspended',
    note: 'Not billed from that day until resumed (its charges prorated by the days billed).',
    done: (id, date) => `Subscription ${id} suspended from ${date}.`,
  },
  resume: { title: 'Resume', action: 'Resume Subscription', dateLabel: 'First day billed again', note: 'Billed again from that day.', done: (id, date) => `Subscription ${id} billed again from ${date}.` },
  terminate: {
    title: 'Terminate',
    action: 'Terminate Subscription',
    dateLabel: 'Last day billed',
    note: "Billed to that day, then never again; its meter's last reading is dated that day. It cannot be undone.",
    done: (id, date) => `Subscription ${id} terminated: ${date} is its last day billed.`,
  },
};

/** The changes a subscription in this status can take. */
export const changesOf = (status: string): Change[] => (status === 'active' ? ['suspend', 'move', 'documents', 'terminate'] : status === 'suspended' ? ['resume', 'documents', 'terminate'] : []);

export function ChangeSubscription({ accountID, subscription, change, onDone }: { accountID: number; subscription: Subscription; change: Exclude<Change, 'move' | 'documents'>; onDone: () => void }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const [date, setDate] = useState(appTodayApi(app));
  const [reason, setReason] = useState('');
  const { errors, busy, run } = useSave((p) => ['date', 'endDate', 'reason', 'subscriptionID'].includes(p));
  const c = CHANGES[change];
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const extra = reason.trim() ? { reason: reason.trim() } : {};
      const id = subscription.subscriptionID;
      if (change === 'suspend') await call('/billing/subscriptions/suspend-subscription', { method: 'Update', action: c.action as 'Suspend Subscription', apiVersion: 'v2', data: { subscriptionID: id, date: date.trim(), ...extra } });
      else if (change === 'resume') await call('/billing/subscriptions/resume-subscription', { method: 'Update', action: c.action as 'Resume Subscription', apiVersion: 'v2', data: { subscriptionID: id, date: date.trim(), ...extra } });
      else await call('/billing/subscriptions/terminate-subscription', { method: 'Update', action: c.action as 'Terminate Subscription', apiVersion: 'v2', data: { subscriptionID: id, endDate: date.trim(), ...extra } });
      notifyDone(c.done(id, date.trim()));
      await queryClient.invalidateQueries({ queryKey: ['account', accountID] });
      await queryClient.invalidateQueries({ queryKey: ['subscription-history', id] });
      onDone();
    });
  };
  return (
    <Card withBorder>
      <Title order={5}>
        {c.title} subscription {subscription.subscriptionID} ({subscription.serviceCode})
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {c.note}
      </Text>
      <form onSubmit={save}>
        <Group align="flex-start">
          <TextInput label={c.dateLabel} description="dd/mm/yyyy" required value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors.date ?? errors.endDate} />
          <TextInput label="Reason (optional)" w={320} value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={errors.reason} />
        </Group>
        <FormActions submit={c.title} busy={busy} onCancel={onDone} color={change === 'terminate' ? 'red' : undefined} />
      </form>
    </Card>
  );
}

/**
 * A subscription moved to another template or batch from a day (move-subscription): it ends
 * the day before, and a new one starts that day with the same inputs and documents (the API
 * refuses the move, on its field, when the new template asks for more). A customer moving
 * from a domestic to a commercial tariff took the API before.
 */
export function MoveSubscription({ accountID, subscription, onDone }: { accountID: number; subscription: Subscription; onDone: () => void }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const active = (templates.data?.services ?? []).filter((t) => t.archiveStatus === 0);
  const [serviceCode, setServiceCode] = useState<string | null>(subscription.serviceCode);
  const [batchCode, setBatchCode] = useState<string | null>(subscription.batchCode);
  const [date, setDate] = useState(appTodayApi(app));
  const { errors, busy, run } = useSave((p) => ['date', 'serviceCode', 'batchCode', 'subscriptionID'].includes(p) || /^(connectionInputs|unmeteredInputs|documents)\./.test(p));
  const template = active.find((t) => t.serviceCode === serviceCode);
  const batches = template?.batches ?? [];
  const batch = batchCode !== null && batches.includes(batchCode) ? batchCode : batches.length === 1 ? batches[0]! : null;
  const unchanged = serviceCode === subscription.serviceCode && batch === subscription.batchCode;
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const { headers } = await call('/billing/subscriptions/move-subscription', {
        method: 'Update',
        action: 'Move Subscription',
        apiVersion: 'v2',
        data: {
          subscriptionID: subscription.subscriptionID,
          date: date.trim(),
          ...(serviceCode !== null && serviceCode !== subscription.serviceCode ? { serviceCode } : {}),
          ...(batch !== null && batch !== subscription.batchCode ? { batchCode: batch } : {}),
        },
      });
      notifyDone(`Subscription ${subscription.subscriptionID} moved: it ends the day before ${date.trim()}; subscription ${headers.get('x-billrun-subscription-id') ?? ''} (${serviceCode}, ${batch}) starts that day.`);
      await queryClient.invalidateQueries({ queryKey: ['account', accountID] });
      await queryClient.invalidateQueries({ queryKey: ['subscription-history', subscription.subscriptionID] });
      onDone();
    });
  };
  return (
    <Card withBorder>
      <Title order={5}>
        Move subscription {subscription.subscriptionID} ({subscription.serviceCode}, {subscription.batchCode})
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        To another template or batch from a day: this subscription is billed to the day before, a new one from that day, with the same inputs and documents.
      </Text>
      <form onSubmit={save}>
        <Group align="flex-start">
          <Select label="Template" required allowDeselect={false} data={active.map((t) => ({ value: t.serviceCode, label: `${t.serviceCode}: ${t.serviceLabel}` }))} value={serviceCode} onChange={setServiceCode} error={errors.serviceCode} w={240} />
          <Select label="Batch" required allowDeselect={false} data={batches} value={batch} onChange={setBatchCode} error={errors.batchCode} w={160} />
          <TextInput label="First day of the new one" description="dd/mm/yyyy" required value={date} onChange={(e) => setDate(e.currentTarget.value)} error={errors.date} />
        </Group>
        {Object.entries(errors)
          .filter(([p]) => /^(connectionInputs|unmeteredInputs|documents)\./.test(p))
          .map(([p, m]) => (
            <Text key={p} size="sm" c="red">
              {p}: {m}
            </Text>
          ))}
        {unchanged && (
          <Text size="sm" c="dimmed" mt="xs">
            Choose another template or batch.
          </Text>
        )}
        <FormActions submit="Move" busy={busy} onCancel={onDone} disabled={unchanged || batch === null} />
      </form>
    </Card>
  );
}

/**
 * A document recorded on a live subscription (record-documents): a deed or an ID seen after
 * the connection, or one renewed (recorded again, it replaces the reference and date; the
 * history keeps what it replaced). The template's required documents are offered by name.
 */
export function RecordDocument({ accountID, subscription, onDone }: { accountID: number; subscription: Subscription; onDone: () => void }) {
  const { app } = useSession();
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const required = templates.data?.services.find((t) => t.serviceCode === subscription.serviceCode)?.requiredDocs ?? [];
  const [f, setF] = useState({ name: '', reference: '', date: appTodayApi(app) });
  // The one document's errors under its fields (data.documents[0].name ...); any other is notified.
  const { errors, busy, run } = useSave((p) => ['name', 'reference', 'date'].includes(p), 'data.documents[0].');
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await call('/billing/subscriptions/record-documents', {
        method: 'Update',
        action: 'Record Subscription Documents',
        apiVersion: 'v2',
        data: { subscriptionID: subscription.subscriptionID, documents: [{ name: f.name.trim(), reference: f.reference.trim(), date: f.date.trim() }] },
      });
      notifyDone(`${f.name.trim()} ${f.reference.trim()} of ${f.date.trim()} recorded on subscription ${subscription.subscriptionID}.`);
      await queryClient.invalidateQueries({ queryKey: ['account', accountID] });
      await queryClient.invalidateQueries({ queryKey: ['subscription-history', subscription.subscriptionID] });
      onDone();
    });
  };
  return (
    <Card withBorder>
      <Title order={5}>Record a document on subscription {subscription.subscriptionID} ({subscription.serviceCode})</Title>
      <Text size="sm" c="dimmed" mb="xs">
        {required.length > 0 ? `Its template asks for: ${required.join(', ')}. ` : ''}A document recorded again replaces its reference and date; the history keeps the earlier ones.
      </Text>
      <form onSubmit={save}>
        <Group align="flex-start">
          <Autocomplete label="Document" required data={[...new Set([...required, ...subscription.documents.map((d) => d.name)])]} value={f.name} onChange={(v) => setF({ ...f, name: v })} error={errors.name} w={220} />
          <TextInput label="Reference" required value={f.reference} onChange={(e) => setF({ ...f, reference: e.currentTarget.value })} error={errors.reference} />
          <TextInput label="Date" description="dd/mm/yyyy" required value={f.date} onChange={(e) => setF({ ...f, date: e.currentTarget.value })} error={errors.date} w={130} />
        </Group>
        <FormActions submit="Record" busy={busy} onCancel={onDone} disabled={f.name.trim() === '' || f.reference.trim() === ''} />
      </form>
    </Card>
  );
}

type SubscriptionEvent = NonNullable<Data<'/billing/subscriptions/get-subscriptions'>['subscriptions'][number]['events']>[number];

const EVENT_WORDS: Record<string, string> = {
  suspended: 'suspended from',
  resumed: 'billed again from',
  terminated: 'terminated, last day billed',
  moved_out: 'moved out, last day billed',
  moved_in: 'moved in from',
  inputs_changed: 'inputs changed from',
  documents_recorded: 'documents recorded on',
};

/**
 * A subscription's history (get-subscriptions by its id): after a suspension and its end,
 * the account showed only the status, and the dates were in the bills' words alone (an
 * officer's walk).
 */
export function SubscriptionHistory({ subscriptionID, onClose }: { subscriptionID: number; onClose: () => void }) {
  const q = useQuery({
    queryKey: ['subscription-history', subscriptionID],
    queryFn: () => read('/billing/subscriptions/get-subscriptions', { method: 'Retrieve', action: 'Retrieve Subscriptions', apiVersion: 'v2', data: { subscriptionID } }),
  });
  const events: SubscriptionEvent[] = q.data?.subscriptions[0]?.events ?? [];
  return (
    <Card withBorder data-testid="subscription-history">
      <Group justify="space-between" mb="xs">
        <Title order={5}>History of subscription {subscriptionID}</Title>
        <Button size="compact-xs" variant="subtle" onClick={onClose}>
          Close
        </Button>
      </Group>
      {q.isLoading ? (
        <Loader size="sm" />
      ) : events.length === 0 ? (
        <Text size="sm" c="dimmed">
          No change since it was made.
        </Text>
      ) : (
        <Stack gap={2}>
          {events.map((e, i) => (
            <Text key={i} size="sm">
              {EVENT_WORDS[e.kind] ?? e.kind} {e.date}
              {typeof e.detail.reason === 'string' && e.detail.reason ? ` (${e.detail.reason})` : ''} · by {e.createdBy} on {atText(e.createdAt)}
            </Text>
          ))}
        </Stack>
      )}
    </Card>
  );
}
