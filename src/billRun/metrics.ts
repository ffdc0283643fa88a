// The bill run's figures kept by the process that runs its chunks (a worker). The run's
// totals, whichever process wrote them, are read from the database at scrape time
// (src/metrics/database.ts: billrun_bill_run_bills, billrun_bill_run_failures).
import { counter, histogram } from '../metrics/registry.ts';

export const chunkSeconds = histogram(
  'billrun_bill_run_chunk_duration_seconds',
  'Time one bill-run chunk took in this process, rating and writing (committed chunks only).',
  [],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
);
export const chunkBills = counter('billrun_bill_run_chunk_bills_total', 'Bills written by the bill-run chunks this process ran.');
export const chunkFailures = counter('billrun_bill_run_chunk_failures_total', 'Subscriptions the bill-run chunks this process ran could not bill.');
export const chunkErrors = counter('billrun_bill_run_chunk_errors_total', 'Bill-run chunks that threw in this process (the queue retries them).');
