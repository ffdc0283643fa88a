// The Rate column of a printed bill and of the console's bill page. An outside check: a
// commitment's rate across a version change (150 x 15/31 + 180 x 16/31) was printed with all
// its 50 digits and wrapped over two lines of the column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rateText } from '../../src/documents/billContext.ts';
import { lineWorking, rateText as consoleRate } from '../../console/src/components/lineText.ts';
import type { RatedLine } from '../../src/rating/index.ts';

const line = (rate: string, trace: Record<string, unknown>) => ({ rate, trace }) as unknown as RatedLine;
const LONG = '165.48387096774193548387096774193548387096774193548';

test('an exact rate of many digits is printed to six decimals and "…", cut, not rounded; short rates as they are', () => {
  const cases: [RatedLine, string, string][] = [
    [line(LONG, { model: 'commitment' }), '165.483870…', '165.483870…'],
    [line('0.666666666666666666666666666667', { model: 'perUnit' }), '0.666666…', '0.666666…'],
    [line('2.345', { model: 'graduated' }), '2.345', '2.345'],
    [line('16', { model: 'percentage' }), '16%', '16%'],
    [line('0.4512', { model: 'perUnitPerDay', days: 31 }), '0.4512 x 31 days', '0.4512 × 31 days'],
    [line('12.3456789', { model: 'perUnitPerDay', days: 1 }), '12.345678… x 1 day', '12.345678… × 1 day'],
  ];
  for (const [l, printed, shown] of cases) {
    assert.equal(rateText(l), printed);
    const t = l.trace as { model: string; days?: number };
    assert.equal(consoleRate(l.rate, t.model, t.days), shown);
  }
  assert.equal(lineWorking({ componentCode: 'MIN', quantity: '131.74', rate: LONG, amount: '33.74' }, 'commitment'), 'MIN 131.74 × 165.483870… = 33.74');
});
