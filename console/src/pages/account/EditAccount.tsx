// An account's own details changed from its page (update-account): its e-mail and how its
// bills reach it above all. A new tenant's accounts were imported without a delivery
// preference, so every bill went to print, and nothing in the console could change it.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Card, Select, SimpleGrid, Textarea, TextInput } from '@mantine/core';
import { call, type Data } from '../../api/client.ts';
import { notifyDone, useSave } from '../../components/feedback.tsx';
import { FormActions } from '../../components/FormActions.tsx';

type Account = Data<'/billing/accounts/get-account'>['account'];
export type Delivery = 'email' | 'print' | 'both' | 'none';

const DELIVERY: { value: Delivery; label: string }[] = [
  { value: 'print', label: 'print: on paper' },
  { value: 'email', label: 'e-mail' },
  { value: 'both', label: 'both: e-mail and paper' },
  { value: 'none', label: 'none: not sent' },
];

/** How an account's bills reach it, in words ("Bills by both" said nothing, an officer's walk). */
export const DELIVERY_WORDS: Record<Delivery, string> = {
  print: 'Bills on paper',
  email: 'Bills by e-mail',
  both: 'Bills by e-mail and on paper',
  none: 'Bills not sent',
};

export type Contact = { name: string; email: string; phone: string; address: string; deliveryPreference: Delivery };

/** An account's name, how to reach it and how its bills go out: the fields a new account and a change share. */
export function ContactFields({ f, set, errors }: { f: Contact; set: (c: Partial<Contact>) => void; errors: Record<string, string> }) {
  return (
    <>
      <TextInput label="Name" required value={f.name} onChange={(e) => set({ name: e.currentTarget.value })} error={errors.name} />
      <TextInput label="E-mail" value={f.email} onChange={(e) => set({ email: e.currentTarget.value })} error={errors.email} />
      <TextInput label="Phone" value={f.phone} onChange={(e) => set({ phone: e.currentTarget.value })} error={errors.phone} />
      <Textarea label="Address" autosize minRows={2} value={f.address} onChange={(e) => set({ address: e.currentTarget.value })} error={errors.address} />
      <Select label="Bills reach it by" data={DELIVERY} value={f.deliveryPreference} onChange={(v) => v && set({ deliveryPreference: v as Delivery })} allowDeselect={false} error={errors.deliveryPreference} />
    </>
  );
}

export function EditAccount({ account, onDone }: { account: Account; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [f, setF] = useState({
    name: account.name,
    email: account.email ?? '',
    phone: account.phone ?? '',
    address: account.address ?? '',
    deliveryPreference: account.deliveryPreference as Delivery,
    status: account.status as 'active' | 'closed',
  });
  const { errors, busy, run } = useSave((p) => p in f);
  // Only what changed is sent; an emptied field is cleared (null).
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const data: Record<string, unknown> = {};
      if (f.name.trim() !== account.name) data.name = f.name.trim();
      for (const k of ['email', 'phone', 'address'] as const) if (text(f[k]) !== (account[k] ?? null)) data[k] = text(f[k]);
      if (f.deliveryPreference !== account.deliveryPreference) data.deliveryPreference = f.deliveryPreference;
      if (f.status !== account.status) data.status = f.status;
      await call('/billing/accounts/update-account', { method: 'Update', action: 'Update Account', apiVersion: 'v2', data: { accountNumber: account.accountNumber, ...data } });
      notifyDone(`Account ${account.accountNumber} saved.`);
      await queryClient.invalidateQueries({ queryKey: ['account', account.accountID] });
      onDone();
    });
  };
  return (
    <Card withBorder>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          <ContactFields f={f} set={(c) => setF({ ...f, ...c })} errors={errors} />
          <Select label="Status" data={['active', 'closed']} value={f.status} onChange={(v) => v && setF({ ...f, status: v as 'active' | 'closed' })} allowDeselect={false} error={errors.status} />
        </SimpleGrid>
        <FormActions submit="Save the account" busy={busy} onCancel={onDone} />
      </form>
    </Card>
  );
}
