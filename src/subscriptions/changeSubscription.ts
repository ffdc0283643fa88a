// Suspend, resume, terminate, and change inputs: each a checked move of one subscription,
// recorded in subscription_event with the date it takes effect.
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { AppError, conflict, invalidState, notFound, validationFailed } from '../errors.ts';
import { FROZEN_TERM_STATUSES } from '../templates/versions.ts';
import { markTariffDated } from '../billRun/termStore.ts';
import { canMove, moveTerm, type TermStatus } from '../billRun/termStates.ts';
import { sameLevels, type Levels } from '../billRun/levels.ts';
import type { Caller } from '../auth/roles.ts';
import { checkInputs, jsonAccess, raiseIssues, type Issue } from './check.ts';
import { addDays, formatDate, parseRecordDate, RECORD_DATE_MESSAGE } from '../calendar/calendar.ts';
import { CYCLE_MONTHS, type BillingCycleId } from '../calendar/cycles.ts';
import { comingPeriod } from '../rating/index.ts';
import { loadTemplates } from '../templates/context.ts';
import { insertEvent, lastEventDate, latestEventDate, lockSubscription, setInputs, setSubscriptionState, type LockedSubscription } from './store.ts';
import { effectiveSql } from '../readings/store.ts';
import { depositsOnTermination, lockFinalTerms } from '../deposits/deposits.ts';

export function dateOf(text: string, path: string): string {
  const d = parseRecordDate(text);
  if (d === null) throw validationFailed([{ path, message: RECORD_DATE_MESSAGE }]);
  return d;
}

export async function lockOrNotFound(db: Queryable, appCode: number, id: number): Promise<LockedSubscription> {
  const s = await lockSubscription(db, appCode, id);
  if (!s) throw notFound('subscription', 'data.subscriptionID');
  return s;
}

function withinDates(s: LockedSubscription, date: string, path: string): void {
  if (date < s.start_date) throw validationFailed([{ path, message: `must not be before the subscription's startDate ${formatDate(s.start_date)}` }]);
  if (s.end_date !== null && date > s.end_date) throw validationFailed([{ path, message: `must not be after the subscription's endDate ${formatDate(s.end_date)}` }]);
}

const notWhen = (s: LockedSubscription, verb: string, allowed: string) =>
  invalidState(`Subscription ${s.subscription_id} is ${s.status}; only ${allowed} subscription can be ${verb}.`, 'data.subscriptionID');

/** Stops billing from a date until resumed. */
export async function suspendSubscription(db: pg.Pool, caller: Caller, d: { subscriptionID: number; date: string; reason?: string }): Promise<void> {
  const date = dateOf(d.date, 'data.date');
  await inTransaction(db, async (tx) => {
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status !== 'active') throw notWhen(s, 'suspended', 'an active');
    withinDates(s, date, 'data.date');
    await changeReachesTerms(tx, s, date, caller.email, { path: 'data.date', what: `A suspension from ${formatDate(date)}` });
    await setSubscriptionState(tx, s.subscription_id, 'suspended', undefined, caller.email);
    await insertEvent(tx, caller.appCode, s.subscription_id, 'suspended', date, d.reason ? { reason: d.reason } : {}, caller.email);
  });
}

export async function resumeSubscription(db: pg.Pool, caller: Caller, d: { subscriptionID: number; date: string; reason?: string }): Promise<void> {
  const date = dateOf(d.date, 'data.date');
  await inTransaction(db, async (tx) => {
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status !== 'suspended') throw notWhen(s, 'resumed', 'a suspended');
    withinDates(s, date, 'data.date');
    const since = await lastEventDate(tx, s.subscription_id, 'suspended');
    if (since !== undefined && date < since) throw validationFailed([{ path: 'data.date', message: `must not be before the suspension of ${formatDate(since)}` }]);
    await changeReachesTerms(tx, s, date, caller.email, { path: 'data.date', what: `Resuming from ${formatDate(date)}`, offRoster: true });
    await setSubscriptionState(tx, s.subscription_id, 'active', undefined, caller.email);
    await insertEvent(tx, caller.appCode, s.subscription_id, 'resumed', date, d.reason ? { reason: d.reason } : {}, caller.email);
  });
}

/**
 * Ends a subscription: it is billed up to and including endDate, never after. Its security
 * deposits stay held for its final bill (the bill of the term holding endDate), whose
 * posting applies them; released now only when that bill is out already (deposits/).
 */
export async function terminateSubscription(db: pg.Pool, caller: Caller, d: { subscriptionID: number; endDate: string; reason?: string }): Promise<void> {
  const endDate = dateOf(d.endDate, 'data.endDate');
  await inTransaction(db, async (tx) => {
    // Before the subscription's lock, as capture-readings takes its term's, then the subscriptions'.
    await lockFinalTerms(tx, caller.appCode, d.subscriptionID, endDate);
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status === 'terminated') throw notWhen(s, 'terminated', 'an active or a suspended');
    if (endDate < s.start_date) throw validationFailed([{ path: 'data.endDate', message: `must not be before the subscription's startDate ${formatDate(s.start_date)}` }]);
    const later = await latestReadingDate(tx, s.subscription_id);
    if (later !== undefined && later > endDate)
      throw validationFailed([{ path: 'data.endDate', message: `the subscription has a reading on ${formatDate(later)}, after this date; correct or end later` }]);
    // Billed up to and including its end date: what changes is the days after the earlier
    // of the end it had and the new one (a later end adds the days between them).
    const changedFrom = addDays(s.end_date !== null && s.end_date < endDate ? s.end_date : endDate, 1);
    await changeReachesTerms(tx, s, changedFrom, caller.email, { path: 'data.endDate', what: `An end on ${formatDate(endDate)}` });
    await setSubscriptionState(tx, s.subscription_id, 'terminated', endDate, caller.email);
    await insertEvent(tx, caller.appCode, s.subscription_id, 'terminated', endDate, d.reason ? { reason: d.reason } : {}, caller.email);
    await depositsOnTermination(tx, caller.appCode, s.subscription_id, endDate, caller.email);
  });
}

/** Replaces the connection and/or unmetered inputs, checked against the subscription's template. */
export async function changeInputs(
  db: pg.Pool,
  caller: Caller,
  d: { subscriptionID: number; date: string; connectionInputs?: Record<string, unknown>; unmeteredInputs?: Record<string, unknown> },
): Promise<void> {
  const date = dateOf(d.date, 'data.date');
  await inTransaction(db, async (tx) => {
    const s = await lockOrNotFound(tx, caller.appCode, d.subscriptionID);
    if (s.status === 'terminated') throw notWhen(s, 'changed', 'an active or a suspended');
    // The values apply from the date (billRun/levels.ts): a date outside the subscription's
    // days bills nothing, and one before the last change's would leave the record showing
    // values that no later day bills (a reviewer's finding), so both are refused.
    withinDates(s, date, 'data.date');
    const last = await latestEventDate(tx, s.subscription_id, 'inputs_changed');
    if (last !== undefined && date < last) {
      throw validationFailed([{ path: 'data.date', message: `must not be before the last change of the inputs, from ${formatDate(last)}: change from that date or later` }]);
    }
    if (d.unmeteredInputs !== undefined && !sameLevels(d.unmeteredInputs as Levels, s.unmetered_inputs as Levels)) {
      await changeReachesTerms(tx, s, date, caller.email, { path: 'data.date', what: `The change from ${formatDate(date)}` });
    }
    const [t] = await loadTemplates(tx, caller.appCode, { ids: [s.service_id] });
    if (!t) throw new AppError('INTERNAL', 'the subscription has no template');
    const next = { connectionInputs: d.connectionInputs ?? s.connection_inputs, unmeteredInputs: d.unmeteredInputs ?? s.unmetered_inputs };
    const issues: Issue[] = [];
    const inputs = checkInputs(t, jsonAccess(next, 'data'), issues);
    raiseIssues(issues);
    await setInputs(tx, s.subscription_id, inputs!.connection, inputs!.unmetered, caller.email);
    await insertEvent(
      tx,
      caller.appCode,
      s.subscription_id,
      'inputs_changed',
      date,
      { before: { connectionInputs: s.connection_inputs, unmeteredInputs: s.unmetered_inputs }, after: { connectionInputs: inputs!.connection, unmeteredInputs: inputs!.unmetered } },
      caller.email,
    );
  });
}

/** Terms whose bills are made (or being made). */
const BILLED: readonly TermStatus[] = ['Processing', 'Processed', 'Posted'];

/** Where a subscription is billed: its template, batch and account (a move's new place: the destination's). */
export type BilledAt = { subscription_id: string; service_id: string; batch_id: string; account_id: string };

/**
 * A change to what a subscription is billed for from `from` (new unmetered values, a
 * suspension or its end, an end date, a move) reaches the terms of its template and batch
 * that bill any day from `from` on (to the term's end, and on a Prepaid template not billed
 * yet through the coming period its bills will charge in advance), as a dated template version does
 * (templates/updateService.ts): a term approved or billed with the subscription on its
 * roster is refused (its bills, or the preview it was approved on, would no longer match),
 * and a validated one goes back to Loaded, to be validated again. A new user changed rooms
 * into an approved term: it billed 221.79 on a preview of 192.56; an attacker suspended and
 * terminated inside one: 26.13 and 39.19 on previews of 81.00.
 * - `offRoster`: the change makes billable days the term's roster left out (resuming a
 *   subscription suspended for a whole term, the new place of a move), so such a term
 *   approved or billed without the subscription is refused too: those days would be billed
 *   by no term (a reviewer's finding).
 * - `inside` (a new subscription's start): of the terms that have billed, only one whose
 *   dates hold `from`. A start before such a term's first day is history, a customer billed
 *   elsewhere until then; a term approved and not billed yet is reached from any earlier date.
 * - One exception: a Processed term that has the subscription on its roster and holds no
 *   live bill of it (it failed there; an account bill of its account counts as its bill)
 *   takes the change, so the failure can be fixed and retried alone (retry-failures)
 *   without reversing the whole term.
 */
export async function changeReachesTerms(
  tx: Queryable,
  sub: BilledAt,
  from: string,
  by: string,
  at: { path: string; what: string; offRoster?: boolean; inside?: boolean },
): Promise<void> {
  const r = await tx
    .query<{ term_id: string; start_date: string; end_date: string; status: TermStatus; charging_type: string | null; billing_cycle: number | null; on_roster: boolean; billed: boolean }>(
      `SELECT t.term_id, to_char(t.start_date, 'YYYY-MM-DD') AS start_date, to_char(t.end_date, 'YYYY-MM-DD') AS end_date, t.status,
              v.definition->>'chargingType' AS charging_type, (v.definition->>'billingCycle')::int AS billing_cycle,
              EXISTS (SELECT 1 FROM term_subscription ts WHERE ts.term_id = t.term_id AND ts.subscription_id = $1) AS on_roster,
              EXISTS (SELECT 1 FROM bill b WHERE b.term_id = t.term_id AND b.status NOT IN ('withdrawn', 'cancelled')
                         AND (b.subscription_id = $1 OR (b.subscription_id IS NULL AND b.account_id = $4))) AS billed
         FROM term t JOIN service_version v ON v.service_version_id = t.service_version_id
        WHERE t.service_id = $2 AND t.batch_id = $3 AND t.end_date >= $5::date - interval '12 months' AND t.status = ANY($6::text[])
        ORDER BY t.term_id FOR UPDATE OF t`,
      [sub.subscription_id, sub.service_id, sub.batch_id, sub.account_id, from, [...FROZEN_TERM_STATUSES, 'Validated']],
    )
    .catch((err: { code?: string }) => {
      // The subscription is locked first here, a term first by a term's own steps: PostgreSQL breaks such a circle by refusing one.
      if (err.code === '40P01') throw conflict('A term of this subscription was changing at the same time; nothing was changed. Retry it.', at.path);
      throw err;
    });
  // The last day a term's bills charge for: its end, or on a Prepaid template not billed yet
  // the end of the coming period its bills will charge in advance. Once they are made, a
  // change in that period is the next bill's to settle (its unused days credited back:
  // docs/templates.md, "Prepaid"), as a termination after the advance always was.
  const reachEnd = (t: (typeof r.rows)[number]) =>
    t.charging_type === 'Prepaid' && t.status !== 'Processed' && t.status !== 'Posted'
      ? comingPeriod(t.end_date, CYCLE_MONTHS[(t.billing_cycle ?? 1) as BillingCycleId] ?? 1).end
      : t.end_date;
  const reached = r.rows.filter((t) => reachEnd(t) >= from && (t.on_roster || at.offRoster === true) && (at.inside !== true || t.start_date <= from || !BILLED.includes(t.status)));
  const frozen = reached
    .filter((t) => t.status !== 'Validated' && !(t.status === 'Processed' && t.on_roster && !t.billed))
    .sort((a, b) => (reachEnd(a) < reachEnd(b) ? 1 : -1))[0];
  if (frozen !== undefined) {
    const until = reachEnd(frozen);
    const how = frozen.on_roster ? 'with this subscription: its bills (or the preview it was approved on) would no longer match' : 'without this subscription on its roster: the days it adds would be billed by no term';
    throw conflict(
      `${at.what} reaches term ${frozen.term_id} (billing to ${formatDate(until)}), which is ${frozen.status} ${how}. Date it after ${formatDate(until)}${canMove(frozen.status, 'reverse') ? ', or reverse the term first' : canMove(frozen.status, 'cancel') ? ', or cancel the term first' : ''}.`,
      at.path,
    );
  }
  for (const t of reached) if (t.status === 'Validated') await markTariffDated(tx, t.term_id, moveTerm(t.status, 'invalidate'), by);
}

export async function latestReadingDate(db: Queryable, subscriptionId: string): Promise<string | undefined> {
  const r = await db.query<{ d: string | null }>(
    `SELECT max(r.reading_date) AS d FROM reading r
      WHERE r.subscription_id = $1 AND ${effectiveSql('r')}`,
    [subscriptionId],
  );
  return r.rows[0]?.d ?? undefined;
}
