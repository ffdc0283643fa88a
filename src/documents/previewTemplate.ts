// A template shown with the sample bill before it is saved or used: an invoice as its
// PDF, an e-mail as its subject and text. A draft is checked as a save would check it,
// and only for those who may save one (admin): a viewer's drafts were a way to make the
// process render whatever it was sent (docs/hardening.md); saved templates anyone may see.
import type { Queryable } from '../db/pool.ts';
import { AppError, validationFailed } from '../errors.ts';
import { roleAllows, type Role } from '../auth/roles.ts';
import { SAMPLE_LIMITS, TemplateError } from './liquid.ts';
import type { RawAnswer } from '../http/operation.ts';
import { SAMPLE, sampleOfApp } from './context.ts';
import { checkTemplate } from './checkTemplate.ts';
import { renderEmail, renderInvoice } from './render.ts';
import { resolveTemplate } from './resolveTemplate.ts';
import type { PreviewTemplateData } from './schemas.ts';

export async function previewTemplate(db: Queryable, appCode: number, role: Role, d: PreviewTemplateData): Promise<RawAnswer> {
  if (d.body !== undefined && !roleAllows(role, 'admin')) {
    throw new AppError('FORBIDDEN', 'Only an admin may preview a draft template (one that is not saved); a saved one is previewed by its templateID.', [{ path: 'data.body', message: 'needs the admin role' }]);
  }
  try {
    return await preview(db, appCode, d);
  } catch (err) {
    // A saved template older than a limit, or one the sample's layout cannot fit.
    if (err instanceof TemplateError) throw validationFailed([{ ...err.issue, path: `data.${err.issue.path.replace(/^data\./, '')}` }], 'The template cannot make its document.');
    throw err;
  }
}

async function preview(db: Queryable, appCode: number, d: PreviewTemplateData): Promise<RawAnswer> {
  let kind = d.kind;
  let subject: string | null | undefined = d.subject;
  let body = d.body;
  if (body === undefined) {
    if (d.templateID === undefined) throw validationFailed([{ path: 'data.body', message: 'give a draft body or a templateID' }]);
    const stored = d.templateID === 0 && kind === undefined ? undefined : await findAnyKind(db, appCode, d.templateID, kind, d.version);
    if (!stored) throw validationFailed([{ path: 'data.kind', message: 'templateID 0 needs a kind' }]);
    ({ kind, subject, body } = stored);
  } else if (kind === undefined) {
    throw validationFailed([{ path: 'data.kind', message: 'a draft needs its kind' }]);
  } else {
    // Checked as a save checks it, against SAMPLE itself; shown below under the app's name.
    await checkTemplate(kind, subject, body);
  }
  // With the sample bill under the app's own name and currency, and the sample's limits, as a
  // save's check has (liquid.ts).
  const app = await db.query<{ name: string; address: string | null; currency: string; tax_number: string | null }>('SELECT name, address, currency, tax_number FROM app WHERE app_code = $1', [appCode]);
  const sample = app.rows[0] === undefined ? SAMPLE : sampleOfApp(app.rows[0]);
  if (kind === 'invoice') return { type: 'application/pdf', payload: await renderInvoice({ body: body! }, sample, 'body', SAMPLE_LIMITS) };
  const mail = await renderEmail({ subject: subject ?? '', body: body! }, sample, SAMPLE_LIMITS);
  return { type: 'text/plain; charset=utf-8', payload: `Subject: ${mail.subject}\n\n${mail.text}` };
}

async function findAnyKind(db: Queryable, appCode: number, id: number, kind: PreviewTemplateData['kind'], version?: number) {
  for (const k of kind ? [kind] : (['invoice', 'email'] as const)) {
    try {
      return await resolveTemplate(db, appCode, k, id, version);
    } catch (err) {
      if (kind) throw err;
    }
  }
  return resolveTemplate(db, appCode, 'invoice', id, version);
}
