import { useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { ApiError } from '../api/client.ts';
import { useSession } from '../session.tsx';

export function SignIn() {
  const { session, signIn } = useSession();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (session) return <Navigate to={(location.state as { from?: string } | null)?.from ?? '/terms'} replace />;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(email.trim(), password);
    } catch (err) {
      setError(err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? 'That e-mail and password do not match a user.' : err instanceof ApiError ? err.describe() : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Center h="100vh" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w={380}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={3}>Sign in to billrun</Title>
            <TextInput label="E-mail" type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
            <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
