// SQL for subscriptions and their event history. The bill run reads subscription rows
// (template, batch, dates, status, inputs); what this folder writes keeps those meanings:
// a subscription is billed from start_date to end_date (inclusive, open when null),
// never while suspended; a move ends one row and starts another.
import type { Queryable } from '../db/pool.ts';
import { filters } from '../db/filters.ts';
import { localTimeSql } from '../calendar/calendar.ts';

export type NewSubscription = {
  accountId: string;
  serviceId: string;
  batchId: string;
  connection: Record<string, unknown>;
  unmetered: Record<string, unknown>;
  startDate: string;
  endDate: string | null;
  status?: string;
  movedFrom?: string | null;
};

export async function insertSubscription(db: Queryable, appCode: number, s: NewSubscription, by: string): Promise<string> {
  const r = await db.query<{ subscription_id: string }>(
    `INSERT INTO subscription (app_code, account_id, service_id, batch_id, connection_inputs, unmetered_inputs, start_date, end_date,
                               status, moved_from_subscription_id, created_by, modified_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING subscription_id`,
    [appCode, s.accountId, s.serviceId, s.batchId, JSON.stringify(s.connection), JSON.stringify(s.unmetered), s.startDate, s.endDate, s.status ?? 'active', s.movedFrom ?? null, by],
  );
  return r.rows[0]!.subscription_id;
}

export type LockedSubscription = {
  subscription_id: string;
  account_id: string;
  service_id: string;
  batch_id: string;
  batch_code: string;
  service_code: string;
  start_date: string;
  end_date: string | null;
  status: 'active' | 'suspended' | 'terminated';
  connection_inputs: Record<string, unknown>;
  unmetered_inputs: Record<string, unknown>;
};

export async function lockSubscription(db: Queryable, appCode: number, id: number | string): Promise<LockedSubscription | undefined> {
  const r = await db.query<LockedSubscription>(
    `SELECT s.subscription_id, s.account_id, s.service_id, s.batch_id, b.batch_code, v.service_code, s.start_date, s.end_date, s.status,
            s.connection_inputs, s.unmetered_inputs
       FROM subscription s JOIN batch b ON b.batch_id = s.batch_id JOIN service v ON v.service_id = s.service_id
      WHERE s.app_code = $1 AND s.subscription_id = $2
      FOR UPDATE OF s`,
    [appCode, id],
  );
  return r.rows[0];
}

export async function setSubscriptionState(db: Queryable, id: string, status: string, endDate: string | null | undefined, by: string): Promise<void> {
  if (endDate === undefined) {
    await db.query('UPDATE subscription SET status = $2, modified_at = now(), modified_by = $3 WHERE subscription_id = $1', [id, status, by]);
  } else {
    await db.query('UPDATE subscription SET status = $2, end_date = $3, modified_at = now(), modified_by = $4 WHERE subscription_id = $1', [
      id,
      status,
      endDate,
      by,
    ]);
  }
}

/** A recorded document as the list reads it (date yyyy-mm-dd). */
export type DocumentRow = { name: string; reference: string; date: string; recordedAt: string; recordedBy: string };

/** Records documents on a subscription; one recorded again replaces its reference and date. */
export async function recordDocuments(db: Queryable, appCode: number, subscriptionId: string, docs: { name: string; reference: string; date: string }[], by: string): Promise<void> {
  if (docs.length === 0) return;
  await db.query(
    `INSERT INTO subscription_document (subscription_id, app_code, name, reference, document_date, recorded_by)
     SELECT $1, $2, d.name, d.reference, d.date, $6 FROM unnest($3::text[], $4::text[], $5::date[]) AS d(name, reference, date)
     ON CONFLICT (subscription_id, name) DO UPDATE
       SET reference = EXCLUDED.reference, document_date = EXCLUDED.document_date, recorded_at = now(), recorded_by = EXCLUDED.recorded_by`,
    [subscriptionId, appCode, docs.map((d) => d.name), docs.map((d) => d.reference), docs.map((d) => d.date), by],
  );
}

/** The documents on record of a subscription, by name (dates as ISO). */
export async function documentsOf(db: Queryable, subscriptionId: string): Promise<{ name: string; reference: string; date: string }[]> {
  const r = await db.query<{ name: string; reference: string; date: string }>(
    `SELECT name, reference, to_char(document_date, 'YYYY-MM-DD') AS date FROM subscription_document WHERE subscription_id = $1 ORDER BY name`,
    [subscriptionId],
  );
  return r.rows;
}

export async function setInputs(db: Queryable, id: string, connection: Record<string, unknown>, unmetered: Record<string, unknown>, by: string): Promise<void> {
  await db.query(
    'UPDATE subscription SET connection_inputs = $2, unmetered_inputs = $3, modified_at = now(), modified_by = $4 WHERE subscription_id = $1',
    [id, JSON.stringify(connection), JSON.stringify(unmetered), by],
  );
}

export async function insertEvent(
  db: Queryable,
  appCode: number,
  subscriptionId: string,
  kind: string,
  date: string,
  detail: Record<string, unknown>,
  by: string,
): Promise<void> {
  await db.query(
    'INSERT INTO subscription_event (app_code, subscription_id, kind, effective_date, detail, created_by) VALUES ($1, $2, $3, $4, $5, $6)',
    [appCode, subscriptionId, kind, date, JSON.stringify(detail), by],
  );
}

export async function lastEventDate(db: Queryable, subscriptionId: string, kind: string): Promise<string | undefined> {
  const r = await db.query<{ effective_date: string }>(
    'SELECT effective_date FROM subscription_event WHERE subscription_id = $1 AND kind = $2 ORDER BY event_id DESC LIMIT 1',
    [subscriptionId, kind],
  );
  return r.rows[0]?.effective_date;
}

/** The latest date an event of this kind takes effect (whatever the order they were written in), 'YYYY-MM-DD'. */
export async function latestEventDate(db: Queryable, subscriptionId: string, kind: string): Promise<string | undefined> {
  const r = await db.query<{ d: string | null }>('SELECT max(effective_date) AS d FROM subscription_event WHERE subscription_id = $1 AND kind = $2', [subscriptionId, kind]);
  return r.rows[0]?.d ?? undefined;
}

export type SubscriptionRow = {
  subscription_id: string;
  app_code: number;
  account_id: string;
  account_number: string;
  service_id: string;
  service_code: string;
  batch_id: string;
  batch_code: string;
  connection_inputs: Record<string, unknown>;
  unmetered_inputs: Record<string, unknown>;
  start_date: string;
  end_date: string | null;
  status: 'active' | 'suspended' | 'terminated';
  moved_from_subscription_id: string | null;
  moved_to_subscription_id: string | null;
  documents: DocumentRow[];
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
};

export type SubscriptionFilters = {
  subscriptionID?: number;
  accountID?: number;
  accountNumber?: string;
  batchCode?: string;
  serviceCode?: string;
  status?: string;
};

export async function listSubscriptions(
  db: Queryable,
  appCode: number,
  f: SubscriptionFilters,
  limit: number,
  offset: number,
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const w = filters('s.app_code = $1', appCode);
  const { add } = w;
  if (f.subscriptionID !== undefined) add((p) => `s.subscription_id = ${p}`, f.subscriptionID);
  if (f.accountID !== undefined) add((p) => `s.account_id = ${p}`, f.accountID);
  if (f.accountNumber !== undefined) add((p) => `ac.account_number = ${p}`, f.accountNumber);
  if (f.batchCode !== undefined) add((p) => `b.batch_code = ${p}`, f.batchCode);
  if (f.serviceCode !== undefined) add((p) => `v.service_code = ${p}`, f.serviceCode);
  if (f.status !== undefined) add((p) => `s.status = ${p}`, f.status);
  const from = `FROM subscription s
      JOIN account ac ON ac.account_id = s.account_id
      JOIN service v ON v.service_id = s.service_id
      JOIN batch b ON b.batch_id = s.batch_id
     WHERE ${w.sql()}`;
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n ${from}`, w.params);
  const page = w.page(limit, offset);
  const rows = await db.query<SubscriptionRow>(
    `SELECT s.subscription_id, s.app_code, s.account_id, ac.account_number, s.service_id, v.service_code, s.batch_id, b.batch_code,
            s.connection_inputs, s.unmetered_inputs, s.start_date, s.end_date, s.status, s.moved_from_subscription_id,
            (SELECT m.subscription_id FROM subscription m WHERE m.moved_from_subscription_id = s.subscription_id) AS moved_to_subscription_id,
            (SELECT coalesce(json_agg(json_build_object('name', d.name, 'reference', d.reference, 'date', to_char(d.document_date, 'YYYY-MM-DD'),
                                                        'recordedAt', ${localTimeSql('d.recorded_at')}, 'recordedBy', d.recorded_by) ORDER BY d.name), '[]')
               FROM subscription_document d WHERE d.subscription_id = s.subscription_id) AS documents,
            ${localTimeSql('s.created_at')} AS created_at, s.created_by,
            ${localTimeSql('s.modified_at')} AS modified_at, s.modified_by
       ${from.replace('FROM subscription s', 'FROM subscription s JOIN app a ON a.app_code = s.app_code')}
      ORDER BY s.subscription_id ${page.sql}`,
    page.params,
  );
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

export type EventRow = {
  subscription_id: string;
  kind: 'suspended' | 'resumed' | 'terminated' | 'moved_out' | 'moved_in' | 'inputs_changed';
  effective_date: string;
  detail: Record<string, unknown>;
  created_at: string;
  created_by: string;
};

export async function listEvents(db: Queryable, subscriptionIds: string[]): Promise<EventRow[]> {
  const r = await db.query<EventRow>(
    `SELECT e.subscription_id, e.kind, e.effective_date, e.detail,
            ${localTimeSql('e.created_at')} AS created_at, e.created_by
       FROM subscription_event e JOIN app a ON a.app_code = e.app_code
      WHERE e.subscription_id = ANY($1::bigint[]) ORDER BY e.event_id`,
    [subscriptionIds],
  );
  return r.rows;
}
