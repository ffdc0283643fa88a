// A CSV file that stops being UTF-8 is refused at the line where it does, whatever the chunks
// it arrives in (src/imports/rows.ts, strictUtf8). A reviewer's case: a character cut across
// two chunks made the next chunk's first line the one named, 51 lines early.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Readable } from 'node:stream';
import { csvRows, SourceError } from '../../src/imports/rows.ts';

async function refusedAt(chunks: Buffer[]): Promise<string | null> {
  try {
    for await (const _ of csvRows(Readable.from(chunks), 'accounts'));
    return null;
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    return err.errors[0]!.path;
  }
}

const lines = (n: number, prefix: string, name: string) => Array.from({ length: n }, (_, i) => `${prefix}${i},${name}\n`).join('');
const head = `accountNumber,name\n${lines(10, 'A', 'José')}A10,Jos`;
const e = Buffer.from('é');
const tail = Buffer.concat([Buffer.from(`\n${lines(50, 'B', 'Ok')}BAD,`), Buffer.from([0xff]), Buffer.from('\n')]);
// Line 1 the header, 2 to 12 the A rows, 13 to 62 the B rows: the bad byte is on line 63.
const whole = Buffer.concat([Buffer.from(head), e, tail]);

test('one chunk: the line of the bad byte', async () => assert.equal(await refusedAt([whole]), 'rows[63]'));
test('a character cut across two chunks: still the line of the bad byte', async () => {
  const cut = Buffer.from(head).length + 1;
  assert.equal(await refusedAt([whole.subarray(0, cut), whole.subarray(cut)]), 'rows[63]');
});
test('chunks of 7 bytes', async () => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < whole.length; i += 7) chunks.push(whole.subarray(i, i + 7));
  assert.equal(await refusedAt(chunks), 'rows[63]');
});
test('a U+FFFD the file holds is text, not the bad byte', async () => {
  assert.equal(await refusedAt([Buffer.concat([Buffer.from('accountNumber,name\nX1,\ufffd\n'), Buffer.from([0xfe]), Buffer.from(',y\n')])]), 'rows[3]');
});
test('a file cut inside a character: its last line', async () => {
  assert.equal(await refusedAt([Buffer.concat([Buffer.from('accountNumber,name\nX1,a\nX2,Jos'), e.subarray(0, 1)])]), 'rows[3]');
});
test('UTF-8 all through: no refusal', async () => assert.equal(await refusedAt([Buffer.from(`accountNumber,name\n${lines(3, 'C', '王芳 Zoë')}`)]), null));
