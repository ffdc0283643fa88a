// A bill's document and e-mail from a template and the bill's data: the one place that
// turns a template into output, used by the save-time check, previews, jobs and delivery.
import { BILL_LIMITS, compile, fill, layoutEngine, textEngine, TemplateError, type Compiled, type DocumentLimits } from './liquid.ts';
import { parseLayout, renderPdf, type Block } from './pdf.ts';
import type { DocumentData } from './context.ts';

export type InvoiceSource = { body: string };
export type EmailSource = { subject: string; body: string };

export { TemplateError };

const isoDate = (dmy: string) => {
  const [d, m, y] = dmy.split('/');
  return new Date(`${y}-${m}-${d}T00:00:00Z`);
};

/** The blocks of a bill's document: the template filled with the data. Throws TemplateError. */
export async function invoiceBlocks(source: InvoiceSource | Compiled, data: DocumentData, path = 'body', limits: DocumentLimits = BILL_LIMITS): Promise<Block[]> {
  let template: Compiled;
  if (Array.isArray(source)) template = source;
  else {
    const compiled = compile(layoutEngine, source.body, path);
    if (!compiled.template) throw new TemplateError(compiled.issue!);
    template = compiled.template;
  }
  const filled = await fill(layoutEngine, template, data, path, limits);
  if (filled.text === undefined) throw new TemplateError(filled.issue!);
  return parseLayout(filled.text);
}

/** A compiled invoice template, for rendering many bills with it. Throws TemplateError. */
export function compileInvoice(source: InvoiceSource): Compiled {
  const compiled = compile(layoutEngine, source.body, 'body');
  if (!compiled.template) throw new TemplateError(compiled.issue!);
  return compiled.template;
}

export const pdfMeta = (data: DocumentData) => ({
  title: `Bill ${data.bill.number}`,
  author: data.app.name,
  footer: `Bill ${data.bill.number}, account ${data.account.number}`,
  // The bill's own date, never the clock: the same bill gives the same bytes.
  creationDate: isoDate(data.bill.date),
});

/** The bill's PDF: the template filled with the data, laid out. Throws TemplateError. */
export async function renderInvoice(source: InvoiceSource | Compiled, data: DocumentData, path = 'body', limits: DocumentLimits = BILL_LIMITS): Promise<Buffer> {
  return renderPdf(await invoiceBlocks(source, data, path, limits), pdfMeta(data), limits.pages);
}


// Parsed e-mail templates by their text: every message of a term has the same template,
// and parsing it again per message was work for nothing. Bounded; a template's text is
// the key, so an updated template is parsed anew.
const parsedText = new Map<string, Compiled>();
function compiledText(text: string, path: string): Compiled {
  const key = `${path}\u0000${text}`;
  let template = parsedText.get(key);
  if (!template) {
    const compiled = compile(textEngine, text, path);
    if (!compiled.template) throw new TemplateError(compiled.issue!);
    if (parsedText.size >= 100) parsedText.clear();
    parsedText.set(key, (template = compiled.template));
  }
  return template;
}

/** The e-mail's subject (one line) and plain-text body. Throws TemplateError. */
export async function renderEmail(source: EmailSource, data: DocumentData, limits: DocumentLimits = BILL_LIMITS): Promise<{ subject: string; text: string }> {
  const out: string[] = [];
  for (const [path, text] of [['subject', source.subject], ['body', source.body]] as const) {
    const template = compiledText(text, path);
    const filled = await fill(textEngine, template, data, path, limits);
    if (filled.text === undefined) throw new TemplateError(filled.issue!);
    out.push(filled.text);
  }
  return { subject: out[0]!.replace(/\s+/g, ' ').trim(), text: out[1]! };
}
