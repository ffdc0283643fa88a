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
    const id = await insertSubscription(
      tx,
      caller.appCode,
      { accountId, serviceId: s.template.serviceId, batchId: s.batchId, connection: s.connection, unmetered: s.unmetered, startDate: s.startDate, endDate: s.endDate },
      caller.email,
    );
    await insertReadings(
      tx,
      caller.appCode,
      s.readings.map((r) => ({ subscriptionId: id, inputCode: r.inputCode, date: s.readingDate, value: r.value, kind: 'actual', source: 'opening', note: null })),
      caller.email,
    );
    await recordDocuments(tx, caller.appCode, id, s.documents, caller.email);
    await chargeDeposits(tx, caller.appCode, [id], caller.email);
    return id;
  });
}
