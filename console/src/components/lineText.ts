// A bill line's rate and working as a person reads them. A percentage line's rate is the
// percentage and its quantity the base: shown as "83.86 × 2.9", an officer read a tax
// multiplied by 2.9 (a new tenant's walk).

/**
 * The rate column: "60%" for a percentage line; a rate per unit per day with the days it is
 * times ("0.4512 × 31 days" beside 52.4 kVA, so quantity × rate is the amount); the rate as
 * it is otherwise.
 */
export function rateText(given: string | null | undefined, model: string | undefined, days?: number): string {
  if (given === null || given === undefined || given === '') return '';
  const rate = short(given);
  if (model === 'perUnitPerDay' && days !== undefined) return `${rate} × ${days} day${days === 1 ? '' : 's'}`;
  return model === 'percentage' ? `${rate}%` : rate;
}

/**
 * An exact value of many digits (a commitment's rate over a version change, 150 x 15/31 +
 * 180 x 16/31) cut to six decimals and "…", as the server's explanations and bills write it
 * (shortFractions, src/bills/explain.ts): the 50 digits ran out of the Rate column.
 */
const short = (value: string): string => value.replace(/(\d\.\d{6})\d+/g, '$1…');

/** One line in words: "SEWER 60% of 40.85 = 24.51", "WATER 25 × 3.5 = 87.50". */
export function lineWorking(l: { componentCode: string; quantity: string; rate?: string | null; amount: string; prorated?: string; days?: number }, model: string | undefined): string {
  if (model === 'perUnitPerDay' && l.days !== undefined) return `${l.componentCode} ${l.quantity} × ${rateText(l.rate, model, l.days)} = ${l.amount}`;
  if (model === 'percentage') return `${l.componentCode} ${rateText(l.rate, model)} of ${l.quantity} = ${l.amount}`;
  if (model === 'totalRounding') return `${l.componentCode}: ${l.quantity} rounded, ${l.amount}`;
  // A prorated line's quantity and rate are the whole period's: "DESK 1 × 250 = 137.10" did not add up (an officer's walk).
  return `${l.componentCode} ${l.quantity}${l.rate ? ` × ${short(l.rate)}` : ''}${l.prorated ? ` for ${l.prorated}` : ''} = ${l.amount}`;
}
