// The term's events: what a client is told when a term moves, in the move's transaction.
import type { Queryable } from '../db/pool.ts';
import type { TermRow } from './termStore.ts';
import type { TermStatus } from './termStates.ts';
import { moneyText } from '../rating/money.ts';
import { recordEvent } from '../events/record.ts';
import type { EventType } from '../events/types.ts';

export const termOrderKey = (termId: string | number) => `term:${termId}`;

/** The event of a term's move to `status`, with the term as it stands (and `extra`). */
export function recordTermEvent(tx: Queryable, term: TermRow, type: EventType, status: TermStatus, extra: Record<string, unknown> = {}): Promise<string> {
  return recordEvent(tx, term.app_code, type, termOrderKey(term.term_id), {
    termID: Number(term.term_id),
    serviceCode: term.service_code,
    batchCode: term.batch_code,
    billingPeriodID: term.billing_period_id,
    label: term.label,
    status,
    billCount: term.bill_count,
    failureCount: term.failure_count,
    totalDue: moneyText(term.total_due, term.minor_units),
    ...extra,
  });
}
