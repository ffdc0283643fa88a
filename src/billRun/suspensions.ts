// When a subscription was suspended, from its history (subscription_event, written by
// suspend-subscription and resume-subscription), as SQL shared by the roster and the
// chunks' inputs, so that who is left off the roster and which days a bill leaves out
// are one rule.
//
// A 'suspended' event dated S stops billing from S (S is not billed); the 'resumed'
// event after it, dated R, bills again from R (R is billed). So a suspension is the
// half-open range [S, R), and [S, S) (resumed on the day it was suspended) is no day at
// all. A suspension not resumed is open: [S, ). Events are paired in the order they
// were written (event_id): the state machine makes them alternate. A 'resumed' with no
// 'suspended' before it belongs to a subscription that was moved while suspended before
// moves carried the suspension over: it was suspended since its start, [ , R).

/**
 * One row per suspension of the subscriptions whose events `filter` selects (a
 * condition on `e`, an alias of subscription_event): subscription_id and period, a
 * daterange [first suspended day, resume date) whose lower bound is null when it runs
 * from the subscription's start and whose upper bound is null while not resumed.
 * Empty suspensions (resumed the day they began) are left out.
 */
export const suspensionPeriodsSql = (filter: string) => `
  SELECT p.subscription_id, daterange(p.from_date, p.until_date, '[)') AS period
    FROM (SELECT e.subscription_id, e.kind, lag(e.kind) OVER w AS kind_before,
                 CASE WHEN e.kind = 'suspended' THEN e.effective_date END AS from_date,
                 CASE WHEN e.kind = 'resumed' THEN e.effective_date
                      WHEN lead(e.kind) OVER w = 'resumed' THEN lead(e.effective_date) OVER w END AS until_date
            FROM subscription_event e
           WHERE e.kind IN ('suspended', 'resumed') AND (${filter})
          WINDOW w AS (PARTITION BY e.subscription_id ORDER BY e.event_id)) p
   WHERE (p.kind = 'suspended' OR p.kind_before IS NULL)
     AND (p.from_date IS NULL OR p.until_date IS NULL OR p.until_date > p.from_date)`;

/** The rating core's input from the periods as the chunk's SQL answers them: [first suspended day or null (since the start), last suspended day or null (still suspended)]. */
export function suspendedPeriods(rows: [string | null, string | null][] | null, startDate: string): { start: string; end: string | null }[] | undefined {
  if (rows === null || rows.length === 0) return undefined;
  return rows.map(([from, lastDay]) => ({ start: from ?? startDate, end: lastDay }));
}
