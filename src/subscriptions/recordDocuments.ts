import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import { appToday } from '../calendar/calendar.ts';
import { invalidState } from '../errors.ts';
import { checkGivenDocuments, jsonDocuments, raiseIssues, type Issue } from './check.ts';
import { lockOrNotFound } from './changeSubscription.ts';
import { documentsOf, insertEvent, recordDocuments } from './store.ts';

/**
 * Records documents on a subscription after it was made (a renewed ID, a contract signed
 * later): one recorded again replaces its reference and date, and the history keeps
 * what it replaced. Only documents are checked here: the template's requiredDocs are a
 * condition of connecting, checked when a subscription is made or moved.
 */
export async function recordSubscriptionDocuments(
  db: pg.Pool,
  caller: Caller,
  d: { subscriptionID: number; documents: { name: string; reference: string; date: string }[] },
): Promise<void> {
  const issues: Issue[] = [];
  const documents = checkGivenDocuments(jsonDocuments(d.documents, 'data.documents'), issues);
  raiseIssues(issues, 'The documents are not valid.');
  await inTransaction(db, async (tx) => {
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status === 'terminated') throw invalidState(`Subscription ${s.subscription_id} is terminated; documents are recorded on a live subscription.`, 'data.subscriptionID');
    const before = new Map((await documentsOf(tx, s.subscription_id)).map((x) => [x.name, x]));
    await recordDocuments(tx, caller.appCode, s.subscription_id, documents, caller.email);
    const detail = documents.map((x) => {
      const old = before.get(x.name);
      return { ...x, ...(old ? { replaced: { reference: old.reference, date: old.date } } : {}) };
    });
    await insertEvent(tx, caller.appCode, s.subscription_id, 'documents_recorded', await appToday(tx, caller.appCode), { documents: detail }, caller.email);
  });
}
