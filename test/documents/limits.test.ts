// A template's limits (src/documents/liquid.ts): the sample bill's, strict, at save and
// preview, where a template past them loops on its own; a real bill's, wide, so an account
// billed for hundreds of meters on one bill still gets its document (a reviewer's case: the
// sample's 50 pages would have refused a Post Account bill of 300 subscriptions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE, type DocumentData } from '../../src/documents/context.ts';
import { renderInvoice, TemplateError } from '../../src/documents/render.ts';
import { DEFAULT_INVOICE_BODY } from '../../src/documents/defaults.ts';
import { SAMPLE_LIMITS } from '../../src/documents/liquid.ts';

const manyLines = (n: number): DocumentData => ({
  ...SAMPLE,
  bill: { ...SAMPLE.bill, lines: Array.from({ length: n }, (_, i) => ({ ...SAMPLE.bill.lines[i % SAMPLE.bill.lines.length]!, name: `Meter ${i + 1} water` })) },
});

test("a real bill of 2,400 lines gets its document; the sample's limits would refuse it", async () => {
  const data = manyLines(2400);
  const pdf = await renderInvoice({ body: DEFAULT_INVOICE_BODY }, data);
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  await assert.rejects(renderInvoice({ body: DEFAULT_INVOICE_BODY }, data, 'body', SAMPLE_LIMITS), (e: unknown) => e instanceof TemplateError && /runs past 50 pages/.test(e.message));
});
