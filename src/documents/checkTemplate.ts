// A template is checked when it is saved, never first when a bill is rendered: it is
// parsed and filled with the sample bill, whose every field is set (and again for a
// subscription without connection inputs), so a syntax error,
// an unknown filter or a misspelt field is refused naming its line; an invoice is laid
// out too, so one that runs past the page limit is refused here, not at a bill.
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { SAMPLE, SAMPLE_WITHOUT_INPUTS } from './context.ts';
import { compile, fill, layoutEngine, SAMPLE_LIMITS, textEngine, TemplateError } from './liquid.ts';
import { parseLayout, renderPdf } from './pdf.ts';
import { pdfMeta } from './render.ts';
import type { TemplateKind } from './schemas.ts';

/** Refuses a template that cannot make its document; an invoice's answers the sample bill's PDF it laid out (a preview shows it). */
export async function checkTemplate(kind: TemplateKind, subject: string | null | undefined, body: string): Promise<Buffer | undefined> {
  const issues: ErrorDetail[] = [];
  let pdf: Buffer | undefined;
  if (kind === 'email' && !subject) issues.push({ path: 'data.subject', message: 'an e-mail template needs a subject' });
  if (kind === 'invoice' && subject) issues.push({ path: 'data.subject', message: 'an invoice template has no subject' });
  const parts: [string, string][] = [['data.body', body]];
  if (kind === 'email' && subject) parts.unshift(['data.subject', subject]);
  const engine = kind === 'invoice' ? layoutEngine : textEngine;
  for (const [path, text] of parts) {
    const { template, issue } = compile(engine, text, path);
    if (issue) {
      issues.push(issue);
      continue;
    }
    const filled = await fill(engine, template!, SAMPLE, path, SAMPLE_LIMITS);
    // The same template filled for a subscription without connection inputs.
    const bare = filled.issue ? undefined : (await fill(engine, template!, SAMPLE_WITHOUT_INPUTS, path, SAMPLE_LIMITS)).issue;
    if (filled.issue) issues.push(filled.issue);
    else if (bare) issues.push({ ...bare, message: `${bare.message} (filled for a subscription without connection inputs: ask {% if bill.subscription.inputs.size > 0 %} first)` });
    else if (kind === 'invoice') {
      try {
        pdf = await renderPdf(parseLayout(filled.text!), pdfMeta(SAMPLE), SAMPLE_LIMITS.pages);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        issues.push({ ...err.issue, path });
      }
    }
  }
  if (issues.length > 0) throw validationFailed(issues, 'The template is not valid.');
  return pdf;
}
