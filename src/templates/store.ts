// SQL for pricing templates: service (identity, archive, audit), service_version
// (immutable definitions), batch and service_batch (where a template is billed).
import type { Queryable } from '../db/pool.ts';
import type { ServiceDefinition } from './schemas.ts';
import type { LateChargeRule } from '../rating/lateCharge.ts';
import { localTimeSql } from '../calendar/calendar.ts';
import { TEMPLATE_NAME_COLUMNS } from '../documents/templateRefs.ts';

export type StoredDefinition = Required<Omit<ServiceDefinition, 'securityDeposit' | 'invoiceTemplate' | 'emailTemplate' | 'lateCharge'>> & {
  /** Absent on versions stored before late charges: read as null. */
  lateCharge?: LateChargeRule | null;
  securityDeposit: string | null;
  invoiceTemplate: { templateID: number; templateName: string };
  emailTemplate: { templateID: number | null; templateName: string | null };
};

export type ServiceRow = {
  service_id: string;
  app_code: number;
  service_code: string;
  current_version: number;
  archive_status: number;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
  ts: string;
  definition: StoredDefinition;
  service_version_id: string;
  /** The names of the invoice and e-mail templates the definition names (documents/templateRefs.ts). */
  invoice_template_name: string | null;
  email_template_name: string | null;
};

const SELECT = `
  SELECT s.service_id, s.app_code, s.service_code, s.current_version, s.archive_status,
         ${localTimeSql('s.created_at')} AS created_at, s.created_by,
         ${localTimeSql('s.modified_at')} AS modified_at, s.modified_by,
         floor(extract(epoch FROM s.modified_at))::bigint AS ts,
         v.definition, v.service_version_id, ${TEMPLATE_NAME_COLUMNS}
    FROM service s
    JOIN app a ON a.app_code = s.app_code
    JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version`;

export async function listServices(db: Queryable, appCode: number, serviceCode?: string): Promise<ServiceRow[]> {
  if (serviceCode !== undefined) {
    const r = await db.query<ServiceRow>({ name: 'service-by-code', text: `${SELECT} WHERE s.app_code = $1 AND s.service_code = $2`, values: [appCode, serviceCode] });
    return r.rows;
  }
  const r = await db.query<ServiceRow>({ name: 'services-of-app', text: `${SELECT} WHERE s.app_code = $1 ORDER BY s.service_id`, values: [appCode] });
  return r.rows;
}

/** The current row, locked for an update in the caller's transaction. */
export async function lockService(db: Queryable, appCode: number, serviceCode: string): Promise<{ service_id: string; current_version: number } | undefined> {
  const r = await db.query<{ service_id: string; current_version: number }>(
    'SELECT service_id, current_version FROM service WHERE app_code = $1 AND service_code = $2 FOR UPDATE',
    [appCode, serviceCode],
  );
  return r.rows[0];
}

export async function insertService(db: Queryable, appCode: number, code: string, by: string): Promise<string | undefined> {
  const r = await db.query<{ service_id: string }>(
    `INSERT INTO service (app_code, service_code, created_by, modified_by) VALUES ($1, $2, $3, $3)
     ON CONFLICT (app_code, service_code) DO NOTHING RETURNING service_id`,
    [appCode, code, by],
  );
  return r.rows[0]?.service_id;
}

export async function insertVersion(
  db: Queryable,
  serviceId: string,
  version: number,
  definition: StoredDefinition,
  by: string,
  effective: { from: string | null; dated: boolean } = { from: null, dated: false },
): Promise<void> {
  await db.query('INSERT INTO service_version (service_id, version, definition, created_by, effective_from, effective_dated) VALUES ($1, $2, $3, $4, $5, $6)', [
    serviceId,
    version,
    JSON.stringify(definition),
    by,
    effective.from,
    effective.dated,
  ]);
}

export async function setCurrentVersion(db: Queryable, serviceId: string, version: number, by: string): Promise<void> {
  await db.query('UPDATE service SET current_version = $2, modified_at = now(), modified_by = $3 WHERE service_id = $1', [serviceId, version, by]);
}

export async function setArchiveStatus(db: Queryable, appCode: number, serviceCode: string, status: number, by: string): Promise<boolean> {
  const r = await db.query(
    'UPDATE service SET archive_status = $3, modified_at = now(), modified_by = $4 WHERE app_code = $1 AND service_code = $2',
    [appCode, serviceCode, status, by],
  );
  return r.rowCount === 1;
}

/** Makes the batches that do not exist yet and links exactly these to the template. */
export async function linkBatches(db: Queryable, appCode: number, serviceId: string, codes: string[], by: string): Promise<void> {
  await db.query(
    `INSERT INTO batch (app_code, batch_code, label, created_by)
     SELECT $1, c, c, $3 FROM unnest($2::text[]) AS c
     ON CONFLICT (app_code, batch_code) DO NOTHING`,
    [appCode, codes, by],
  );
  await db.query('DELETE FROM service_batch WHERE service_id = $1', [serviceId]);
  await db.query(
    `INSERT INTO service_batch (service_id, batch_id)
     SELECT $1, batch_id FROM batch WHERE app_code = $2 AND batch_code = ANY($3::text[])`,
    [serviceId, appCode, codes],
  );
}

export type VersionRow = {
  version: number;
  created_at: string;
  created_by: string;
  definition: StoredDefinition;
  /** 'YYYY-MM-DD' or null (from the beginning). */
  effective_from: string | null;
  effective_dated: boolean;
};

/** A template's versions, newest first, a page of them, and how many there are; undefined when the app has no template of that code. */
export async function listVersions(
  db: Queryable,
  appCode: number,
  serviceCode: string,
  limit: number,
  offset: number,
): Promise<{ rows: VersionRow[]; total: number } | undefined> {
  const s = await db.query<{ service_id: string; total: number }>(
    `SELECT s.service_id, (SELECT count(*)::int FROM service_version v WHERE v.service_id = s.service_id) AS total
       FROM service s WHERE s.app_code = $1 AND s.service_code = $2`,
    [appCode, serviceCode],
  );
  const found = s.rows[0];
  if (!found) return undefined;
  const r = await db.query<VersionRow>(
    `SELECT v.version, ${localTimeSql('v.created_at')} AS created_at, v.created_by, v.definition,
            to_char(v.effective_from, 'YYYY-MM-DD') AS effective_from, v.effective_dated
       FROM service_version v JOIN app a ON a.app_code = $1
      WHERE v.service_id = $2
      ORDER BY v.version DESC LIMIT $3 OFFSET $4`,
    [appCode, found.service_id, limit, offset],
  );
  return { rows: r.rows, total: found.total };
}
