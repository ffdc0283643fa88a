import { HashRouter, Navigate, NavLink as RouterLink, Outlet, Route, Routes, useLocation, useParams } from 'react-router';
import { AppShell, Badge, Burger, Button, Group, NavLink, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Fragment, useEffect, type ReactNode } from 'react';
import { useSession } from './session.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Terms } from './pages/Terms.tsx';
import { BillRun } from './pages/BillRun.tsx';
import { Bills } from './pages/Bills.tsx';
import { BillPage } from './pages/BillPage.tsx';
import { Templates } from './pages/Templates.tsx';
import { TemplatePage } from './pages/TemplatePage.tsx';
import { TemplateEdit } from './pages/TemplateEdit.tsx';
import { DocumentTemplatePage, DocumentTemplates } from './pages/DocumentTemplates.tsx';
import { Accounts } from './pages/Accounts.tsx';
import { AccountPage } from './pages/AccountPage.tsx';
import { Imports } from './pages/Imports.tsx';
import { Batches } from './pages/Batches.tsx';
import { Payments } from './pages/Payments.tsx';
import { Settings } from './pages/Settings.tsx';
import { Users } from './pages/Users.tsx';

const NAV = [
  { to: '/terms', label: 'Bill runs' },
  { to: '/bills', label: 'Bills' },
  { to: '/accounts', label: 'Accounts' },
  { to: '/imports', label: 'Imports' },
  { to: '/templates', label: 'Templates' },
  { to: '/document-templates', label: 'Invoice and e-mail' },
  { to: '/batches', label: 'Batches' },
  { to: '/payments', label: 'Payments and ageing' },
  { to: '/settings', label: 'Settings', admin: true },
  { to: '/users', label: 'Users', admin: true },
];

function Shell() {
  const { session, app, signOut, can } = useSession();
  const location = useLocation();
  // On a phone the menu folds away behind a burger (it took 210 of 390 pixels); a page
  // chosen from it closes it again.
  const [opened, { toggle, close }] = useDisclosure(false);
  useEffect(close, [location.pathname, close]);
  if (!session) return <Navigate to="/signin" replace state={{ from: location.pathname }} />;
  return (
    <AppShell header={{ height: 52 }} navbar={{ width: 210, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Title order={4}>billrun</Title>
            {app && (
              <Text size="sm" c="dimmed" visibleFrom="md">
                {app.name} · {app.currency} · times in {app.timeZone}
              </Text>
            )}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" visibleFrom="sm">
              {session.email}
            </Text>
            <Badge variant="outline" data-testid="role">
              {session.role}
            </Badge>
            <Button size="xs" variant="default" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <Stack gap={2} component="nav" aria-label="Main">
          {NAV.filter((n) => !('admin' in n) || can('admin')).map((n) => (
            <NavLink key={n.to} component={RouterLink} to={n.to} label={n.label} active={location.pathname.startsWith(n.to)} />
          ))}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

/**
 * A page of one record, mounted afresh for each record: React Router keeps the element when
 * only the address's id changes (a typed address, a bookmark, back and forward), and a page
 * kept its state: one account's edit form saved over the next account, and its readings
 * tab showed the other customer's meter (an officer's walk).
 */
function Keyed({ children }: { children: ReactNode }) {
  const params = useParams();
  const { pathname } = useLocation();
  return <Fragment key={`${pathname}|${JSON.stringify(params)}`}>{children}</Fragment>;
}

export function App() {
  return (
    <HashRouter>
      <Routes>
        <Route path="/signin" element={<SignIn />} />
        <Route element={<Shell />}>
          <Route path="/" element={<Navigate to="/terms" replace />} />
          <Route path="/terms" element={<Terms />} />
          <Route path="/terms/:termID" element={<Keyed>{<BillRun />}</Keyed>} />
          <Route path="/bills" element={<Bills />} />
          <Route path="/bills/:billID" element={<Keyed>{<BillPage />}</Keyed>} />
          <Route path="/templates" element={<Templates />} />
          <Route path="/templates/new" element={<Keyed>{<TemplateEdit />}</Keyed>} />
          <Route path="/templates/:code" element={<Keyed>{<TemplatePage />}</Keyed>} />
          <Route path="/templates/:code/edit" element={<Keyed>{<TemplateEdit />}</Keyed>} />
          <Route path="/document-templates" element={<DocumentTemplates />} />
          <Route path="/document-templates/new" element={<Keyed>{<DocumentTemplatePage />}</Keyed>} />
          <Route path="/document-templates/:templateID" element={<Keyed>{<DocumentTemplatePage />}</Keyed>} />
          <Route path="/accounts" element={<Accounts />} />
          <Route path="/accounts/:accountID" element={<Keyed>{<AccountPage />}</Keyed>} />
          <Route path="/imports" element={<Imports />} />
          <Route path="/batches" element={<Batches />} />
          <Route path="/payments" element={<Payments />} />
          <Route path="/settings" element={<Settings />} />
          <Route path="/users" element={<Users />} />
          <Route path="*" element={<Navigate to="/terms" replace />} />
        </Route>
      </Routes>
    </HashRouter>
  );
}
