// The renderer keeps font subsets and deflated font streams across documents
// (src/documents/embedCache.ts). A document must not depend on what was rendered before
// it: bills in different scripts, rendered one after another in this process, give the
// bytes a fresh process gives each of them alone, and each still holds its own text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { SAMPLE, type DocumentData } from '../../src/documents/context.ts';
import { renderInvoice } from '../../src/documents/render.ts';
import { DEFAULT_INVOICE_BODY } from '../../src/documents/defaults.ts';
import { needsPoppler, pdfFonts, pdfText } from './support.ts';

const NAMES = ['Amina Otieno', '王芳 Li', 'مريم Haddad', 'Zoë Жанна Ελένη', 'Amina Otieno-Kamau 2'];

const bill = (name: string, i: number): DocumentData => ({
  ...SAMPLE,
  account: { ...SAMPLE.account, name },
  bill: { ...SAMPLE.bill, number: String(90_000 + i * 37) },
});

const render = (name: string, i: number) => renderInvoice({ body: DEFAULT_INVOICE_BODY }, bill(name, i));

// The child: one bill in a process that has rendered nothing before it.
if (process.argv[2] === '--render-one') {
  const i = Number(process.argv[3]);
  process.stdout.write((await render(NAMES[i]!, i)).toString('base64'));
  process.exit(0);
}

describe('documents rendered one after another', () => {
  test('give the same bytes as each alone in a fresh process, with their own text and fonts', { skip: needsPoppler() }, async () => {
    const together: Buffer[] = [];
    // twice round, so the second round meets every cache warm
    for (let round = 0; round < 2; round++) for (const [i, name] of NAMES.entries()) together[i] = await render(name, i);
    for (const [i, name] of NAMES.entries()) {
      const alone = Buffer.from(execFileSync(process.execPath, [import.meta.filename, '--render-one', String(i)], { encoding: 'utf8' }), 'base64');
      assert.ok(together[i]!.equals(alone), `${name}: the same bytes after other bills as alone`);
      const text = pdfText(alone).replace(/[\u200e\u200f\u202a-\u202e]/g, '');
      for (const part of name.split(' ')) assert.ok(text.includes(part), `${part} not in the text of ${name}'s bill`);
      assert.ok(text.includes(String(90_000 + i * 37)), `${name}: the bill number`);
      assert.doesNotMatch(pdfFonts(alone), /\sno\s+(yes|no)\s+(yes|no)\s/, 'every font embedded');
    }
  });
});
