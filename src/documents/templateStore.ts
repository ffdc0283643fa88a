// SQL for document templates: document_template (name, current version, archive) and
// document_template_version (the texts, never changed). templateID 0 is not a row: the
// default of its kind comes from defaults.ts through resolveTemplate.ts.
import type { Queryable } from '../db/pool.ts';
import type { TemplateKind } from './schemas.ts';

export type TemplateRow = {
  template_id: string;
  kind: TemplateKind;
  name: string;
  version: number;
  archive_status: number;
  subject: string | null;
  body: string;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
};

const SELECT = `
  SELECT t.template_id, t.kind, t.name, v.version, t.archive_status, v.subject, v.body,
         to_char(t.created_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS created_at, t.created_by,
         to_char(t.modified_at AT TIME ZONE a.time_zone, 'YYYY-MM-DD HH24:MI:SS') AS modified_at, t.modified_by
    FROM document_template t
    JOIN app a ON a.app_code = t.app_code
    JOIN document_template_version v ON v.template_id = t.template_id`;

/** The app's templates at their current version (or the one given), by kind or id. */
export async function listTemplates(db: Queryable, appCode: number, f: { kind?: TemplateKind; templateId?: number; version?: number }): Promise<TemplateRow[]> {
  const r = await db.query<TemplateRow>(
    `${SELECT}
      WHERE t.app_code = $1 AND ($2::text IS NULL OR t.kind = $2) AND ($3::bigint IS NULL OR t.template_id = $3)
        AND v.version = coalesce($4::int, t.current_version)
      ORDER BY t.template_id`,
    [appCode, f.kind ?? null, f.templateId ?? null, f.version ?? null],
  );
  return r.rows;
}

export async function insertTemplate(db: Queryable, appCode: number, kind: TemplateKind, name: string, by: string): Promise<string> {
  const r = await db.query<{ template_id: string }>(
    `INSERT INTO document_template (app_code, kind, name, created_by, modified_by) VALUES ($1, $2, $3, $4, $4) RETURNING template_id`,
    [appCode, kind, name, by],
  );
  return r.rows[0]!.template_id;
}

export async function insertTemplateVersion(db: Queryable, templateId: string, version: number, subject: string | null, body: string, by: string): Promise<void> {
  await db.query(`INSERT INTO document_template_version (template_id, version, subject, body, created_by) VALUES ($1, $2, $3, $4, $5)`, [
    templateId,
    version,
    subject,
    body,
    by,
  ]);
}

export async function lockTemplate(db: Queryable, appCode: number, templateId: number): Promise<{ template_id: string; kind: TemplateKind; current_version: number } | undefined> {
  const r = await db.query<{ template_id: string; kind: TemplateKind; current_version: number }>(
    'SELECT template_id, kind, current_version FROM document_template WHERE app_code = $1 AND template_id = $2 FOR UPDATE',
    [appCode, templateId],
  );
  return r.rows[0];
}

export async function setTemplateVersion(db: Queryable, templateId: string, version: number, name: string | undefined, by: string): Promise<void> {
  await db.query(
    `UPDATE document_template SET current_version = $2, name = coalesce($3, name), modified_at = now(), modified_by = $4 WHERE template_id = $1`,
    [templateId, version, name ?? null, by],
  );
}

export async function setTemplateArchive(db: Queryable, appCode: number, templateId: number, status: 0 | 1, by: string): Promise<boolean> {
  const r = await db.query(
    `UPDATE document_template SET archive_status = $3, modified_at = now(), modified_by = $4 WHERE app_code = $1 AND template_id = $2`,
    [appCode, templateId, status, by],
  );
  return r.rowCount === 1;
}

/** Names and archive status of the app's templates, by id (for pricing templates). */
export async function templateHeads(db: Queryable, appCode: number): Promise<Map<string, { kind: TemplateKind; name: string; archived: boolean }>> {
  const r = await db.query<{ template_id: string; kind: TemplateKind; name: string; archive_status: number }>(
    'SELECT template_id, kind, name, archive_status FROM document_template WHERE app_code = $1',
    [appCode],
  );
  return new Map(r.rows.map((x) => [x.template_id, { kind: x.kind, name: x.name, archived: x.archive_status === 1 }]));
}
