// The app's own settings an admin keeps (get-app, update-app): the name and address every
// bill and credit note prints at its top, and the time zone its dates and scheduled runs
// are read in. A new install's app is called "Default", and a billing officer's walk found
// that name on every PDF with no way here to change it.
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Group, Loader, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { call, read } from '../api/client.ts';
import { notifyDone, showRefusal } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';

type Fields = { name: string; address: string; taxNumber: string; timeZone: string; currency: string; minorUnits: string };

export function Settings() {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: ['app'], enabled: can('admin'), queryFn: () => read('/admin/get-app', { method: 'Retrieve', action: 'Retrieve App', apiVersion: 'v2' }) });
  const app = q.data?.app;
  const [f, setF] = useState<Fields>({ name: '', address: '', taxNumber: '', timeZone: '', currency: '', minorUnits: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (app) setF({ name: app.name, address: app.address, taxNumber: app.taxNumber, timeZone: app.timeZone, currency: app.currency, minorUnits: String(app.minorUnits) });
  }, [app]);

  if (!can('admin')) return <Alert color="gray">The app's settings are an admin's.</Alert>;
  if (q.isLoading || !app) return <Loader />;

  const current: Fields = { name: app.name, address: app.address, taxNumber: app.taxNumber, timeZone: app.timeZone, currency: app.currency, minorUnits: String(app.minorUnits) };
  // An emptied number is not a 0 (it set a currency without decimals): left out, as unchanged.
  const changed = (Object.keys(f) as (keyof Fields)[]).filter((k) => f[k] !== current[k] && !(k === 'minorUnits' && f[k].trim() === ''));
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await call('/admin/update-app', { method: 'Update', action: 'Update App', apiVersion: 'v2', data: Object.fromEntries(changed.map((k) => [k, k === 'minorUnits' ? Number(f[k]) : f[k]])) });
      notifyDone('Settings saved: documents rendered from now on print them.');
      // The header shows the name and time zone; every page reads dates in the zone.
      await queryClient.invalidateQueries();
    } catch (err) {
      showRefusal(err, setErrors, (p) => p in f);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack>
      <Title order={2}>Settings</Title>
      <Card withBorder>
        <form onSubmit={save}>
          <Stack gap="sm" maw={560}>
            <TextInput label="Name" description="The utility's name, at the top of every bill and credit note" required value={f.name} onChange={(e) => setF({ ...f, name: e.currentTarget.value })} error={errors.name} />
            <Textarea label="Address" description="One line per line of the address, as printed under the name" autosize minRows={3} value={f.address} onChange={(e) => setF({ ...f, address: e.currentTarget.value })} error={errors.address} />
            {/* A VAT invoice carries the supplier's VAT number: a new user found no place for it. */}
            <TextInput label="Tax number" description="The tax registration (VAT) number printed under the address on bills and credit notes; empty for none" value={f.taxNumber} onChange={(e) => setF({ ...f, taxNumber: e.currentTarget.value })} error={errors.taxNumber} />
            <TextInput label="Time zone" description="IANA name (Africa/Nairobi): bill dates, today and scheduled runs are read in it" required value={f.timeZone} onChange={(e) => setF({ ...f, timeZone: e.currentTarget.value })} error={errors.timeZone} />
            {/* Set before the first bill or payment: an officer was told to use the API for it, before any money existed. */}
            <Group grow>
              <TextInput
                label="Currency"
                description={app.moneyRecorded ? 'Fixed: money is recorded in it' : 'ISO 4217 code (USD, KES, EUR)'}
                disabled={app.moneyRecorded}
                value={f.currency}
                onChange={(e) => setF({ ...f, currency: e.currentTarget.value.toUpperCase() })}
                error={errors.currency}
              />
              <TextInput
                label="Decimals of the currency"
                description={app.moneyRecorded ? 'Fixed with the currency' : '2 for cents, 0 for none'}
                disabled={app.moneyRecorded}
                value={f.minorUnits}
                onChange={(e) => setF({ ...f, minorUnits: e.currentTarget.value })}
                error={errors.minorUnits}
              />
            </Group>
            <Group>
              <Button type="submit" loading={busy} disabled={changed.length === 0}>
                Save settings
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>
      <Card withBorder>
        <Text size="sm" c="dimmed" mb="xs">
          Changed through the API (update-app):
        </Text>
        <Table>
          <Table.Tbody>
            {(
              [
                ['Rounding', app.rounding],
                ['Late payment charge', app.lateCharge.kind === 'none' ? 'none' : `${app.lateCharge.kind} ${app.lateCharge.amount} after ${app.lateCharge.graceDays} day(s)`],
                ['Test app', app.testApp ? `yes (today is ${app.clock.today})` : 'no'],
              ] as const
            ).map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Th w={200}>{k}</Table.Th>
                <Table.Td>{v}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
