import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { AppError, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { batchIdsByCode } from '../batches/store.ts';
import { effectiveReadings, insertReadings } from '../readings/store.ts';
import { checkBatch, checkDocuments, checkInputs, checkTemplate, jsonAccess, jsonDocuments, raiseIssues, type Issue } from './check.ts';
import { changeReachesTerms, dateOf, latestReadingDate, lockOrNotFound } from './changeSubscription.ts';
import { addDays, formatDate } from '../calendar/calendar.ts';
import { loadTemplate } from '../templates/context.ts';
import { carryDeposits } from '../deposits/deposits.ts';
import { documentsOf, insertEvent, insertSubscription, recordDocuments, setSubscriptionState } from './store.ts';

export type MoveInput = {
  subscriptionID: number;
  date: string;
  serviceCode?: string;
  batchCode?: string;
  connectionInputs?: Record<string, unknown>;
  unmeteredInputs?: Record<string, unknown>;
  documents?: { name: string; reference: string; date: string }[];
};

/**
 * Moves a subscription to another template and/or batch from a date. The bill run reads
 * one template and one batch per subscription row, so the move ends this row the day
 * before (status terminated) and starts a new one on the date, pointing back at it. The
 * last reading of each meter the new template also has is carried over, so the new
 * subscription's first bill has a reading to start from. Answers the new id.
 */
export async function moveSubscription(db: pg.Pool, caller: Caller, d: MoveInput): Promise<string> {
  const date = dateOf(d.date, 'data.date');
  return inTransaction(db, async (tx) => {
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status === 'terminated') {
      throw new AppError('INVALID_STATE', `Subscription ${s.subscription_id} is terminated and cannot be moved.`, [
        { path: 'data.subscriptionID', message: 'is terminated' },
      ]);
    }
    if (date <= s.start_date) throw validationFailed([{ path: 'data.date', message: `must be after the subscription's startDate ${formatDate(s.start_date)}` }]);
    if (s.end_date !== null && date > s.end_date) throw validationFailed([{ path: 'data.date', message: `must not be after the subscription's endDate ${formatDate(s.end_date)}` }]);
    const serviceCode = d.serviceCode ?? s.service_code;
    const batchCode = d.batchCode ?? s.batch_code;
    if (serviceCode === s.service_code && batchCode === s.batch_code) {
      throw validationFailed([{ path: 'data', message: 'give a serviceCode or a batchCode other than the subscription has' }]);
    }
    const last = await latestReadingDate(tx, s.subscription_id);
    if (last !== undefined && last >= date) {
      throw validationFailed([{ path: 'data.date', message: `must be after the subscription's last reading (${formatDate(last)})` }]);
    }
    // The old row ends the day before: the days from `date` are billed elsewhere.
    await changeReachesTerms(tx, s, date, caller.email, { path: 'data.date', what: `A move from ${formatDate(date)}` });
    const template = await loadTemplate(tx, caller.appCode, serviceCode);
    const issues: Issue[] = [];
    const t = checkTemplate(serviceCode, 'data.serviceCode', new Map(template ? [[serviceCode, template]] : []), issues);
    const batchId = t ? checkBatch(batchCode, 'data.batchCode', t, await batchIdsByCode(tx, caller.appCode, [batchCode]), issues) : null;
    const next = { connectionInputs: d.connectionInputs ?? s.connection_inputs, unmeteredInputs: d.unmeteredInputs ?? s.unmetered_inputs };
    const inputs = t ? checkInputs(t, jsonAccess(next, 'data'), issues) : null;
    // The documents on record go with the subscription; the new template may require more.
    const carried = await documentsOf(tx, s.subscription_id);
    const documents = t ? checkDocuments(t, jsonDocuments(d.documents, 'data.documents'), 'data.documents', issues, carried) : null;
    raiseIssues(issues, 'The move is not valid.');
    if (!t || !batchId || !inputs || !documents) throw new AppError('INTERNAL', 'move check answered nothing without an issue');
    // ... and billed from `date` by the terms of the new place, which do not have it yet.
    const arriving = { subscription_id: s.subscription_id, service_id: t.serviceId, batch_id: batchId, account_id: s.account_id };
    await changeReachesTerms(tx, arriving, date, caller.email, { path: 'data.date', what: `A move from ${formatDate(date)}`, offRoster: true });

    await setSubscriptionState(tx, s.subscription_id, 'terminated', addDays(date, -1), caller.email);
    const newId = await insertSubscription(
      tx,
      caller.appCode,
      {
        accountId: s.account_id,
        serviceId: t.serviceId,
        batchId,
        connection: inputs.connection,
        unmetered: inputs.unmetered,
        startDate: date,
        endDate: s.end_date,
        status: s.status,
        movedFrom: s.subscription_id,
      },
      caller.email,
    );
    const given = new Set(documents.map((x) => x.name));
    await recordDocuments(tx, caller.appCode, newId, [...carried.filter((c) => !given.has(c.name)), ...documents], caller.email);
    const meters = new Set(t.meteredInputs.map((m) => m.code));
    const latest = new Map<string, { reading_id: string; reading_date: string; value: string; kind: string }>();
    for (const r of await effectiveReadings(tx, [s.subscription_id])) if (meters.has(r.input_code)) latest.set(r.input_code, r);
    await insertReadings(
      tx,
      caller.appCode,
      [...latest.entries()].map(([code, r]) => ({
        subscriptionId: newId,
        inputCode: code,
        date: r.reading_date,
        value: r.value,
        // An estimate stays one: copied as actual, it refused the actual reading below it.
        kind: r.kind,
        source: 'move',
        note: `carried over from reading ${r.reading_id} of subscription ${s.subscription_id}`,
      })),
      caller.email,
    );
    await carryDeposits(tx, caller.appCode, s.subscription_id, newId, caller.email);
    const to = { subscriptionID: Number(newId), serviceCode, batchCode };
    await insertEvent(tx, caller.appCode, s.subscription_id, 'moved_out', date, { to }, caller.email);
    const from = { subscriptionID: Number(s.subscription_id), serviceCode: s.service_code, batchCode: s.batch_code };
    await insertEvent(tx, caller.appCode, newId, 'moved_in', date, { from }, caller.email);
    // The new subscription is suspended as the old one was: its history says so from
    // its first day, so the bill run (which reads suspensions from these events) does
    // not bill it until it is resumed.
    if (s.status === 'suspended') await insertEvent(tx, caller.appCode, newId, 'suspended', date, { reason: 'moved while suspended', from }, caller.email);
    return newId;
  });
}
