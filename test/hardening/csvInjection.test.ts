// The one CSV writer (src/csv.ts): what a spreadsheet would run as a formula is kept as text,
// numbers as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField } from '../../src/csv.ts';

test('csvField: formulas kept as text, numbers and plain text as they are, RFC 4180 quoting', () => {
  const cases: [unknown, string][] = [
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['-2+3', "'-2+3"],
    ['-5.00', '-5.00'],
    ['-0.01', '-0.01'],
    ['12.50', '12.50'],
    ['a=b', 'a=b'],
    ['Smith, J', '"Smith, J"'],
    ['=A1,B1', `"'=A1,B1"`],
    ['say "hi"', '"say ""hi"""'],
    [null, ''],
    [undefined, ''],
    [42, '42'],
    [-7, '-7'],
  ];
  for (const [value, written] of cases) assert.equal(csvField(value), written, JSON.stringify(value));
});
