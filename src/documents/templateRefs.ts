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

/**
 * The names of the templates a pricing template names, as columns of the query that reads it
 * (aliases s for service and v for its version), so a list of pricing templates stays one
 * query: invoice_template_name and email_template_name, null when no such template exists.
 */
export const TEMPLATE_NAME_COLUMNS = `
  (SELECT dt.name FROM document_template dt
    WHERE dt.app_code = s.app_code AND dt.template_id = (v.definition->'invoiceTemplate'->>'templateID')::bigint) AS invoice_template_name,
  (SELECT dt.name FROM document_template dt
    WHERE dt.app_code = s.app_code AND dt.template_id = (v.definition->'emailTemplate'->>'templateID')::bigint) AS email_template_name`;

/** The list record with templateName and emailTemplateName those of the templates it names (TEMPLATE_NAME_COLUMNS). */
export function withTemplateNames<T extends Named>(r: T, names: { invoice: string | null; email: string | null }): T {
  // interface.md: templateID 0 and a null emailTemplateID mean "none named" (the
  // default is used), shown as templateName "" and emailTemplateName null; a template
  // that is gone keeps the name stored with the pricing template.
  const name = (id: number | null, none: string | null, found: string | null, stored: string | null) =>
    id === null || id === DEFAULT_TEMPLATE_ID ? none : (found ?? stored);
  return {
    ...r,
    templateName: name(r.templateID, '', names.invoice, r.templateName) ?? '',
    emailTemplateName: name(r.emailTemplateID, null, names.email, r.emailTemplateName),
  };
}
