// A credit note of a bill rated in segments (a price change inside the term) names each line's
// dates, as the bill does: "Service (01/10/2026 to 15/10/2026)" and "(16/10/2026 to 31/10/2026)",
// not the same name twice (a new user's walk, 2026-11-27). Rendered from data, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { creditNoteBlocks } from '../../src/corrections/creditNoteDocument.ts';
import { SAMPLE } from '../../src/documents/context.ts';

test("a credit note's lines carry their segments' dates", async () => {
  const line = SAMPLE.bill.lines[0]!;
  const lines = [
    { ...line, name: 'Service and network charge', periodStart: '01/10/2026', periodEnd: '15/10/2026', version: 1, amount: '-110.00' },
    { ...line, name: 'Service and network charge', periodStart: '16/10/2026', periodEnd: '31/10/2026', version: 2, amount: '-126.45' },
  ];
  const data = {
    ...SAMPLE,
    creditNote: { id: '1', number: '7', date: '28/11/2026', reason: 'misread', rebillNumber: '', charges: '-236.45', tax: '0.00', amount: '-236.45', lines },
  };
  const text = JSON.stringify(await creditNoteBlocks(data as never));
  assert.match(text, /Service and network charge \(01\/10\/2026 to 15\/10\/2026\)/);
  assert.match(text, /Service and network charge \(16\/10\/2026 to 31\/10\/2026\)/);
});
