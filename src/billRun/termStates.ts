// The term's life, in one table: every operation and every job step that changes a
// term's status names its move here, and nothing else decides whether it may happen.
import { invalidState } from '../errors.ts';

export const TERM_STATUS = Object.freeze({
  Draft: 'Draft',
  Loaded: 'Loaded',
  Validated: 'Validated',
  Approved: 'Approved',
  Scheduled: 'Scheduled',
  Processing: 'Processing',
  Processed: 'Processed',
  Failed: 'Failed',
  Posted: 'Posted',
  Cancelled: 'Cancelled',
} as const);
export type TermStatus = (typeof TERM_STATUS)[keyof typeof TERM_STATUS];
export const TERM_STATUSES = Object.values(TERM_STATUS) as TermStatus[];

const S = TERM_STATUS;

/**
 * Each move: the statuses it may start from and the status it leaves the term in
 * (`to: null` keeps the status). Steps 2 to 5 may be skipped: process-term accepts a
 * Draft, Loaded or Validated term and its job runs what was skipped first.
 */
export const TERM_MOVES = Object.freeze({
  load: { from: [S.Draft, S.Loaded], to: S.Loaded },
  // Readings may be added until approval; after a validation they make it stale. In a
  // Failed, Processed or Posted term they fix what stopped a run or a subscription (a posted
  // term's failures are retried too).
  capture: { from: [S.Loaded, S.Validated, S.Failed, S.Processed, S.Posted], to: null },
  // New readings make an earlier validation stale.
  invalidate: { from: [S.Validated], to: S.Loaded },
  validate: { from: [S.Loaded, S.Validated, S.Failed], to: S.Validated },
  approve: { from: [S.Validated], to: S.Approved },
  process: { from: [S.Draft, S.Loaded, S.Validated, S.Approved, S.Failed], to: S.Scheduled },
  // Rates again, alone, the subscriptions of a processed term that failed; of a posted one
  // too, whose new bills are posted when the round ends (finishRun.ts): a failure posted
  // with its term was otherwise never billed for that term (an attacker's walk).
  retryFailures: { from: [S.Processed, S.Posted], to: S.Scheduled },
  cancel: { from: [S.Draft, S.Loaded, S.Validated, S.Approved, S.Scheduled, S.Failed], to: S.Cancelled },
  // The job's own moves.
  start: { from: [S.Scheduled], to: S.Processing },
  finish: { from: [S.Processing], to: S.Processed },
  fail: { from: [S.Scheduled, S.Processing], to: S.Failed },
  // Bills of an unposted run withdrawn; the roster stays, readings may be fixed.
  reverse: { from: [S.Processed], to: S.Loaded },
  post: { from: [S.Processed], to: S.Posted },
} as const satisfies Record<string, { from: readonly TermStatus[]; to: TermStatus | null }>);
export type TermMove = keyof typeof TERM_MOVES;

const VERBS: Record<TermMove, string> = {
  load: 'load subscriptions into',
  capture: 'capture readings for',
  invalidate: 'invalidate the validation of',
  validate: 'validate',
  approve: 'approve',
  process: 'process',
  retryFailures: 'retry the failures of',
  cancel: 'cancel',
  start: 'start',
  finish: 'finish',
  fail: 'fail',
  reverse: 'reverse',
  post: 'post',
};

export function canMove(status: TermStatus, move: TermMove): boolean {
  return (TERM_MOVES[move].from as readonly TermStatus[]).includes(status);
}

/** The status after the move, or INVALID_STATE naming the term's status. */
export function moveTerm(status: TermStatus, move: TermMove): TermStatus {
  if (!canMove(status, move)) {
    throw invalidState(`Cannot ${VERBS[move]} a term that is ${status}; allowed from ${TERM_MOVES[move].from.join(', ')}.`);
  }
  return TERM_MOVES[move].to ?? status;
}
