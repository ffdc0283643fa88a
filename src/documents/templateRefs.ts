// Pricing templates name invoice and e-mail templates by id. A name that points at
// nothing is refused when the pricing template is saved, and the list record shows the
// names of the templates it points at.
import type { Queryable } from '../db/pool.ts';
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { DEFAULT_TEMPLATE_ID } from './defaults.ts';
import { templateHeads } from './templateStore.ts';
import type { TemplateKind } from './schemas.ts';

type Refs = { invoiceTemplate: { templateID: number | null }; emailTemplate: { templateID: number | null } };

/** Refuses a pricing template whose invoiceTemplate or emailTemplate names a missing, archived or wrong-kind template. */
export async function checkTemplateRefs(db: Queryable, appCode: number, d: Refs): Promise<void> {
  const heads = await templateHeads(db, appCode);
  const issues: ErrorDetail[] = [];
  const check = (id: number | null, kind: TemplateKind, path: string) => {
    if (id === null || id === DEFAULT_TEMPLATE_ID) return;
    const h = heads.get(String(id));
    if (!h || h.kind !== kind) issues.push({ path, message: `no ${kind} template ${id} in this app` });
    else if (h.archived) issues.push({ path, message: `${kind} template ${id} is archived` });
  };
  check(d.invoiceTemplate.templateID, 'invoice', 'service.invoiceTemplate.templateID');
  check(d.emailTemplate.templateID, 'email', 'service.emailTemplate.templateID');
  if (issues.length > 0) throw validationFailed(issues, 'The pricing template names a document template that does not exist.');
}

type Named = { templateID: number; templateName: string; emailTemplateID: number | null; emailTemplateName: string | null };

/** The list records with templateName and emailTemplateName taken from the templates they name. */
export async function withTemplateNames<T extends Named>(db: Queryable, appCode: number, records: T[]): Promise<T[]> {
  const heads = await templateHeads(db, appCode);
  // interface.md: templateID 0 and a null emailTemplateID mean "none named" (the
  // default is used), shown as templateName "" and emailTemplateName null.
  const name = (id: number | null, none: string | null, stored: string | null) =>
    id === null || id === DEFAULT_TEMPLATE_ID ? none : (heads.get(String(id))?.name ?? stored);
  return records.map((r) => ({
    ...r,
    templateName: name(r.templateID, '', r.templateName) ?? '',
    emailTemplateName: name(r.emailTemplateID, null, r.emailTemplateName),
  }));
}
