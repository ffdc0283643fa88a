import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { UpdateTemplateData } from './schemas.ts';
import { checkTemplate } from './checkTemplate.ts';
import { insertTemplateVersion, lockTemplate, setTemplateVersion } from './templateStore.ts';

/** Adds a version of a template; documents rendered before keep the version they name. */
export async function updateDocumentTemplate(db: pg.Pool, caller: Caller, d: UpdateTemplateData): Promise<number> {
  return inTransaction(db, async (tx) => {
    const current = await lockTemplate(tx, caller.appCode, d.templateID);
    if (!current) throw notFound('document template', 'data.templateID');
    await checkTemplate(current.kind, d.subject, d.body);
    const version = current.current_version + 1;
    await insertTemplateVersion(tx, current.template_id, version, d.subject ?? null, d.body, caller.email);
    await setTemplateVersion(tx, current.template_id, version, d.name, caller.email);
    return version;
  });
}
