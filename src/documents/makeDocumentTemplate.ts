import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import type { Caller } from '../auth/roles.ts';
import type { MakeTemplateData } from './schemas.ts';
import { checkTemplate } from './checkTemplate.ts';
import { insertTemplate, insertTemplateVersion } from './templateStore.ts';

/** Saves a new invoice or e-mail template at version 1, once it has passed the check. */
export async function makeDocumentTemplate(db: pg.Pool, caller: Caller, d: MakeTemplateData): Promise<string> {
  await checkTemplate(d.kind, d.subject, d.body);
  return inTransaction(db, async (tx) => {
    const id = await insertTemplate(tx, caller.appCode, d.kind, d.name, caller.email);
    await insertTemplateVersion(tx, id, 1, d.subject ?? null, d.body, caller.email);
    return id;
  });
}
