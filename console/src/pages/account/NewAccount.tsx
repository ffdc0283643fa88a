// One account made from the Accounts page (make-account): a customer who joins between
// imports was API-only (an officer's walk). Opens the new account's page, where its first
// subscription is added.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Card, SimpleGrid, TextInput, Title } from '@mantine/core';
import { call } from '../../api/client.ts';
import { notifyDone, useSave } from '../../components/feedback.tsx';
import { ContactFields, type Delivery } from './EditAccount.tsx';
import { FormActions } from '../../components/FormActions.tsx';

export function NewAccount({ onCancel }: { onCancel: () => void }) {
  const navigate = useNavigate();
  const [f, setF] = useState({ accountNumber: '', name: '', email: '', phone: '', address: '', deliveryPreference: 'print' as Delivery });
  const [chosen, setChosen] = useState(false);
  const { errors, busy, run } = useSave((p) => p in f);
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const { headers } = await call('/billing/accounts/make-account', {
        method: 'Create',
        action: 'Create Account',
        apiVersion: 'v2',
        data: {
          accountNumber: f.accountNumber.trim(),
          name: f.name.trim(),
          ...(f.email.trim() ? { email: f.email.trim() } : {}),
          ...(f.phone.trim() ? { phone: f.phone.trim() } : {}),
          ...(f.address.trim() ? { address: f.address.trim() } : {}),
          deliveryPreference: f.deliveryPreference,
        },
      });
      notifyDone(`Account ${f.accountNumber.trim()} made.`);
      const id = headers.get('x-billrun-account-id');
      if (id) void navigate(`/accounts/${id}`);
    });
  };
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        New account
      </Title>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          <TextInput label="Account number" required value={f.accountNumber} onChange={(e) => setF({ ...f, accountNumber: e.currentTarget.value })} error={errors.accountNumber} />
          <ContactFields
            f={f}
            set={(c) => {
              // Bills go by e-mail once one is given, until the officer chooses otherwise: every
              // account made with an e-mail went to print (an officer's walk).
              if (c.deliveryPreference !== undefined) setChosen(true);
              const auto = !chosen && c.email !== undefined ? { deliveryPreference: (c.email.trim() ? 'email' : 'print') as Delivery } : {};
              setF({ ...f, ...c, ...auto });
            }}
            errors={errors}
          />
        </SimpleGrid>
        <FormActions submit="Make the account" busy={busy} onCancel={onCancel} />
      </form>
    </Card>
  );
}
