import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { conflict, invalidState, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { formatDate, parseDate } from '../calendar/calendar.ts';
import type { MakeTermData } from './schemas.ts';
import { insertTerm } from '../billRun/termStore.ts';
import { dayNumber, versionTimeline } from '../rating/index.ts';

const LAST_DAY = dayNumber('9999-12-31');

export type BillableTemplate = {
  service_id: string;
  service_version_id: string;
  name: string;
  due_date_offset: number;
  post_type: string;
  charging_type: string;
  billing_cycle: number;
  batch_id: string;
};

/**
 * The template as a term of it in the batch would bill it: the template exists and is not
 * archived, and the batch is one of its batches (make-term and a bill-cycle schedule ask
 * the same). service_version_id is the current version's: a term keeps it as the last
 * undated version that reaches it (billRun/versions.ts). The rest (its name, due date
 * offset, post type, charging type, cycle, batches) is the version in force on `onDate`
 * when given (a term's last day), as versionTimeline decides: a version dated after the
 * term set its due date and refused its batch (issue 12, found by a new user's walk); without
 * `onDate`, the current version's. In the caller's transaction.
 */
export async function billableTemplate(tx: Queryable, appCode: number, serviceCode: string, batchCode: string, onDate?: string): Promise<BillableTemplate> {
  const found = await tx.query<{ service_id: string; archive_status: number; current_version: number; service_version_id: string; batch_id: string | null }>(
    `SELECT s.service_id, s.archive_status, s.current_version, v.service_version_id, b.batch_id
       FROM service s
       JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version
       LEFT JOIN batch b ON b.app_code = s.app_code AND b.batch_code = $3
      WHERE s.app_code = $1 AND s.service_code = $2`,
    [appCode, serviceCode, batchCode],
  );
  const svc = found.rows[0];
  if (!svc) throw notFound('pricing template', 'data.serviceCode');
  // A state of the template, as for a new subscription to it (subscriptions/check.ts): 409, not 400.
  if (svc.archive_status === 1) throw invalidState(`pricing template ${serviceCode} is archived and takes no new terms`, 'data.serviceCode');
  if (svc.batch_id === null) throw notFound('batch', 'data.batchCode');
  let version = svc.current_version;
  if (onDate !== undefined) {
    const dated = await tx.query<{ version: number; from: string | null }>(
      `SELECT version, to_char(effective_from, 'YYYY-MM-DD') AS from FROM service_version WHERE service_id = $1`,
      [svc.service_id],
    );
    version = versionTimeline(dated.rows, onDate, onDate)[0]!.version;
  }
  const v = await tx.query<{ name: string; due_date_offset: number; post_type: string; charging_type: string; billing_cycle: number; batches: unknown; billed_in_batch: boolean }>(
    `SELECT v.definition->>'name' AS name, (v.definition->>'dueDateOffset')::int AS due_date_offset, v.definition->>'postType' AS post_type,
            v.definition->>'chargingType' AS charging_type, (v.definition->>'billingCycle')::int AS billing_cycle, v.definition->'batches' AS batches,
            EXISTS (SELECT 1 FROM service_batch sb WHERE sb.service_id = v.service_id AND sb.batch_id = $3) AS billed_in_batch
       FROM service_version v WHERE v.service_id = $1 AND v.version = $2`,
    [svc.service_id, version, svc.batch_id],
  );
  const fields = v.rows[0]!;
  // service_batch holds the current version's batches; an earlier version in force, its own.
  const billed = version !== svc.current_version && Array.isArray(fields.batches) ? fields.batches.includes(batchCode) : fields.billed_in_batch;
  if (!billed) throw validationFailed([{ path: 'data.batchCode', message: "is not one of the template's batches" }]);
  return {
    service_id: svc.service_id,
    service_version_id: svc.service_version_id,
    name: fields.name,
    due_date_offset: fields.due_date_offset,
    post_type: fields.post_type,
    charging_type: fields.charging_type,
    billing_cycle: fields.billing_cycle,
    batch_id: svc.batch_id,
  };
}

/** The live term of the template and batch with this billing period, or (`dates` given) whose dates overlap them. */
async function termInTheWay(db: Queryable, appCode: number, serviceId: string, batchId: string, period: number, dates: [string, string] | null) {
  const r = await db.query<{ term_id: string; label: string; start_date: string; end_date: string; status: string }>(
    `SELECT term_id, label, start_date::text, end_date::text, status FROM term
      WHERE app_code = $1 AND service_id = $2 AND batch_id = $3 AND status <> 'Cancelled'
        AND CASE WHEN $5::date IS NULL THEN billing_period_id = $4 ELSE daterange(start_date, end_date, '[]') && daterange($5::date, $6::date, '[]') END
      ORDER BY start_date LIMIT 1`,
    [appCode, serviceId, batchId, period, dates?.[0] ?? null, dates?.[1] ?? null],
  );
  return r.rows[0];
}

/**
 * Step 1: a term for one template, batch and billing period, keeping the template's
 * current version. The database refuses a second term for the same three, and a term
 * of the same template and batch whose dates overlap (concurrent calls included).
 */
export async function makeTerm(db: pg.Pool, caller: Caller, data: MakeTermData): Promise<string> {
  const issues: ErrorDetail[] = [];
  const date = (text: string | undefined, path: string) => {
    if (text === undefined) return undefined;
    const iso = parseDate(text);
    if (iso === null) issues.push({ path, message: 'is not a calendar date (dd/mm/yyyy)' });
    return iso ?? undefined;
  };
  const start = date(data.startDate, 'data.startDate');
  const end = date(data.endDate, 'data.endDate');
  const due = date(data.dueDate, 'data.dueDate');
  if (start && end && end < start) issues.push({ path: 'data.endDate', message: 'is before startDate' });
  if (end && due && due < end) issues.push({ path: 'data.dueDate', message: 'is before endDate' });
  if (issues.length > 0) throw validationFailed(issues);

  return inTransaction(db, async (tx) => {
    const svc = await billableTemplate(tx, caller.appCode, data.serviceCode, data.batchCode, end);

    if (data.postType === 'Post Account' && svc.charging_type === 'Prepaid') {
      throw validationFailed([{ path: 'data.postType', message: 'Post Account is not available for a Prepaid template: use Post Subscription' }]);
    }
    // Dates are written back as dd/mm/yyyy: a due date past the year 9999 could not be.
    if (due === undefined && dayNumber(end!) + svc.due_date_offset > LAST_DAY) {
      throw validationFailed([{ path: 'data.endDate', message: `is too late: the due date, ${svc.due_date_offset} days after it, would be after 31/12/9999` }]);
    }
    const label = data.label ?? `${svc.name} ${data.batchCode} ${data.startDate} to ${data.endDate}`;
    try {
      return await insertTerm(tx, caller.email, {
        appCode: caller.appCode,
        serviceId: svc.service_id,
        serviceVersionId: svc.service_version_id,
        batchId: svc.batch_id,
        billingPeriodId: data.billingPeriodID,
        label,
        start: start!,
        end: end!,
        due: due ?? null,
        dueDateOffset: svc.due_date_offset,
        postType: data.postType ?? svc.post_type,
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '23505' || code === '23P01') throw new InTheWay(code === '23505' ? 'period' : 'dates', svc.service_id, svc.batch_id);
      throw err;
    }
  }).catch(async (err: unknown) => {
    if (!(err instanceof InTheWay)) throw err;
    // The term in the way, named so the officer can find it (an officer's walk: "already
    // covers some of these dates" left them to search every term). Read once the
    // transaction has ended: the other term is committed.
    // Either constraint may be the one PostgreSQL checks first: a term of the same period is named as that.
    const samePeriod = await termInTheWay(db, caller.appCode, err.serviceId, err.batchId, data.billingPeriodID, null);
    const other = samePeriod ?? (await termInTheWay(db, caller.appCode, err.serviceId, err.batchId, data.billingPeriodID, [start!, end!]));
    const named = other === undefined ? '' : ` (term ${other.term_id}, "${other.label}", ${formatDate(other.start_date)} to ${formatDate(other.end_date)}, ${other.status})`;
    if (samePeriod !== undefined || (other === undefined && err.clash === 'period')) {
      throw conflict(`A term for this template, batch and billing period exists already${named}.`, 'data.billingPeriodID');
    }
    throw conflict(`A term of this template and batch already covers some of these dates${named}.`, 'data.startDate');
  });
}

/** make-term's insert refused by the term_period_key (period) or term_no_overlap (dates) constraint. */
class InTheWay extends Error {
  readonly clash: 'period' | 'dates';
  readonly serviceId: string;
  readonly batchId: string;
  constructor(clash: 'period' | 'dates', serviceId: string, batchId: string) {
    super(clash);
    this.clash = clash;
    this.serviceId = serviceId;
    this.batchId = batchId;
  }
}
