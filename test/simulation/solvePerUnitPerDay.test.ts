// A reviewer's finding (perUnitPerDay): simulate-tariff's solve of a draft's rate. A
// perUnitPerDay component is priced by one number, its `rate` (per kW or kVA per day), as a
// perUnit component is; revenue grows with it (quantity x days x rate), so a revenue-neutral
// solve of a new demand rate is what a tariff officer asks. solve.ts's DEFAULT_PARAMETER and
// PARAMETERS were not given the new model: locateRate answers VALIDATION_FAILED on
// data.solve.parameter, "a perUnitPerDay component has no rate to solve (it has )" (an empty
// list, even), so simulate-tariff refuses the request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dec } from '../../src/rating/index.ts';
import { locateRate, withRate } from '../../src/simulation/solve.ts';
import type { Tariff } from '../../src/rating/tariff.ts';

const draft: Tariff = {
  meteredInputs: [{ code: 'DEMAND', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
  unmeteredInputs: [{ code: 'CAPACITY', label: 'Contracted capacity (kVA)', default: 50 }],
  components: [
    { code: 'DEMAND', name: 'Demand charge', model: 'perUnitPerDay', input: 'DEMAND', rate: '0.4512' },
    { code: 'CAPACITY', name: 'Capacity charge', model: 'perUnitPerDay', input: 'CAPACITY', rate: '0.2100' },
  ],
};

test("a perUnitPerDay component's rate can be solved: its default parameter is rate", () => {
  const at = locateRate(draft, { componentCode: 'DEMAND' }, 'data.solve');
  assert.ok(!Array.isArray(at), `refused: ${JSON.stringify(at)}`);
  assert.equal(at.parameter, 'rate');
  assert.equal(at.componentIndex, 0);
  assert.equal(at.current.toFixed(), new Dec('0.4512').toFixed());
  // and named explicitly, as for perUnit
  const named = locateRate(draft, { componentCode: 'CAPACITY', parameter: 'rate' }, 'data.solve');
  assert.ok(!Array.isArray(named), `refused: ${JSON.stringify(named)}`);
  const solved = withRate(draft, named, '0.25');
  assert.equal((solved.components![1] as { rate: string }).rate, '0.25');
});
