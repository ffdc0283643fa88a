// Clients generated from the served OpenAPI document, as an integrator makes them. Zod
// generators (openapi-zod-client, @hey-api/openapi-ts with its zod plugin) write every
// `pattern` of the document into a JavaScript regular-expression literal, escaping `/`.
// A raw line terminator (U+2028 LINE SEPARATOR here) inside a pattern is legal JSON and a
// legal RegExp source, but a regular-expression literal may not contain one: the generated
// module does not parse ("SyntaxError: Invalid regular expression: missing /", tsc TS1161
// "Unterminated regular expression literal"). Written as the escape \u2028 the pattern means
// the same to every ECMAScript engine, with or without the u flag.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { startHarness, type Harness } from '../support/harness.ts';

describe('clients generated from the OpenAPI document', () => {
  let h: Harness;
  let doc: unknown;
  before(async () => {
    h = await startHarness();
    const r = await fetch(`${h.url}/openapi.json`);
    assert.equal(r.status, 200);
    doc = await r.json();
  });
  after(async () => {
    await h.close();
  });

  /** Every `pattern` keyword of the document, with the JSON path where it stands. */
  const patterns = (): { where: string; pattern: string }[] => {
    const out: { where: string; pattern: string }[] = [];
    const walk = (o: unknown, where: string): void => {
      if (!o || typeof o !== 'object') return;
      for (const [k, v] of Object.entries(o)) {
        if (k === 'pattern' && typeof v === 'string') out.push({ where, pattern: v });
        else walk(v, `${where}/${k}`);
      }
    };
    walk(doc, '#');
    return out;
  };

  test('every pattern, written into a regular-expression literal as zod generators write it, parses', () => {
    const all = patterns();
    assert.ok(all.length > 0);
    const hex = (s: string) => [...s].filter((c) => /[\n\r\u2028\u2029]/.test(c)).map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    const broken = new Map<string, { count: number; first: string; terminators: string[]; error: string }>();
    for (const { where, pattern } of all) {
      // Each one compiles as a RegExp, with and without the u flag (this holds today).
      assert.doesNotThrow(() => new RegExp(pattern), where);
      assert.doesNotThrow(() => new RegExp(pattern, 'u'), where);
      const literal = `/${pattern.replace(/(?<!\\)\//g, '\\/')}/`;
      let error = '';
      try {
        new vm.Script(`(${literal});`);
      } catch (e) {
        error = (e as Error).message;
      }
      if (!error) continue;
      const seen = broken.get(pattern);
      if (seen) seen.count++;
      else broken.set(pattern, { count: 1, first: where, terminators: hex(pattern), error });
    }
    assert.deepEqual(
      [...broken.values()].map((b) => `${b.count} place(s), first ${b.first}: raw ${b.terminators.join(' ')} in the pattern; ${b.error}`),
      [],
    );
  });
});
