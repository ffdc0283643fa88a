// An account made or changed from the console (make-account, update-account): its e-mail and
// how its bills reach it above all. A new tenant's accounts were imported without a delivery
// preference, so every bill went to print, and nothing in the console could change it; and an
// officer with one new customer had to write a CSV file to add it.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Card, Select, SimpleGrid, Textarea, TextInput } from '@mantine/core';
import { call, type Data } from '../../api/client.ts';
import { notifyDone, useSave } from '../../components/feedback.tsx';
import { SubmitOrCancel } from '../../components/SubmitOrCancel.tsx';

type Account = Data<'/billing/accounts/get-account'>['account'];
type Delivery = 'email' | 'print' | 'both' | 'none';

const DELIVERY: { value: Delivery; label: string }[] = [
  { value: 'print', label: 'print: on paper' },
  { value: 'email', label: 'e-mail' },
  { value: 'both', label: 'both' },
  { value: 'none', label: 'none: not sent' },
];

/** Without an account, a new one: its number too, and the page goes to it once made. */
export function EditAccount({ account, onDone }: { account?: Account; onDone: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [f, setF] = useState({
    accountNumber: account?.accountNumber ?? '',
    name: account?.name ?? '',
    email: account?.email ?? '',
    phone: account?.phone ?? '',
    address: account?.address ?? '',
    deliveryPreference: (account?.deliveryPreference ?? 'print') as Delivery,
    status: (account?.status ?? 'active') as 'active' | 'closed',
  });
  const { errors, busy, run } = useSave((p) => p in f);
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  const make = async () => {
    const data = { accountNumber: f.accountNumber.trim(), name: f.name.trim(), deliveryPreference: f.deliveryPreference } as const;
    const optional = Object.fromEntries((['email', 'phone', 'address'] as const).flatMap((k) => (text(f[k]) === null ? [] : [[k, text(f[k])]])));
    const { headers } = await call('/billing/accounts/make-account', { method: 'Create', action: 'Create Account', apiVersion: 'v2', data: { ...data, ...optional } });
    notifyDone(`Account ${data.accountNumber} made.`);
    await queryClient.invalidateQueries({ queryKey: ['accounts'] });
    navigate(`/accounts/${headers.get('x-billrun-account-id')}`);
  };
  // Only what changed is sent; an emptied field is cleared (null).
  const change = async (account: Account) => {
    const data: Record<string, unknown> = {};
    if (f.name.trim() !== account.name) data.name = f.name.trim();
    for (const k of ['email', 'phone', 'address'] as const) if (text(f[k]) !== (account[k] ?? null)) data[k] = text(f[k]);
    if (f.deliveryPreference !== account.deliveryPreference) data.deliveryPreference = f.deliveryPreference;
    if (f.status !== account.status) data.status = f.status;
    await call('/billing/accounts/update-account', { method: 'Update', action: 'Update Account', apiVersion: 'v2', data: { accountNumber: account.accountNumber, ...data } });
    notifyDone(`Account ${account.accountNumber} saved.`);
    await queryClient.invalidateQueries({ queryKey: ['account', account.accountID] });
  };
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await (account ? change(account) : make());
      onDone();
    });
  };
  return (
    <Card withBorder>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {!account && <TextInput label="Account number" required value={f.accountNumber} onChange={(e) => setF({ ...f, accountNumber: e.currentTarget.value })} error={errors.accountNumber} />}
          <TextInput label="Name" required value={f.name} onChange={(e) => setF({ ...f, name: e.currentTarget.value })} error={errors.name} />
          <TextInput label="E-mail" value={f.email} onChange={(e) => setF({ ...f, email: e.currentTarget.value })} error={errors.email} />
          <TextInput label="Phone" value={f.phone} onChange={(e) => setF({ ...f, phone: e.currentTarget.value })} error={errors.phone} />
          <Textarea label="Address" autosize minRows={2} value={f.address} onChange={(e) => setF({ ...f, address: e.currentTarget.value })} error={errors.address} />
          <Select label="Bills reach it by" data={DELIVERY} value={f.deliveryPreference} onChange={(v) => v && setF({ ...f, deliveryPreference: v as Delivery })} allowDeselect={false} error={errors.deliveryPreference} />
          {account && <Select label="Status" data={['active', 'closed']} value={f.status} onChange={(v) => v && setF({ ...f, status: v as 'active' | 'closed' })} allowDeselect={false} error={errors.status} />}
        </SimpleGrid>
        <SubmitOrCancel label={account ? 'Save the account' : 'Make the account'} busy={busy} onCancel={onDone} />
      </form>
    </Card>
  );
}
