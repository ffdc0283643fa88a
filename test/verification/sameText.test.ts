import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameText } from '../../src/verification/verifyBills.ts';

// The fast comparison of a stored value with a rerated one: equal only when they are the
// same number; anything it cannot tell is left to the decimals (false here).
test('sameText: the same number written with zeros more, and nothing else', () => {
  const cases: [unknown, string, boolean][] = [
    ['1855.00', '1855.00', true],
    ['1855.0000', '1855.00', true], // numeric(20,4) against the currency's 2 decimals
    ['1855.0000', '1855', true], // a currency without minor units
    ['1855.0010', '1855.00', false], // a tenth of a cent more
    ['1855.01', '1855.00', false],
    ['18550.00', '1855', false],
    ['1855.', '1855', false],
    ['-0.0000', '0.00', false], // left to the decimals, which call it equal
    ['12', '12.00', false], // shorter stored text: left to the decimals
    [1855, '1855', false], // not text (an altered JSON line): left to the decimals
    [undefined, '1.00', false],
  ];
  for (const [stored, rerated, want] of cases) assert.equal(sameText(stored, rerated), want, `${JSON.stringify(stored)} vs ${rerated}`);
});
