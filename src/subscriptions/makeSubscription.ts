import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError, invalidState, notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { batchIdsByCode } from '../batches/store.ts';
import { insertReadings } from '../readings/store.ts';
import { checkSubscription, jsonAccess, raiseIssues, type Issue } from './check.ts';
import { loadTemplate } from '../templates/context.ts';
import { insertSubscription, recordDocuments } from './store.ts';
import { chargeDeposits } from '../deposits/deposits.ts';
import { changeReachesTerms } from './changeSubscription.ts';
import { appToday, formatDate } from '../calendar/calendar.ts';
import { futureReading } from '../readings/write.ts';

export type SubscriptionInput = {
  accountNumber: string;
  serviceCode: string;
  batchCode: string;
  startDate: string;
  endDate?: string | null;
  connectionInputs?: Record<string, unknown>;
  unmeteredInputs?: Record<string, unknown>;
  openingReadings?: Record<string, unknown>;
  readingDate?: string;
  documents?: { name: string; reference: string; date: string }[];
};

/** The account a new subscription is for: it must exist in the app and be open. */
export async function openAccount(db: Queryable, appCode: number, accountNumber: string, path: string): Promise<string> {
  // Closing the account (FOR UPDATE) waits, so it never closes under a new subscription.
  // FOR NO KEY UPDATE, not FOR SHARE: a security deposit charged in the same transaction
  // updates the account's balance (the ledger trigger), and two transactions both holding
  // FOR SHARE and both updating would deadlock; one new subscription per account at a time.
  const r = await db.query<{ account_id: string; status: string }>(
    'SELECT account_id, status FROM account WHERE app_code = $1 AND account_number = $2 FOR NO KEY UPDATE',
    [appCode, accountNumber],
  );
  const a = r.rows[0];
  if (!a) throw notFound('account', path);
  if (a.status !== 'active') throw invalidState(`Account ${accountNumber} is closed and takes no new subscriptions.`, path);
  return a.account_id;
}

/** Subscribes an account to a template in one of its batches, with its opening readings. */
export async function makeSubscription(db: pg.Pool, caller: Caller, data: SubscriptionInput): Promise<string> {
  return inTransaction(db, async (tx) => {
    const accountId = await openAccount(tx, caller.appCode, data.accountNumber, 'data.accountNumber');
    const template = await loadTemplate(tx, caller.appCode, data.serviceCode);
    const templates = new Map(template ? [[template.serviceCode, template]] : []);
    const batches = await batchIdsByCode(tx, caller.appCode, [data.batchCode]);
    const issues: Issue[] = [];
    const s = checkSubscription(jsonAccess(data as Record<string, unknown>, 'data'), templates, batches, issues);
    raiseIssues(issues);
    if (!s) throw new AppError('INTERNAL', 'subscription check answered nothing without an issue');
    // Opening readings are readings: none dated after today (a fuzzer's was dated 31/12/9999).
    const today = await appToday(tx, caller.appCode);
    if (s.readings.length > 0 && s.readingDate > today) raiseIssues([{ path: data.readingDate === undefined ? 'data.startDate' : 'data.readingDate', message: futureReading(today) }]);
    const id = await insertSubscription(
      tx,
      caller.appCode,
      { accountId, serviceId: s.template.serviceId, batchId: s.batchId, connection: s.connection, unmetered: s.unmetered, startDate: s.startDate, endDate: s.endDate },
      caller.email,
    );
    // A start inside a term approved or billed already: its days there would be billed by no
    // term, so it is refused as a resumption into such a term is (an attacker's finding). A
    // start before a term's first day is history (a customer billed elsewhere until then), and
    // an import takes its dates as they are (docs/accounts.md).
    await changeReachesTerms(tx, { subscription_id: id, service_id: s.template.serviceId, batch_id: s.batchId, account_id: accountId }, s.startDate, caller.email, {
      path: 'data.startDate',
      what: `A subscription from ${formatDate(s.startDate)}`,
      offRoster: true,
      inside: true,
    });
    await insertReadings(
      tx,
      caller.appCode,
      s.readings.map((r) => ({ subscriptionId: id, inputCode: r.inputCode, date: s.readingDate, value: r.value, kind: 'actual', source: 'opening', note: null })),
      caller.email,
    );
    await recordDocuments(tx, caller.appCode, id, s.documents, caller.email);
    await chargeDeposits(tx, caller.appCode, [{ subscriptionId: id, accountId, serviceId: s.template.serviceId }], caller.email);
    return id;
  });
}
