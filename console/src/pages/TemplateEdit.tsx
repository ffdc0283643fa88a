// Make or change a template. The API checks every rule and names each bad field; the
// form puts each message under its field (details[].path, "service." taken off).
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { ActionIcon, Alert, Anchor, Button, Card, Checkbox, Group, List, Loader, MultiSelect, NumberInput, Select, SimpleGrid, Stack, Table, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { ApiError, call, read } from '../api/client.ts';
import { useDocumentTemplates, useTemplates, useTemplateVersions, versionInForce } from '../api/queries.ts';
import { apiToIso } from '../api/dates.ts';
import { formErrors, notifyDone, notifyError } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { CONNECTION_TYPES, CYCLES, MODEL_CHOICES, REGISTERS, emptyBank, emptyConnection, emptyValue, emptyComponent, emptyTemplate, emptyTier, fromRecord, prorateByDefault, recordOfVersion, toBody, type ComponentV, type ServiceRecord, type TemplateV } from './templates/model.ts';
import { MeterHead } from './templates/MeterHead.tsx';
import { EditableList } from './templates/EditableList.tsx';

export function TemplateEdit() {
  const code = useParams().code;
  const editing = code !== undefined;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState<{ index: number; from: string } | null>(null);
  const documents = useDocumentTemplates();
  // The standard template (id 0) is the empty choice: the body then names none.
  const documentChoices = (kind: 'invoice' | 'email') => [
    { value: '', label: 'Standard' },
    // An archived one still named by the template is listed, marked: a blank choice hid it, and the API's refusal of it.
    ...(documents.data?.templates ?? [])
      .filter((t) => t.kind === kind && t.templateID !== 0 && (t.archiveStatus === 0 || String(t.templateID) === (kind === 'invoice' ? v.invoiceTemplateID : v.emailTemplateID)))
      .map((t) => ({ value: String(t.templateID), label: `${t.name} (${t.templateID})${t.archiveStatus === 0 ? '' : ', archived'}` })),
  ];
  const { can, app } = useSession();
  const templates = useTemplates();
  const newest = editing ? (templates.data?.services.find((s) => s.serviceCode === code) ?? null) : null;
  // The version a save changes: the one in force today (a save without a date corrects it),
  // or one dated ahead, chosen, whose date the save then keeps. The form once started from
  // the newest version and saved it without its date: a version dated ahead came into force
  // at once (a reviewer).
  const versions = useTemplateVersions(editing ? code : null);
  const today = app?.today ? apiToIso(app.today) : null;
  const inForce = versions.data && today ? versionInForce(versions.data.versions, today) : undefined;
  const ahead = versions.data && today ? versions.data.versions.filter((x) => x.effectiveFrom !== null && apiToIso(x.effectiveFrom) > today) : [];
  const [chosen, setChosen] = useState<number | null>(null);
  const target = versions.data?.versions.find((x) => x.version === (chosen ?? inForce?.version));
  const record: ServiceRecord | null = newest && target ? recordOfVersion(newest, target) : newest;
  const effectiveFrom = target !== undefined && ahead.includes(target) ? target.effectiveFrom : null;
  const form = useForm<TemplateV>({ mode: 'controlled', initialValues: emptyTemplate() });
  const [other, setOther] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (record) form.setValues(fromRecord(record));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [record?.serviceID, record?.version, newest?.version]);

  if (!can('admin')) return <Alert color="yellow">Templates are made and changed by an admin.</Alert>;
  if (editing && (templates.isLoading || versions.isLoading || !app)) return <Loader />;
  if (editing && !record) return <Alert color="red">No template {code}.</Alert>;

  const v = form.getValues();
  /** A document template's name as the version keeps it beside its id (the live name; '' or null for the standard one). */
  const documentName = (id: string) => documents.data?.templates.find((t) => String(t.templateID) === id)?.name;
  const meters = v.meteredInputs.map((m) => m.code).filter(Boolean);
  // A rate per unit per day prices a level: a demand register's, or an unmetered input's (contracted kVA), never a running total.
  const levels = [...v.meteredInputs.filter((m) => m.register === 'maximum').map((m) => m.code), ...(record?.unmeteredInputs ?? []).map((u) => u.code)].filter(Boolean);
  const componentCodes = v.components.map((c) => c.code).filter(Boolean);

  const submit = async (values: TemplateV) => {
    setBusy(true);
    setOther([]);
    form.clearErrors();
    try {
      const service = toBody(values, record, documentName);
      if (editing) await call('/billing/services/update-service', { method: 'Update', action: 'Update Package', apiVersion: 'v2', ...(effectiveFrom ? { effectiveFrom } : {}), service });
      else await call('/billing/services/make-service', { method: 'Create', action: 'Create Package', apiVersion: 'v2', service });
      notifyDone(editing ? `Template ${service.code} changed: a new version is current.` : `Template ${service.code} made.`);
      await queryClient.invalidateQueries({ queryKey: ['services'] });
      await queryClient.invalidateQueries({ queryKey: ['batches'] });
      await queryClient.invalidateQueries({ queryKey: ['service-versions'] });
      navigate(`/templates/${encodeURIComponent(service.code)}`);
    } catch (err) {
      if (err instanceof ApiError) {
        const { fields, other: rest } = formErrors(err, 'service.', () => true);
        // The document templates are chosen by id in the form: their refusal goes under the choice.
        for (const [from, to] of [['invoiceTemplate.templateID', 'invoiceTemplateID'], ['emailTemplate.templateID', 'emailTemplateID']] as const) {
          if (fields[from] !== undefined) {
            fields[to] = fields[from]!;
            delete fields[from];
          }
        }
        form.setErrors(fields);
        // Messages on rows or arrays as a whole have no input of their own: listed above the buttons.
        setOther([...rest, ...Object.entries(fields).filter(([p]) => /(^|\.)\d+$|tiers$|components$|meteredInputs$|connectionInputs$|values$|batches$|of$/.test(p)).map(([p, m]) => `${p}: ${m}`)]);
      } else notifyError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={form.onSubmit((values) => void submit(values))}>
      <Stack>
        <Anchor component={Link} to="/templates" size="sm">
          ← Templates
        </Anchor>
        <Title order={2}>{editing ? `Change template ${code}` : 'New template'}</Title>
        {editing && (
          <Text size="sm" c="dimmed">
            Saving adds version {(versions.data?.versions[0]?.version ?? newest?.version ?? 0) + 1}
            {effectiveFrom ? `, in force from ${effectiveFrom} as version ${target?.version} was` : `, correcting version ${target?.version ?? newest?.version}, the one in force today`}; terms made before keep the version they were made with.
          </Text>
        )}
        {editing && ahead.length > 0 && (
          <Alert color="blue" title="A version is dated ahead" data-testid="versions-ahead">
            <Stack gap={4}>
              <Text size="sm">
                {ahead.map((x) => `Version ${x.version} is in force from ${x.effectiveFrom}`).join('; ')}. Choose which to change: the one in force today, whose correction leaves the dated one to
                take over on its day, or a dated one, whose correction keeps its date.
              </Text>
              <Select
                label="Change"
                w={360}
                allowDeselect={false}
                data={[inForce, ...ahead]
                  .filter((x): x is NonNullable<typeof x> => x !== undefined)
                  .map((x) => ({ value: String(x.version), label: x === inForce ? `version ${x.version}, in force today` : `version ${x.version}, from ${x.effectiveFrom}` }))}
                value={String(target?.version ?? '')}
                onChange={(x) => x !== null && setChosen(Number(x))}
              />
            </Stack>
          </Alert>
        )}
        <Card withBorder>
          <SimpleGrid cols={{ base: 2, lg: 4 }}>
            <TextInput label="Code" description="letters, digits, _ . -" required disabled={editing} {...form.getInputProps('code')} />
            <TextInput label="Name" required {...form.getInputProps('name')} />
            <Select label="Type" data={['Sale', 'Rental', 'Subscription']} allowDeselect={false} {...form.getInputProps('serviceType')} />
            <Select label="Billing cycle" data={CYCLES} allowDeselect={false} {...form.getInputProps('billingCycle')} />
            <Select
              label="Charging"
              description="Prepaid: fixed and unmetered charges in advance for the coming period, metered ones in arrears"
              data={['Postpaid', 'Prepaid']}
              allowDeselect={false}
              {...form.getInputProps('chargingType')}
            />
            <Select
              label="Bills"
              description="one per subscription, or one per account for all its subscriptions"
              data={[
                { value: 'Post Subscription', label: 'one per subscription' },
                { value: 'Post Account', label: 'one per account' },
              ]}
              allowDeselect={false}
              {...form.getInputProps('postType')}
            />
            <NumberInput label="Due after (days)" min={0} max={366} allowDecimal={false} {...form.getInputProps('dueDateOffset')} />
            <TagsInput label="Batches" description="Enter a code; a new one is made" {...form.getInputProps('batches')} />
            <TextInput label="Description" {...form.getInputProps('description')} />
            <Checkbox mt="lg" label="Post bills as soon as a run ends" {...form.getInputProps('postBilling', { type: 'checkbox' })} />
            <Select label="Invoice template" data={documentChoices('invoice')} allowDeselect={false} {...form.getInputProps('invoiceTemplateID')} />
            <Select label="E-mail template" data={documentChoices('email')} allowDeselect={false} {...form.getInputProps('emailTemplateID')} />
          </SimpleGrid>
        </Card>

        <EditableList
          title="Bank accounts"
          addLabel="Add a bank account"
          onAdd={() => form.insertListItem('bankAccounts', emptyBank())}
          hint='Where customers pay: printed on every bill under "How to pay".'
          heads={['Bank', 'Account name', 'Account number', 'Branch', 'SWIFT']}
          count={v.bankAccounts.length}
          cells={(i) =>
            // Named as the columns read ("Bank account 1 bankName" was what a screen reader said: an officer's walk).
            ([['bankName', 'bank'], ['accountName', 'account name'], ['accountNumber', 'account number'], ['branch', 'branch'], ['swift', 'SWIFT']] as const).map(([k, words]) => (
              <Table.Td key={k}>
                <TextInput aria-label={`Bank account ${i + 1}: ${words}`} required={k === 'bankName' || k === 'accountNumber'} {...form.getInputProps(`bankAccounts.${i}.${k}`)} />
              </Table.Td>
            ))
          }
          removeLabel={(i) => `Remove bank account ${i + 1}`}
          onRemove={(i) => form.removeListItem('bankAccounts', i)}
        />

        <Card withBorder>
          <Group justify="space-between" mb="xs">
            <Title order={4}>Meters</Title>
            <Button size="xs" variant="default" onClick={() => form.insertListItem('meteredInputs', { code: '', label: '', unit: '', decimals: 0, register: 'cumulative', rolloverAt: '' })}>
              Add a meter
            </Button>
          </Group>
          {/* 99999 typed for a 5-digit meter billed 99950 to 00110 as 159 units, not 160 (an officer's walk). */}
          <Text size="xs" c="dimmed" mb="xs">
            Rolls over at: the count the meter's dial cannot show, where it starts again from 0: 100000 for a meter of 5 whole digits (it reads 99999, then 00000). Leave it empty for a meter that never rolls over.
            Reads: Consumption for a meter that counts up (kWh, m3: a bill prices this reading less the one before); Highest demand for a demand register (kW, kVA) reset when it is read, whose reading a bill prices as read.
          </Text>
          <Table>
            <MeterHead withAction />
            <Table.Tbody>
              {v.meteredInputs.map((_, i) => (
                <Table.Tr key={i}>
                  <Table.Td>
                    <TextInput
                      aria-label={`Meter ${i + 1} code`}
                      {...form.getInputProps(`meteredInputs.${i}.code`)}
                      // The components priced on this meter follow its new code once it is typed: renamed, the
                      // meter left them naming the old one and the save refused it (an officer's walk). Followed
                      // key by key, a code passing through another meter's took that meter's components too.
                      onFocus={() => setRenaming({ index: i, from: v.meteredInputs[i]?.code ?? '' })}
                      onBlur={(e) => {
                        const to = e.currentTarget.value;
                        if (renaming?.index === i && renaming.from !== '' && renaming.from !== to) {
                          v.components.forEach((c, j) => c.input === renaming.from && form.setFieldValue(`components.${j}.input`, to));
                        }
                        setRenaming(null);
                      }}
                    />
                  </Table.Td>
                  <Table.Td><TextInput aria-label={`Meter ${i + 1} label`} {...form.getInputProps(`meteredInputs.${i}.label`)} /></Table.Td>
                  <Table.Td><TextInput aria-label={`Meter ${i + 1} unit`} w={80} {...form.getInputProps(`meteredInputs.${i}.unit`)} /></Table.Td>
                  <Table.Td><NumberInput aria-label={`Meter ${i + 1} decimals`} w={80} min={0} allowDecimal={false} {...form.getInputProps(`meteredInputs.${i}.decimals`)} /></Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={`Meter ${i + 1} reads`}
                      w={150}
                      allowDeselect={false}
                      data={REGISTERS.map((r) => ({ ...r }))}
                      {...form.getInputProps(`meteredInputs.${i}.register`)}
                      onChange={(value) => {
                        form.setFieldValue(`meteredInputs.${i}.register`, value === 'maximum' ? 'maximum' : 'cumulative');
                        // A demand register never rolls over: its reading is a demand, not a count.
                        if (value === 'maximum') form.setFieldValue(`meteredInputs.${i}.rolloverAt`, '');
                      }}
                    />
                  </Table.Td>
                  <Table.Td><TextInput aria-label={`Meter ${i + 1} roll-over`} placeholder={v.meteredInputs[i]?.register === 'maximum' ? 'never' : 'e.g. 100000'} disabled={v.meteredInputs[i]?.register === 'maximum'} w={120} {...form.getInputProps(`meteredInputs.${i}.rolloverAt`)} /></Table.Td>
                  <Table.Td><ActionIcon variant="subtle" color="red" aria-label={`Remove meter ${i + 1}`} onClick={() => form.removeListItem('meteredInputs', i)}>✕</ActionIcon></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>

        <EditableList
          title="Connection details"
          addLabel="Add a detail"
          onAdd={() => form.insertListItem('connectionInputs', emptyConnection())}
          hint="What each subscription records when it is connected, such as the meter number: shown on reading sheets and on an account's bill. A required one must be given for every new subscription."
          heads={['Code', 'Label', 'Type', 'Required']}
          count={v.connectionInputs.length}
          cells={(i) => (
            <>
              <Table.Td><TextInput aria-label={`Connection detail ${i + 1} code`} placeholder="METER_NO" {...form.getInputProps(`connectionInputs.${i}.code`)} /></Table.Td>
              <Table.Td><TextInput aria-label={`Connection detail ${i + 1} label`} placeholder="Meter number" {...form.getInputProps(`connectionInputs.${i}.label`)} /></Table.Td>
              <Table.Td>
                <Select aria-label={`Connection detail ${i + 1} type`} w={130} allowDeselect={false} data={CONNECTION_TYPES.map((t) => ({ ...t }))} {...form.getInputProps(`connectionInputs.${i}.type`)} />
              </Table.Td>
              <Table.Td><Checkbox aria-label={`Connection detail ${i + 1} required`} {...form.getInputProps(`connectionInputs.${i}.required`, { type: 'checkbox' })} /></Table.Td>
            </>
          )}
          removeLabel={(i) => `Remove connection detail ${i + 1}`}
          onRemove={(i) => form.removeListItem('connectionInputs', i)}
        />

        <EditableList
          title="Values"
          addLabel="Add a value"
          onAdd={() => form.insertListItem('values', emptyValue())}
          hint="Named numbers the components can use instead of typing them, such as a VAT rate: type the value's code where a component asks for a number, and change it here once for all of them."
          heads={['Code', 'Label', 'Value']}
          count={v.values.length}
          cells={(i) => (
            <>
              <Table.Td><TextInput aria-label={`Value ${i + 1} code`} placeholder="VAT" {...form.getInputProps(`values.${i}.code`)} /></Table.Td>
              <Table.Td><TextInput aria-label={`Value ${i + 1} label`} placeholder="VAT rate" {...form.getInputProps(`values.${i}.label`)} /></Table.Td>
              <Table.Td><TextInput aria-label={`Value ${i + 1} value`} placeholder="16" w={120} {...form.getInputProps(`values.${i}.value`)} /></Table.Td>
            </>
          )}
          removeLabel={(i) => `Remove value ${i + 1}`}
          onRemove={(i) => form.removeListItem('values', i)}
        />

        <Card withBorder>
          <Group justify="space-between" mb="xs">
            <Title order={4}>Components (in bill order)</Title>
            <Button size="xs" variant="default" onClick={() => form.insertListItem('components', emptyComponent())}>
              Add a component
            </Button>
          </Group>
          <Stack>
            {v.components.map((c, i) => (
              <Card key={i} withBorder bg="gray.0" data-testid={`component-${i}`}>
                <SimpleGrid cols={{ base: 3, lg: 5 }}>
                  <TextInput label="Code" required {...form.getInputProps(`components.${i}.code`)} />
                  <TextInput label="Name" required {...form.getInputProps(`components.${i}.name`)} />
                  <Select
                    label="Model"
                    data={MODEL_CHOICES}
                    allowDeselect={false}
                    {...form.getInputProps(`components.${i}.model`)}
                    // Another model starts from its own default proration, shown by the checkbox below.
                    onChange={(m) => {
                      if (m === null || m === c.model) return;
                      form.setFieldValue(`components.${i}.model`, m as ComponentV['model']);
                      form.setFieldValue(`components.${i}.prorate`, prorateByDefault(m));
                    }}
                  />
                  <Select label="Category" data={['charge', 'tax']} allowDeselect={false} {...form.getInputProps(`components.${i}.category`)} />
                  {c.model !== 'percentage' && c.model !== 'flat' && c.model !== 'commitment' && c.model !== 'perDay' && c.model !== 'perUnitPerDay' && c.model !== 'totalRounding' && <Select label="Meter" data={meters} allowDeselect={false} {...form.getInputProps(`components.${i}.input`)} />}
                  {c.model === 'perUnitPerDay' && <Select label="Demand or level" description="a demand register, or an unmetered input" data={levels} allowDeselect={false} {...form.getInputProps(`components.${i}.input`)} />}
                  {(c.model === 'flat' || c.model === 'commitment') && <TextInput label={c.model === 'commitment' ? 'Minimum commitment' : 'Amount'} required {...form.getInputProps(`components.${i}.amount`)} />}
                  {c.model === 'perUnit' && <TextInput label="Rate per unit" required {...form.getInputProps(`components.${i}.rate`)} />}
                  {c.model === 'perDay' && <TextInput label="Rate per day billed" required {...form.getInputProps(`components.${i}.rate`)} />}
                  {c.model === 'perUnitPerDay' && <TextInput label="Rate per unit per day" description="e.g. per kVA per day" required {...form.getInputProps(`components.${i}.rate`)} />}
                  {c.model === 'package' && <TextInput label="Package size" required {...form.getInputProps(`components.${i}.size`)} />}
                  {c.model === 'package' && <TextInput label="Price per package" required {...form.getInputProps(`components.${i}.price`)} />}
                  {c.model === 'package' && <TextInput label="Free units" placeholder="0" {...form.getInputProps(`components.${i}.freeUnits`)} />}
                  {c.model === 'percentage' && <TextInput label="Percentage" description="a number or a value's code" required {...form.getInputProps(`components.${i}.percentage`)} />}
                  {c.model === 'totalRounding' && <TextInput label="Round to a multiple of" description="1: the whole unit; 0.05: cash rounding" required {...form.getInputProps(`components.${i}.increment`)} />}
                  {c.model === 'totalRounding' && <Select label="Rounding" data={['halfUp', 'halfEven', 'halfDown', 'up', 'down', 'ceil', 'floor']} allowDeselect={false} {...form.getInputProps(`components.${i}.rounding`)} />}
                  {(c.model === 'percentage' || c.model === 'commitment' || c.model === 'totalRounding') && (
                    <MultiSelect
                      label={c.model === 'commitment' ? 'Counts components' : c.model === 'totalRounding' ? 'Rounds the sum of' : 'Of components'}
                      data={componentCodes.filter((x) => x !== c.code)}
                      {...form.getInputProps(`components.${i}.of`)}
                    />
                  )}
                  {c.model !== 'totalRounding' && <TextInput label="Minimum" placeholder="none" {...form.getInputProps(`components.${i}.minimum`)} />}
                  {c.model !== 'totalRounding' && <TextInput label="Maximum" placeholder="none" {...form.getInputProps(`components.${i}.maximum`)} />}
                  {c.model !== 'percentage' && c.model !== 'perDay' && c.model !== 'perUnitPerDay' && c.model !== 'totalRounding' && <Checkbox mt="lg" label="Prorate by days" {...form.getInputProps(`components.${i}.prorate`, { type: 'checkbox' })} />}
                  {c.model === 'graduated' && (
                    <Checkbox mt="lg" label="Round each tier" description="each tier's amount to the cent; the line is their sum" {...form.getInputProps(`components.${i}.roundEachTier`, { type: 'checkbox' })} />
                  )}
                </SimpleGrid>
                {(c.model === 'graduated' || c.model === 'volume') && (
                  <Stack gap={4} mt="sm">
                    <Text size="sm" fw={500}>
                      Tiers ({c.model === 'graduated' ? 'each tier prices its own units' : 'the tier reached prices every unit'}); leave the last "up to" empty
                    </Text>
                    <Table withTableBorder>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>Up to</Table.Th>
                          <Table.Th>Rate</Table.Th>
                          <Table.Th>Flat fee</Table.Th>
                          <Table.Th />
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {c.tiers.map((_, t) => (
                          <Table.Tr key={t}>
                            <Table.Td><TextInput aria-label={`Component ${i + 1} tier ${t + 1} up to`} placeholder="no limit" {...form.getInputProps(`components.${i}.tiers.${t}.upTo`)} /></Table.Td>
                            <Table.Td><TextInput aria-label={`Component ${i + 1} tier ${t + 1} rate`} {...form.getInputProps(`components.${i}.tiers.${t}.rate`)} /></Table.Td>
                            <Table.Td><TextInput aria-label={`Component ${i + 1} tier ${t + 1} flat fee`} placeholder="none" {...form.getInputProps(`components.${i}.tiers.${t}.flat`)} /></Table.Td>
                            <Table.Td><ActionIcon variant="subtle" color="red" aria-label={`Remove tier ${t + 1}`} onClick={() => form.removeListItem(`components.${i}.tiers`, t)}>✕</ActionIcon></Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                    <Group>
                      <Button size="xs" variant="default" onClick={() => form.insertListItem(`components.${i}.tiers`, emptyTier())}>
                        Add a tier
                      </Button>
                    </Group>
                  </Stack>
                )}
                <Group justify="flex-end" mt="xs">
                  <Button size="xs" variant="subtle" color="red" onClick={() => form.removeListItem('components', i)}>
                    Remove component
                  </Button>
                </Group>
              </Card>
            ))}
          </Stack>
        </Card>
        {other.length > 0 && (
          <Alert color="red" title="Not saved">
            <List size="sm">
              {other.map((o) => (
                <List.Item key={o}>{o}</List.Item>
              ))}
            </List>
          </Alert>
        )}
        {Object.keys(form.errors).length > 0 && other.length === 0 && (
          <Alert color="red" role="alert">
            Not saved: see the fields marked in red.
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={busy}>
            {editing ? 'Save a new version' : 'Make the template'}
          </Button>
          <Button variant="default" component={Link} to={editing ? `/templates/${code}` : '/templates'}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
