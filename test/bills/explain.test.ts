// A line's explanation in words: values the trace keeps to 50 digits are written to six
// decimals and "…", cut rather than rounded; the trace keeps them whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainLine } from '../../src/bills/explain.ts';
import { rateBill } from '../../src/rating/rateBill.ts';

test('a prorated charge: 100 x 15/31 = 48.387096… (cut, not rounded to 48.387097), the trace exact', () => {
  const b = rateBill({
    tariff: { components: [{ code: 'STANDING', name: 'Standing charge', model: 'flat', amount: '100', prorate: true }] },
    term: { start: '2025-01-01', end: '2025-01-31' },
    subscription: { startDate: '2025-01-17' },
    minorUnits: 2,
  });
  const line = b.lines[0]!;
  assert.equal(line.amount, '48.39');
  // 100 x 15/31 = 48.387096774193548387096774193548387096774193548387...
  assert.match(line.trace.unrounded, /^48\.3870967741935483870967741935483870967741935\d+$/);
  assert.equal(explainLine(line), 'Standing charge: flat 100; prorated 15/31 days: 100 to 48.387096…; 48.387096… rounded half up to 48.39.');
});
