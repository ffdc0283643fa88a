// How refusals reach the officer: a notification with each bad field, or the field's own
// error under a form input when the API names it (details[].path).
import { useState } from 'react';
import { notifications } from '@mantine/notifications';
import { Badge, Text } from '@mantine/core';
import { ApiError } from '../api/client.ts';

export function notifyError(err: unknown, title = 'Refused'): void {
  const message = err instanceof ApiError ? err.describe() : err instanceof Error ? err.message : String(err);
  notifications.show({ color: 'red', title: err instanceof ApiError ? `${title}: ${err.code}` : title, message, autoClose: 10000 });
}

export function notifyDone(message: string): void {
  notifications.show({ color: 'teal', message, autoClose: 4000 });
}

/**
 * The API's field paths as a form's: "service.components[1].tiers[0].upTo" under prefix
 * "service." becomes "components.1.tiers.0.upTo" (@mantine/form's path). Errors whose
 * field the form lacks are returned apart, for a message above the form.
 */
export function formErrors(err: ApiError, prefix: string, known: (path: string) => boolean): { fields: Record<string, string>; other: string[] } {
  const fields: Record<string, string> = {};
  const other: string[] = [];
  for (const d of err.details) {
    const p = d.path.startsWith(prefix) ? d.path.slice(prefix.length).replace(/\[(\d+)\]/g, '.$1') : null;
    if (p !== null && known(p)) fields[p] = fields[p] ? `${fields[p]}; ${d.message}` : d.message;
    else other.push(`${d.path}: ${d.message}`);
  }
  if (err.details.length === 0) other.push(err.message);
  return { fields, other };
}

/**
 * A refused form: the API's errors under the fields they name (setFields), the rest and any
 * other failure in a notification. The one catch of every form that posts a `data` object.
 */
export function showRefusal(err: unknown, setFields: (f: Record<string, string>) => void, known: (path: string) => boolean, prefix = 'data.'): void {
  if (!(err instanceof ApiError)) return notifyError(err);
  const { fields, other } = formErrors(err, prefix, known);
  setFields(fields);
  if (other.length) notifyError(err);
}

/** A form's save: busy while it runs, a refusal's details under the inputs they name (showRefusal), the rest notified. */
export function useSave(known: (path: string) => boolean, prefix?: string) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setErrors({});
    try {
      await work();
    } catch (err) {
      showRefusal(err, setErrors, known, prefix);
    } finally {
      setBusy(false);
    }
  };
  return { errors, busy, run };
}

const STATUS_COLORS: Record<string, string> = {
  Draft: 'gray', Loaded: 'blue', Validated: 'cyan', Approved: 'indigo', Scheduled: 'violet', Processing: 'orange',
  Processed: 'teal', Posted: 'green', Failed: 'red', Cancelled: 'dark',
  draft: 'gray', posted: 'green', withdrawn: 'dark', active: 'teal', suspended: 'orange', terminated: 'dark', closed: 'dark',
  running: 'orange', succeeded: 'green', failed: 'red', validated: 'cyan', Posted_: 'green', Reversed: 'red',
  error: 'red', warning: 'yellow',
  rendered: 'teal', pending: 'gray', queued: 'blue', sending: 'orange', sent: 'green', archived: 'dark',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    // Never cut to "ERR…" by a narrow column: a status is short, the column grows to hold it.
    <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="light" style={{ flexShrink: 0, overflow: 'visible' }} miw="max-content">
      {status}
    </Badge>
  );
}

/** Amounts are exact decimal text from the API: shown as they are, never through a float. */
export function Amount({ value }: { value: string | null | undefined }) {
  return (
    <Text span ff="monospace" size="sm">
      {value ?? '—'}
    </Text>
  );
}
