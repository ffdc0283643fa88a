// Billing cycles: a template's billingCycle lookup id (templates/schemas.ts, BILLING_CYCLES)
// as a number of months. The one table, for the schedules' periods (schedules/periods.ts)
// and a Prepaid term's cycle (billRun/prepaid.ts); the months are added to dates by the
// rating core's addMonths (rating/days.ts). Pure: no clock, no I/O, nothing above calendar/.

/** Months per period by billingCycle id: Monthly, Bi-monthly, Quarterly, Half-yearly, Yearly. */
export const CYCLE_MONTHS = Object.freeze({ 1: 1, 2: 2, 3: 3, 4: 6, 5: 12 } as const);

export type BillingCycleId = keyof typeof CYCLE_MONTHS;

/** The months of a billingCycle id; a RangeError for any other number (a template's is checked when it is saved). */
export function cycleMonths(billingCycle: number): number {
  const m = CYCLE_MONTHS[billingCycle as BillingCycleId];
  if (m === undefined) throw new RangeError(`billingCycle ${billingCycle} is not one of 1 to 5`);
  return m;
}
