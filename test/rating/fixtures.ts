// Shared test helpers (not a test file: run the suite with 'test/rating/*.test.ts').
import { Dec } from '../../src/rating/money.ts';
import type { ModelContext } from '../../src/rating/models/context.ts';
import { prepareTariff, type PreparedComponent } from '../../src/rating/prepareTariff.ts';
import type { Component, Tariff } from '../../src/rating/tariff.ts';

export const inputs = {
  meteredInputs: [
    { code: 'water', label: 'Water', unit: 'm3', decimals: 2, rolloverAt: 100000 },
    { code: 'power', label: 'Power', unit: 'kWh', decimals: 0 },
  ],
  unmeteredInputs: [
    { code: 'rooms', label: 'Rooms', default: 1 },
    { code: 'bins', label: 'Bins' },
  ],
} satisfies Tariff;

/** One component, prepared as rateBill would, on the shared inputs. */
export function prep<T extends PreparedComponent['model']>(
  component: Component & { model: T },
  extra: Partial<Tariff> = {},
): Extract<PreparedComponent, { model: T }> {
  const prepared = prepareTariff({ ...inputs, ...extra, components: [...(extra.components ?? []), component] });
  return prepared.components[prepared.components.length - 1] as Extract<PreparedComponent, { model: T }>;
}

export function ctx(over: Partial<ModelContext> = {}): ModelContext {
  return { activeDays: 31, termDays: 31, minorUnits: 2, rounding: 'halfUp', amounts: [], ...over };
}

export const d = (x: string | number): Dec => new Dec(String(x));

/** A full bill's tariff: flat 250 + 3 graduated tiers on water + 10% sewer + 16% VAT (a percentage of a percentage). */
export const fullBillTariff = (): Tariff => ({
  values: [{ code: 'VAT', label: 'VAT rate', value: '16' }],
  meteredInputs: [{ code: 'water', label: 'Water', unit: 'm3', decimals: 0, rolloverAt: 100000 }],
  components: [
    { code: 'standing', name: 'Standing charge', model: 'flat', amount: '250.00' },
    {
      code: 'water',
      name: 'Water',
      model: 'graduated',
      input: 'water',
      tiers: [
        { upTo: 10, rate: '48.75' },
        { upTo: 30, rate: '61.20' },
        { upTo: null, rate: '83.10' },
      ],
    },
    { code: 'sewer', name: 'Sewer surcharge', model: 'percentage', percentage: '10', of: ['water'] },
    { code: 'vat', name: 'VAT', model: 'percentage', category: 'tax', percentage: { value: 'VAT' }, of: ['standing', 'water', 'sewer'] },
  ],
});
