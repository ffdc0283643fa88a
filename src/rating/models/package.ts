import type { Dec } from '../money.ts';
import type { PreparedPackage } from '../prepareTariff.ts';
import type { ModelResult, PackageTrace } from '../trace.ts';
import type { ModelContext } from './context.ts';

/** price per started block of `size` units: 0 units is 0 blocks, 1 unit is 1 block, size + 1 units is 2. */
export function ratePackage(component: PreparedPackage, quantity: Dec, _context: ModelContext): ModelResult<PackageTrace> {
  const blocks = quantity.div(component.size).ceil();
  return {
    amount: blocks.times(component.price),
    rate: component.price,
    trace: {
      model: 'package',
      quantity: quantity.toFixed(),
      size: component.size.toFixed(),
      blocks: blocks.toFixed(),
      price: component.price.toFixed(),
    },
  };
}
