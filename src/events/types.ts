// Every event type, in one place: the API's enum of event types, the endpoints'
// subscriptions and docs/webhooks.md all read this list. A feature adds its type here
// and one recordEvent call in the transaction of its change.
export const EVENT_TYPES = [
  'term.scheduled',
  'term.processed',
  'term.failed',
  'term.posted',
  'term.cancelled',
  'term.reversed',
  'bill.posted',
  'bill.delivered',
  'bill.delivery_failed',
  'payment.received',
  'payment.reversed',
  'import.finished',
  'credit_note.made',
  'credit_note.delivered',
  'credit_note.delivery_failed',
  'late_charge.made',
  'webhook.endpoint_disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(t: string): t is EventType {
  return (EVENT_TYPES as readonly string[]).includes(t);
}
