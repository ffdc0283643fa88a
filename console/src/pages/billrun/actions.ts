// The term's steps as calls, and which statuses allow each: the console's copy of
// src/billRun/termStates.ts, used only to show or grey out buttons (the API decides).
import { call, type Data } from '../../api/client.ts';

export type Term = Data<'/billing/terms/get-terms'>['terms'][number];
export type Validation = Data<'/billing/terms/validate-term'>;
export type ReadingInput = { subscriptionID: number; inputCode: string; readingDate: string; value: string; note?: string };

const ENV = { apiVersion: 'v2', operation: 'schedule' } as const;

export const termSteps = {
  load: (termID: number) => call('/billing/terms/load-subscriptions', { method: 'Update', action: 'Load Term Subscriptions', ...ENV, data: { termID } }),
  capture: (termID: number, readings: ReadingInput[]) => call('/billing/terms/capture-readings', { method: 'Update', action: 'Capture Term Readings', ...ENV, data: { termID, readings } }),
  validate: (termID: number, estimateMissing: boolean) =>
    call('/billing/terms/validate-term', { method: 'Update', action: 'Validate Term', ...ENV, data: { termID, estimateMissing, previewLimit: 20 } }),
  approve: (termID: number) => call('/billing/terms/approve-term', { method: 'Update', action: 'Approve Term', ...ENV, data: { termID } }),
  process: (termID: number, sheduleTime: string | null) =>
    call('/billing/terms/process-term', { method: 'Update', action: 'Process Term', ...ENV, data: sheduleTime ? { termID, sheduleTime } : { termID } }),
  retry: (termID: number) => call('/billing/terms/retry-failures', { method: 'Update', action: 'Retry Term Failures', ...ENV, data: { termID } }),
  cancel: (termID: number) => call('/billing/terms/cancel-term', { method: 'Update', action: 'Cancel Term', ...ENV, data: { termID } }),
  reverse: (termID: number) => call('/billing/terms/reverse-term', { method: 'Update', action: 'Reverse Term', ...ENV, data: { termID } }),
  post: (termID: number) => call('/billing/terms/post-term', { method: 'Update', action: 'Post Term', ...ENV, data: { termID } }),
};

export const ALLOWED: Record<keyof typeof termSteps, readonly string[]> = {
  load: ['Draft', 'Loaded'],
  capture: ['Loaded', 'Validated', 'Failed', 'Processed'],
  validate: ['Loaded', 'Validated', 'Failed'],
  approve: ['Validated'],
  process: ['Draft', 'Loaded', 'Validated', 'Approved', 'Failed'],
  retry: ['Processed'],
  cancel: ['Draft', 'Loaded', 'Validated', 'Approved', 'Scheduled', 'Failed'],
  reverse: ['Processed'],
  post: ['Processed'],
};

export const RUNNING = ['Scheduled', 'Processing'];

/** The step a term in this status waits for (0 make, 1 load, 2 readings, 3 validate, 4 approve, 5 process, 6 post, 7 done). */
export function stepOf(status: string): number {
  switch (status) {
    case 'Draft':
      return 1;
    case 'Loaded':
      return 2;
    case 'Failed':
      return 3;
    case 'Validated':
      return 4;
    case 'Approved':
    case 'Scheduled':
    case 'Processing':
      return 5;
    case 'Processed':
      return 6;
    default:
      return 7;
  }
}
