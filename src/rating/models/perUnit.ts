import type { Dec } from '../money.ts';
import type { PreparedPerUnit } from '../prepareTariff.ts';
import type { ModelResult, PerUnitTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';

/** rate x quantity. */
export function ratePerUnit(component: PreparedPerUnit, quantity: Dec, _context: ModelContext): ModelResult<PerUnitTrace> {
  return {
    amount: quantity.times(component.rate),
    rate: component.rate,
    trace: { model: 'perUnit', quantity: quantity.toFixed(), rate: component.rate.toFixed() },
  };
}
