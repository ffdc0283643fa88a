import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { ServiceDefinition } from './schemas.ts';
import { checkDefinitionInApp, normalizeDefinition } from './definition.ts';
import { insertVersion, linkBatches, lockService, setCurrentVersion } from './store.ts';
import { appToday, formatDate, parseDate } from '../calendar/calendar.ts';
import { billedTermReached, validatedTermsReached, versionInForceOn } from './versions.ts';
import { markTariffDated } from '../billRun/termStore.ts';
import { canMove, moveTerm, type TermStatus } from '../billRun/termStates.ts';

/** What undoes a term's hold on its tariff, read off the term's moves (termStates.ts): the 409's advice. */
function undoAdvice(status: TermStatus): string {
  if (canMove(status, 'reverse')) return ', or reverse the term first';
  if (canMove(status, 'cancel')) return ', or cancel the term first';
  if (canMove(status, 'finish')) return ', or reverse the term once its run has finished';
  return '';
}

/**
 * Replaces a template's definition with a new version. Terms made before keep the
 * version they point at, so their bills do not change, except where the new version
 * is effective-dated (`effectiveFrom`, dd/mm/yyyy): it is then in force from that day
 * in every term of the template not yet billed, which rates the days before and after
 * it in segments. A date reaching a term already approved or billed (its end on or after
 * the date) is refused: its bills, or the preview it was approved on, would no longer
 * match its tariff. An undated version takes the date of the version in force the day
 * it is saved: it corrects that version, over the same days (docs/templates.md).
 */
export async function updateService(db: pg.Pool, caller: Caller, service: ServiceDefinition, effectiveFrom?: string): Promise<number> {
  const definition = normalizeDefinition(service);
  let from: string | null = null;
  if (effectiveFrom !== undefined) {
    from = parseDate(effectiveFrom);
    if (from === null) throw validationFailed([{ path: 'effectiveFrom', message: 'must be a calendar date written dd/mm/yyyy' }]);
  }
  return inTransaction(db, async (tx) => {
    const current = await lockService(tx, caller.appCode, definition.code);
    if (!current) throw notFound('pricing template', 'service.code');
    await checkDefinitionInApp(tx, caller.appCode, definition);
    await checkRegisters(tx, current.service_id, definition);
    // The same definition again (a console form saved with no change) is not a version: an
    // officer found version 3 identical to version 2, and a dated copy would price nothing new.
    // Dated, it is a new date for those prices, and checked as such.
    if (from === null && (await sameAsCurrent(tx, current.service_id, current.current_version, definition))) return current.current_version;
    let effective: { from: string | null; dated: boolean };
    if (from !== null) {
      const term = await billedTermReached(tx, current.service_id, from);
      if (term !== undefined) {
        throw conflict(
          `effectiveFrom ${formatDate(from)} is on or before the end (${formatDate(term.end_date)}) of term ${term.term_id}, which is ${term.status}: its bills (or the preview it was approved on) would no longer match its tariff. Date the version after ${formatDate(term.end_date)}${undoAdvice(term.status as TermStatus)}.`,
          'effectiveFrom',
        );
      }
      // A validated term's preview was of the old tariff: it is validated again, as after new readings.
      for (const t of await validatedTermsReached(tx, current.service_id, from)) await markTariffDated(tx, t.term_id, moveTerm(t.status, 'invalidate'), caller.email);
      effective = { from, dated: true };
    } else {
      effective = { from: await versionInForceOn(tx, current.service_id, await appToday(tx, caller.appCode)), dated: false };
    }
    const version = current.current_version + 1;
    await insertVersion(tx, current.service_id, version, definition, caller.email, effective);
    await setCurrentVersion(tx, current.service_id, version, caller.email);
    await linkBatches(tx, caller.appCode, current.service_id, definition.batches, caller.email);
    return version;
  });
}

async function sameAsCurrent(tx: Queryable, serviceId: string, version: number, definition: unknown): Promise<boolean> {
  const r = await tx.query<{ same: boolean }>('SELECT definition = $3::jsonb AS same FROM service_version WHERE service_id = $1 AND version = $2', [serviceId, version, JSON.stringify(definition)]);
  return r.rows[0]?.same === true;
}

/**
 * A meter keeps what its readings hold across the template's versions: readings of one meter
 * code are one series, and a version reading it as a demand register (docs/rating.md) where
 * another reads it as a running total would bill the same readings two ways in one term,
 * and accept at capture a reading the bill then refuses (a reviewer). A new kind of meter
 * takes a code of its own.
 */
async function checkRegisters(tx: Queryable, serviceId: string, definition: ServiceDefinition): Promise<void> {
  const r = await tx.query<{ code: string; register: string; version: number }>(
    `SELECT DISTINCT ON (m->>'code') m->>'code' AS code, coalesce(m->>'register', 'cumulative') AS register, v.version
       FROM service_version v, jsonb_array_elements(v.definition->'meteredInputs') m
      WHERE v.service_id = $1 ORDER BY m->>'code', v.version DESC`,
    [serviceId],
  );
  const before = new Map(r.rows.map((x) => [x.code, x]));
  const issues = (definition.meteredInputs ?? []).flatMap((m, i) => {
    const earlier = before.get(m.code);
    const register = m.register ?? 'cumulative';
    return earlier === undefined || earlier.register === register
      ? []
      : [{ path: `service.meteredInputs[${i}].register`, message: `meter ${m.code} reads ${earlier.register === 'maximum' ? 'the highest demand' : 'a running total'} in version ${earlier.version}: a meter keeps what its readings hold; give a ${register === 'maximum' ? 'demand register' : 'cumulative meter'} a code of its own` }];
  });
  if (issues.length > 0) throw validationFailed(issues);
}
