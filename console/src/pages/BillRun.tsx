// One bill run as a guided flow: the six steps of docs/bill-run.md in order, each
// panel with what it does, what it needs and its button (none for a viewer).
import { atText } from '../api/dates.ts';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Button, Group, Loader, Paper, Space, Stack, Stepper, Text, Title } from '@mantine/core';
import { useTerm } from '../api/queries.ts';
import { StatusBadge, notifyDone, notifyError } from '../components/feedback.tsx';
import { ConfirmButton } from '../components/Confirm.tsx';
import { useSession } from '../session.tsx';
import { ALLOWED, RUNNING, stepOf, termSteps, type Term, type Validation } from './billrun/actions.ts';
import { ReadingsPanel } from './billrun/ReadingsPanel.tsx';
import { Totals, ValidatePanel } from './billrun/ValidatePanel.tsx';
import { ProcessPanel } from './billrun/ProcessPanel.tsx';
import { DocumentsPanel } from './billrun/DocumentsPanel.tsx';

type Simple = 'load' | 'approve' | 'retry' | 'cancel' | 'reverse' | 'post';

function stepRunner(queryClient: QueryClient, term: Term) {
  return async (name: Simple, done: string) => {
    try {
      await termSteps[name](term.termID);
      notifyDone(done);
    } catch (err) {
      notifyError(err);
    } finally {
      await queryClient.invalidateQueries({ queryKey: ['term', term.termID] });
      await queryClient.invalidateQueries({ queryKey: ['terms'] });
    }
  };
}

function Header({ term, canWrite }: { term: Term; canWrite: boolean }) {
  const run = stepRunner(useQueryClient(), term);
  return (
    <Paper withBorder p="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Group gap="xs">
            <Title order={3}>{term.label}</Title>
            <StatusBadge status={term.status} />
          </Group>
          <Text size="sm" c="dimmed">
            Term {term.termID} · template {term.serviceCode} v{term.serviceVersion} · batch {term.batchCode} · period {term.billingPeriodID} · {term.startDate} to{' '}
            {term.endDate} · due {term.dueDate}
          </Text>
        </Stack>
        {canWrite && ALLOWED.cancel.includes(term.status) && (
          <ConfirmButton color="red" variant="light" question="Cancel this term? Its period and dates become free for a new term." onConfirm={() => run('cancel', 'Term cancelled.')}>
            Cancel term
          </ConfirmButton>
        )}
      </Group>
      <Space h="sm" />
      <Totals
        items={[
          ['Subscriptions', term.counts.subscriptions],
          ['With readings', term.counts.readings],
          // Found by the last validation: after the run, what is left to fix is the failures (a fixed and retried one stayed counted here, unexplained).
          [stepOf(term.status) >= 6 ? 'Exceptions at validation' : 'Exceptions', term.counts.exceptions],
          ['Bills', term.counts.bills],
          ['Failures', term.counts.failures],
          ['Total', term.totals.total],
        ]}
      />
      {/* Corrections after posting: the run's figures stay the run's; these are the bills in force (an officer's walk found the page and its bills list disagreeing). */}
      {term.corrections.cancelled + term.corrections.rebills > 0 && (
        <>
          <Space h="sm" />
          <Totals
            items={[
              ['Cancelled since', term.corrections.cancelled],
              ['Rebills', term.corrections.rebills],
              ['Bills in force', term.counts.bills - term.corrections.cancelled + term.corrections.rebills],
              ['Total in force', term.corrections.totals.total],
            ]}
          />
        </>
      )}
    </Paper>
  );
}

/** The link to the term's bills, counting what the list shows: the run's bills and the rebills made since. */
function BillsLink({ term }: { term: Term }) {
  const n = term.counts.bills + term.corrections.rebills;
  return (
    <Anchor inherit component={Link} to={`/bills?termID=${term.termID}`}>
      See the {n.toLocaleString()} {n === 1 ? 'bill' : 'bills'} of this term
    </Anchor>
  );
}

/** Subscriptions the run did not bill: said in step 7 and once the term is posted, with the way to their reasons (step 6). */
function NotBilled({ term, onShow, posted }: { term: Term; onShow: () => void; posted: boolean }) {
  if (term.counts.failures === 0) return null;
  return (
    <Alert color="orange" title={`${term.counts.failures.toLocaleString()} subscription(s) not billed`}>
      <Group justify="space-between">
        <Text size="sm">
          {posted
            ? 'The posted bills did not include them. Their reasons are in step 6: fix their readings and retry them; their bills are posted when made.'
            : 'Their reasons are listed in step 6: fix their readings and retry them before posting, or post the others now and retry later.'}
        </Text>
        <Button size="xs" variant="light" color="orange" onClick={onShow}>
          See the failures
        </Button>
      </Group>
    </Alert>
  );
}

export function BillRun() {
  const termID = Number(useParams().termID);
  const { can } = useSession();
  const queryClient = useQueryClient();
  const canWrite = can('biller');
  // Every second while the run's jobs go: the progress must never be more than 2 s old.
  const query = useTerm(termID, (status) => (status && RUNNING.includes(status) ? 1000 : false));
  const term = query.data;
  const [active, setActive] = useState<number | null>(null);
  const [validation, setValidation] = useState<Validation | null>(null);
  const status = term?.status;
  // The flow follows the term: when its status moves, show the step it now waits for;
  // except after validation, whose findings the officer reads before approving.
  useEffect(() => setActive(status === 'Validated' ? 3 : null), [status]);
  if (query.isLoading) return <Loader />;
  if (!term) return <Alert color="red">{query.error instanceof Error ? query.error.message : 'No such term.'}</Alert>;
  const run = stepRunner(queryClient, term);
  const current = stepOf(term.status);
  const shown = active ?? current;
  return (
    <Stack>
      <Anchor component={Link} to="/terms" size="sm">
        ← All bill runs
      </Anchor>
      <Header term={term} canWrite={canWrite} />
      {term.status === 'Cancelled' && <Alert color="gray">This term was cancelled. Its period can be billed by a new term.</Alert>}
      {term.status !== 'Cancelled' && (
        <Stepper active={shown} onStepClick={setActive} size="sm" allowNextStepsSelect>
          <Stepper.Step label="1. Term" description="made" completedIcon={undefined} />
          <Stepper.Step label="2. Load" description="subscriptions">
            <Stack>
              <Text size="sm">
                Takes the batch's subscriptions to this template that are connected on at least one day of the term: each gets one bill. Load again to pick up new
                connections.
              </Text>
              {canWrite && (
                <Group>
                  <Button disabled={!ALLOWED.load.includes(term.status)} onClick={() => void run('load', 'Subscriptions loaded.')}>
                    Load subscriptions
                  </Button>
                  {term.counts.subscriptions > 0 && <Text size="sm">{term.counts.subscriptions.toLocaleString()} on the roster.</Text>}
                </Group>
              )}
            </Stack>
          </Stepper.Step>
          <Stepper.Step label="3. Readings" description="upload">
            <Stack>
              <ReadingsPanel term={term} canWrite={canWrite} />
              <Group>
                <Button variant="light" onClick={() => setActive(3)}>
                  Next: validate →
                </Button>
              </Group>
            </Stack>
          </Stepper.Step>
          <Stepper.Step label="4. Validate" description="exceptions, preview">
            <ValidatePanel term={term} canWrite={canWrite} result={validation} setResult={setValidation} onNext={() => setActive(4)} />
          </Stepper.Step>
          <Stepper.Step label="5. Approve" description="freeze">
            <Stack>
              <Text size="sm">
                Freezes the roster and the readings. Exceptions left are accepted: those subscriptions fail in the run, each with its reason, and the others are billed.
              </Text>
              {canWrite && (
                <Group>
                  <Button disabled={!ALLOWED.approve.includes(term.status)} onClick={() => void run('approve', 'Term approved.')}>
                    Approve
                  </Button>
                  {!ALLOWED.approve.includes(term.status) && <Text size="sm" c="dimmed">Approval needs a Validated term; it is {term.status}.</Text>}
                </Group>
              )}
            </Stack>
          </Stepper.Step>
          <Stepper.Step label="6. Process" description="run, progress" loading={RUNNING.includes(term.status)}>
            <ProcessPanel term={term} canWrite={canWrite} />
          </Stepper.Step>
          <Stepper.Step label="7. Post" description="bills to the ledger">
            <Stack>
              <Text size="sm">
                Posting makes the draft bills final and adds each to its account's balance. Before posting, reversing withdraws the bills (their numbers stay used) and takes
                the term back to Loaded, to fix readings and bill again.
              </Text>
              <NotBilled term={term} onShow={() => setActive(5)} posted={term.status === 'Posted'} />
              {term.counts.bills > 0 && <BillsLink term={term} />}
              {canWrite && (
                <Group>
                  <ConfirmButton disabled={!ALLOWED.post.includes(term.status)} question={`Post the ${term.counts.bills} bills to the accounts' ledgers?`} onConfirm={() => run('post', 'Bills posted.')}>
                    Post bills
                  </ConfirmButton>
                  <ConfirmButton
                    color="orange"
                    variant="light"
                    disabled={!ALLOWED.reverse.includes(term.status)}
                    question="Withdraw this term's bills and take it back to Loaded?"
                    onConfirm={() => run('reverse', 'Bills withdrawn; the term is Loaded again.')}
                  >
                    Reverse the run
                  </ConfirmButton>
                </Group>
              )}
              {term.status === 'Posted' && <Alert color="green">Posted {atText(term.postedAt)}.</Alert>}
            </Stack>
          </Stepper.Step>
          <Stepper.Completed>
            <Stack>
              <Alert color="green">This bill run is complete: its bills are posted.</Alert>
              {/* Posted, step 7 is no longer shown: its failures and its link to the bills are said here too (officers' walks lost both). */}
              <NotBilled term={term} onShow={() => setActive(5)} posted />
              <BillsLink term={term} />
            </Stack>
          </Stepper.Completed>
        </Stepper>
      )}
      {term.counts.bills > 0 && (term.status === 'Processed' || term.status === 'Posted') && <DocumentsPanel termID={term.termID} canWrite={canWrite} />}
    </Stack>
  );
}
