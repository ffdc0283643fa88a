// A late charge's trace: what late_charge.trace stores (migration 106) and the trace
// get-late-charges shows. The row stores only what its own columns do not hold (the rule as
// applied, which an app default changed later would not give again, and the computation's
// unrounded figures); the bill, the day, the version, the overdue amount and the amount are
// the row's columns and its bill's, put back in their places when read. The job writes up
// to a million rows a run: the whole trace written into every row was 60% of its insert.
import type { LateChargeTrace } from '../rating/lateCharge.ts';
import { formatDate } from '../calendar/calendar.ts';
import { moneyText } from '../rating/money.ts';

/** What late_charge.trace holds. */
export type StoredLateChargeTrace = {
  rule: LateChargeTrace['rule'];
  base: string;
  limit?: 'minimum' | 'maximum';
  unrounded: string;
  rounding: LateChargeTrace['computation']['rounding'];
};

/** The trace a client reads: the bill, the day, the version whose rule applied, and the core's trace. */
export type LateChargeTraceShown = LateChargeTrace & {
  bill: { billID: number; billNumber: number; dueDate: string };
  chargeDate: string;
  serviceVersionID: number;
};

/** The part of the core's trace the row keeps. */
export function storedTrace(trace: LateChargeTrace): StoredLateChargeTrace {
  const c = trace.computation;
  const stored: StoredLateChargeTrace = { rule: trace.rule, base: c.base, unrounded: c.unrounded, rounding: c.rounding };
  if (c.limit !== undefined) stored.limit = c.limit;
  return stored;
}

/** The whole trace again, from the row (dates as the database gives them, amounts to the app's minor units). */
export function shownTrace(row: {
  bill_id: string;
  bill_number: string;
  due_date: string;
  charge_date: string;
  service_version_id: string;
  overdue: string;
  amount: string;
  minor_units: number;
  trace: StoredLateChargeTrace;
}): LateChargeTraceShown {
  const t = row.trace;
  // In the order the core traces it (rating/lateCharge.ts).
  const computation: LateChargeTraceShown['computation'] = { base: t.base, unrounded: t.unrounded, rounding: t.rounding, amount: moneyText(row.amount, row.minor_units) };
  if (t.limit !== undefined) computation.limit = t.limit;
  return {
    bill: { billID: Number(row.bill_id), billNumber: Number(row.bill_number), dueDate: formatDate(row.due_date) },
    chargeDate: formatDate(row.charge_date),
    serviceVersionID: Number(row.service_version_id),
    overdue: moneyText(row.overdue, row.minor_units),
    rule: t.rule,
    computation,
  };
}
