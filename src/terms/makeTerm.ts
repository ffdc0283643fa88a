import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { conflict, notFound, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { parseDate } from '../calendar/calendar.ts';
import type { MakeTermData } from './schemas.ts';
import { insertTerm } from '../billRun/termStore.ts';

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
 * The template's current version, as a term of it in the batch would bill it: the
 * template exists and is not archived, and the batch is one of its batches (make-term
 * and a bill-cycle schedule ask the same). In the caller's transaction.
 */
export async function billableTemplate(tx: Queryable, appCode: number, serviceCode: string, batchCode: string): Promise<BillableTemplate> {
  const found = await tx.query<Omit<BillableTemplate, 'batch_id'> & { archive_status: number; batch_id: string | null; billed_in_batch: boolean }>(
    `SELECT s.service_id, s.archive_status, v.service_version_id, v.definition->>'name' AS name,
            (v.definition->>'dueDateOffset')::int AS due_date_offset, v.definition->>'postType' AS post_type, v.definition->>'chargingType' AS charging_type,
            (v.definition->>'billingCycle')::int AS billing_cycle,
            b.batch_id, EXISTS (SELECT 1 FROM service_batch sb WHERE sb.service_id = s.service_id AND sb.batch_id = b.batch_id) AS billed_in_batch
       FROM service s
       JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version
       LEFT JOIN batch b ON b.app_code = s.app_code AND b.batch_code = $3
      WHERE s.app_code = $1 AND s.service_code = $2`,
    [appCode, serviceCode, batchCode],
  );
  const svc = found.rows[0];
  if (!svc) throw notFound('pricing template', 'data.serviceCode');
  if (svc.archive_status === 1) throw validationFailed([{ path: 'data.serviceCode', message: 'the template is archived' }]);
  if (svc.batch_id === null) throw notFound('batch', 'data.batchCode');
  if (!svc.billed_in_batch) throw validationFailed([{ path: 'data.batchCode', message: "is not one of the template's batches" }]);
  const { archive_status: _a, billed_in_batch: _b, ...t } = svc;
  return { ...t, batch_id: svc.batch_id };
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
    const svc = await billableTemplate(tx, caller.appCode, data.serviceCode, data.batchCode);

    if (data.postType === 'Post Account' && svc.charging_type === 'Prepaid') {
      throw validationFailed([{ path: 'data.postType', message: 'Post Account is not available for a Prepaid template: use Post Subscription' }]);
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
      if (code === '23505') throw conflict('A term for this template, batch and billing period exists already.', 'data.billingPeriodID');
      if (code === '23P01') throw conflict('A term of this template and batch already covers some of these dates.', 'data.startDate');
      throw err;
    }
  });
}
