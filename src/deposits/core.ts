/**
 * The arithmetic of a security deposit (a template's securityDeposit), pure: no I/O, no
 * clock, exact decimals. A deposit is charged in full; what payments have paid of it is
 * held; on termination the unpaid part is cancelled, what is held pays the
 * subscription's open bills (oldest due first, line by line, through the settlement
 * core) and the rest is refunded. So for every released deposit:
 *   amount = unpaid + applied + refunded,  held = applied + refunded.
 */
import { Dec, roundMoney, type RoundingMode } from '../rating/money.ts';
import { settle, type Allocation, type OpenDebit } from '../settlement/core.ts';

/** The method an allocation made by a deposit records (allocation.method). */
export const DEPOSIT_METHOD = 'Deposit';

/** The settlement category of a deposit's open item (the other items are 'bill' ones). */
export const DEPOSIT_CATEGORY = 'deposit';

/**
 * The deposit a template asks for, at the currency's minor units by the app's rounding
 * rule; null when it asks for none (null, or an amount that rounds to zero).
 */
export function depositAmount(securityDeposit: string | null | undefined, minorUnits: number, mode: RoundingMode): Dec | null {
  if (securityDeposit === null || securityDeposit === undefined || !/^[0-9]+(\.[0-9]+)?$/.test(securityDeposit)) return null;
  const amount = roundMoney(new Dec(securityDeposit), minorUnits, mode);
  return amount.gt(0) ? amount : null;
}

/** What is held of a deposit: what payments have paid of it (its amount less what is still unpaid). */
export function heldOf(amount: Dec, unpaid: Dec): Dec {
  return Dec.max(0, amount.minus(Dec.max(0, unpaid)));
}

/**
 * The top-up a move charges: the new template's deposit less what the subscription
 * carries already (never below zero: a smaller deposit refunds nothing until termination).
 */
export function topUp(carried: Dec, wanted: Dec | null): Dec {
  return wanted === null ? new Dec(0) : Dec.max(0, wanted.minus(carried));
}

export type ReleasingDeposit = {
  depositId: string;
  /** The release entry written for it (its credit spends on the bills). */
  releaseEntryId: string;
  /** yyyy-mm-dd: deposits are spent oldest first. */
  date: string;
  amount: Dec;
  /** What is still unpaid of its charge. */
  unpaid: Dec;
};

export type DepositOutcome = { depositId: string; releaseEntryId: string; amount: Dec; unpaid: Dec; held: Dec; applied: Dec; refunded: Dec };

/**
 * What terminating a subscription does with its deposits: each one's held part applied
 * to the open bills (Chronology: the oldest due first, within a bill its lines in order)
 * and the rest refunded. Answers each deposit's outcome and the allocations on the
 * bills (method 'Deposit'); the unpaid part is cancelled against the charge itself.
 */
export function planRelease(deposits: readonly ReleasingDeposit[], bills: readonly OpenDebit[]): { outcomes: DepositOutcome[]; allocations: Allocation[] } {
  const held = deposits.map((d) => ({ ...d, held: heldOf(d.amount, d.unpaid) }));
  const result = settle({
    debits: bills,
    credits: held.map((d) => ({ entryId: d.releaseEntryId, date: d.date, open: d.held })),
    method: 'Chronology',
  });
  const allocations = result.allocations.map((a) => ({ ...a, method: DEPOSIT_METHOD }));
  const outcomes = held.map((d) => {
    const applied = allocations.filter((a) => a.creditEntryId === d.releaseEntryId).reduce((s, a) => s.plus(a.amount), new Dec(0));
    const unpaid = d.amount.minus(d.held);
    return { depositId: d.depositId, releaseEntryId: d.releaseEntryId, amount: d.amount, unpaid, held: d.held, applied, refunded: d.held.minus(applied) };
  });
  return { outcomes, allocations };
}
