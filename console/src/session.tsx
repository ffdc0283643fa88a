// Who is signed in, their role and their app's settings, for every page. The API stays
// the authority: hiding a write action from a viewer is courtesy, not security.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { loadSession, login, logout, read, saveSession, setUnauthenticatedHandler, type Role, type Session } from './api/client.ts';

const RANK: Record<Role, number> = { viewer: 0, biller: 1, admin: 2 };

export type AppSettings = { name: string; timeZone: string; currency: string; minorUnits: number; today: string };

type SessionContext = {
  session: Session | null;
  app: AppSettings | null;
  signIn: (email: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Whether the signed-in role may do what needs `role` (admin: templates and batches; biller: the billing). */
  can: (role: Role) => boolean;
};

const Ctx = createContext<SessionContext | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const queryClient = useQueryClient();
  const end = useCallback(() => {
    saveSession(null);
    setSession(null);
    queryClient.clear();
  }, [queryClient]);
  useEffect(() => setUnauthenticatedHandler(end), [end]);
  // Asked again when the page comes back into view: a role an admin changed shows then, as on a reload.
  const appQuery = useQuery({
    queryKey: ['session', session?.token],
    enabled: session !== null,
    staleTime: 60_000,
    refetchOnWindowFocus: true,
    queryFn: () => read('/auth/get-session', { method: 'Retrieve', action: 'Retrieve Session', apiVersion: 'v2' }),
  });
  // The role is the API's, not the one stored at sign-in: a biller made a viewer kept the
  // biller's buttons until signing in again (an attacker's finding; the API refused them).
  const role = appQuery.data?.user.role;
  useEffect(() => {
    if (session !== null && role !== undefined && role !== session.role) {
      const s = { ...session, role };
      saveSession(s);
      setSession(s);
    }
  }, [session, role]);
  const value = useMemo<SessionContext>(
    () => ({
      session,
      app: appQuery.data?.app ?? null,
      signIn: async (email, password) => {
        const s = await login(email, password);
        saveSession(s);
        setSession(s);
      },
      signOut: async () => {
        await logout();
        end();
      },
      can: (role) => session !== null && RANK[session.role] >= RANK[role],
    }),
    [session, appQuery.data, end],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useSession(): SessionContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('useSession outside SessionProvider');
  return c;
}
