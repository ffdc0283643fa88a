// A template's text by id and version, the default (templateID 0) included: the one
// way renderers and previews get a template.
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { TemplateKind, TemplateRecord } from './schemas.ts';
import { listTemplates, type TemplateRow } from './templateStore.ts';
import {
  DEFAULT_EMAIL_BODY,
  DEFAULT_EMAIL_NAME,
  DEFAULT_EMAIL_SUBJECT,
  DEFAULT_INVOICE_BODY,
  DEFAULT_INVOICE_NAME,
  DEFAULT_TEMPLATE_ID,
  DEFAULT_VERSION,
} from './defaults.ts';

export type ResolvedTemplate = { templateId: number; version: number; kind: TemplateKind; name: string; subject: string | null; body: string };

export function defaultTemplate(kind: TemplateKind): ResolvedTemplate {
  return kind === 'invoice'
    ? { templateId: DEFAULT_TEMPLATE_ID, version: DEFAULT_VERSION, kind, name: DEFAULT_INVOICE_NAME, subject: null, body: DEFAULT_INVOICE_BODY }
    : { templateId: DEFAULT_TEMPLATE_ID, version: DEFAULT_VERSION, kind, name: DEFAULT_EMAIL_NAME, subject: DEFAULT_EMAIL_SUBJECT, body: DEFAULT_EMAIL_BODY };
}

/** The template of this kind with this id (0 or null: the default), at `version` or its current one. */
export async function resolveTemplate(db: Queryable, appCode: number, kind: TemplateKind, templateId: number | null, version?: number, path = 'data.templateID'): Promise<ResolvedTemplate> {
  if (templateId === null || templateId === DEFAULT_TEMPLATE_ID) {
    if (version !== undefined && version !== DEFAULT_VERSION) throw notFound('template version', 'data.version');
    return defaultTemplate(kind);
  }
  const [row] = await listTemplates(db, appCode, { kind, templateId, ...(version !== undefined ? { version } : {}) });
  if (!row) throw notFound(`${kind} template`, version !== undefined ? 'data.version' : path);
  return resolved(row);
}

const resolved = (r: TemplateRow): ResolvedTemplate => ({
  templateId: Number(r.template_id),
  version: r.version,
  kind: r.kind,
  name: r.name,
  subject: r.subject,
  body: r.body,
});

/** The list record of a stored row or of a default. */
export function templateRecord(r: TemplateRow): TemplateRecord {
  return {
    templateID: Number(r.template_id),
    kind: r.kind,
    name: r.name,
    version: r.version,
    archiveStatus: r.archive_status,
    subject: r.subject,
    body: r.body,
    createdAt: r.created_at,
    createdBy: r.created_by,
    modifiedAt: r.modified_at,
    modifiedBy: r.modified_by,
  };
}

export function defaultRecord(kind: TemplateKind): TemplateRecord {
  const d = defaultTemplate(kind);
  return {
    templateID: d.templateId,
    kind,
    name: d.name,
    version: d.version,
    archiveStatus: 0,
    subject: d.subject,
    body: d.body,
    createdAt: '',
    createdBy: 'billrun',
    modifiedAt: '',
    modifiedBy: 'billrun',
  };
}
