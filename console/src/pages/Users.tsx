// The app's users, kept by an admin (get-users, make-user, update-user, reset-password): a new
// tenant's officer had to leave the console for the command line to add a biller and a
// viewer, and had no way to reset a forgotten password.
import { atText } from '../api/dates.ts';
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Group, PasswordInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { call, read, type Data } from '../api/client.ts';
import { DataTable, Pager, type Column } from '../components/DataTable.tsx';
import { notifyDone, notifyError, StatusBadge, useSave } from '../components/feedback.tsx';
import { ConfirmButton } from '../components/Confirm.tsx';
import { useSession } from '../session.tsx';

type User = Data<'/admin/get-users'>['users'][number];
type Role = 'admin' | 'biller' | 'viewer';
const ROLES: { value: Role; label: string }[] = [
  { value: 'viewer', label: 'viewer: reads everything, changes nothing' },
  { value: 'biller', label: 'biller: runs the billing, records payments' },
  { value: 'admin', label: 'admin: also templates, settings and users' },
];
const PAGE = 50;

function NewUser() {
  const queryClient = useQueryClient();
  const [f, setF] = useState({ email: '', password: '', role: 'biller' as Role });
  const { errors, busy, run } = useSave((p) => p in f);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await call('/admin/make-user', { method: 'Create', action: 'Create User', apiVersion: 'v2', data: { email: f.email.trim(), password: f.password, role: f.role } });
      notifyDone(`${f.email.trim()} can sign in as ${f.role}.`);
      setF({ email: '', password: '', role: f.role });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    });
  };
  return (
    <Card withBorder>
      <form onSubmit={submit}>
        <Group align="flex-start">
          <TextInput label="E-mail" required value={f.email} onChange={(e) => setF({ ...f, email: e.currentTarget.value })} error={errors.email} w={260} />
          <PasswordInput label="Password" description="at least 8 characters; tell it to the user" required value={f.password} onChange={(e) => setF({ ...f, password: e.currentTarget.value })} error={errors.password} w={240} />
          <Select label="Role" data={ROLES} value={f.role} onChange={(v) => v && setF({ ...f, role: v as Role })} allowDeselect={false} w={320} error={errors.role} />
          <Button type="submit" mt={25} loading={busy}>
            Add the user
          </Button>
        </Group>
      </form>
    </Card>
  );
}

/** The actions on one user: its role, disabling it, a new password. */
function UserActions({ user, self }: { user: User; self: boolean }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [resetting, setResetting] = useState(false);
  const update = async (data: { role?: Role; disabled?: boolean }, done: string) => {
    try {
      await call('/admin/update-user', { method: 'Update', action: 'Update User', apiVersion: 'v2', data: { userID: user.userID, ...data } });
      notifyDone(done);
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    } catch (err) {
      notifyError(err);
    }
  };
  const reset = async () => {
    try {
      await call('/admin/reset-password', { method: 'Update', action: 'Reset Password', apiVersion: 'v2', data: { userID: user.userID, password } });
      notifyDone(`${user.email}'s password is reset; their other sessions have ended.`);
      setPassword('');
      setResetting(false);
    } catch (err) {
      notifyError(err);
    }
  };
  return (
    <Group gap={4} wrap="nowrap">
      <Select
        size="xs"
        w={100}
        aria-label={`Role of ${user.email}`}
        data={ROLES.map((r) => r.value)}
        value={user.role}
        allowDeselect={false}
        onChange={(v) => v && v !== user.role && void update({ role: v as Role }, `${user.email} is now ${v}.`)}
      />
      {user.disabled ? (
        <Button size="compact-xs" variant="default" onClick={() => void update({ disabled: false }, `${user.email} can sign in again.`)}>
          Enable
        </Button>
      ) : (
        !self && (
          <ConfirmButton size="compact-xs" variant="default" color="red" question={`Disable ${user.email}? Their sessions end at once.`} onConfirm={() => update({ disabled: true }, `${user.email} is disabled.`)}>
            Disable
          </ConfirmButton>
        )
      )}
      {resetting ? (
        <>
          <PasswordInput size="xs" w={160} aria-label={`New password for ${user.email}`} placeholder="new password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <Button size="compact-xs" onClick={() => void reset()} disabled={password.length < 8}>
            Set
          </Button>
        </>
      ) : (
        <Button size="compact-xs" variant="default" onClick={() => setResetting(true)}>
          Reset password
        </Button>
      )}
    </Group>
  );
}

export function Users() {
  const { can, session } = useSession();
  const [offset, setOffset] = useState(0);
  const q = useQuery({
    queryKey: ['users', offset],
    enabled: can('admin'),
    queryFn: () => read('/admin/get-users', { method: 'Retrieve', action: 'Retrieve Users', apiVersion: 'v2', data: { limit: PAGE, offset } }),
  });
  if (!can('admin')) return <Alert color="gray">The app's users are kept by an admin.</Alert>;
  const columns: Column<User>[] = [
    { header: 'E-mail', accessorKey: 'email' },
    { header: 'Role', accessorKey: 'role' },
    { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.disabled ? 'disabled' : 'active'} /> },
    { header: 'Since', cell: ({ row }) => atText(row.original.createdAt) },
    { header: '', id: 'actions', cell: ({ row }) => <UserActions user={row.original} self={row.original.email === session?.email} /> },
  ];
  return (
    <Stack>
      <Title order={2}>Users</Title>
      <Text size="sm" c="dimmed">
        Everyone who signs in to this app. An e-mail signs in to one app only. The last admin cannot be disabled or given another role.
      </Text>
      <NewUser />
      <DataTable columns={columns} data={q.data?.users} loading={q.isLoading} empty="No user." testId="users-table" />
      <Pager paging={q.data?.paging} onOffset={setOffset} />
    </Stack>
  );
}
