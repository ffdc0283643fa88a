import { formatDate } from '../calendar/calendar.ts';
import type { SubscriptionRecord } from './schemas.ts';
import type { EventRow, SubscriptionRow } from './store.ts';

export function subscriptionRecord(r: SubscriptionRow, events?: EventRow[]): SubscriptionRecord {
  return {
    subscriptionID: Number(r.subscription_id),
    appCode: r.app_code,
    accountID: Number(r.account_id),
    accountNumber: r.account_number,
    serviceID: Number(r.service_id),
    serviceCode: r.service_code,
    batchID: Number(r.batch_id),
    batchCode: r.batch_code,
    connectionInputs: r.connection_inputs,
    unmeteredInputs: r.unmetered_inputs,
    startDate: formatDate(r.start_date),
    endDate: formatDate(r.end_date),
    status: r.status,
    documents: r.documents.map((d) => ({ ...d, date: formatDate(d.date) })),
    movedFromSubscriptionID: r.moved_from_subscription_id === null ? null : Number(r.moved_from_subscription_id),
    movedToSubscriptionID: r.moved_to_subscription_id === null ? null : Number(r.moved_to_subscription_id),
    createdAt: r.created_at,
    createdBy: r.created_by,
    modifiedAt: r.modified_at,
    modifiedBy: r.modified_by,
    ...(events
      ? {
          events: events.map((e) => ({ kind: e.kind, date: formatDate(e.effective_date), detail: e.detail, createdAt: e.created_at, createdBy: e.created_by })),
        }
      : {}),
  };
}
