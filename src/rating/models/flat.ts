import type { Dec } from '../money.ts';
import type { PreparedFlat } from '../prepareTariff.ts';
import type { FlatTrace, ModelResult } from '../trace.ts';
import type { ModelContext } from './context.ts';

/** A fixed amount per period. Proration (on by default for flat) is applied by rateLine. */
export function rateFlat(component: PreparedFlat, _quantity: Dec, _context: ModelContext): ModelResult<FlatTrace> {
  return { amount: component.amount, rate: component.amount, trace: { model: 'flat', amount: component.amount.toFixed() } };
}
