// How get-bills shows a Post Account bill (docs/bill-run.md, "Post Account"): the fields
// of every bill, plus postType, its subscriptions (groups, each with its connection
// inputs and subtotal) and, on each line, the subscription it is of.
import { formatDate } from '../calendar/calendar.ts';
import { moneyText as money } from '../rating/money.ts';
import type { RatedLine } from '../rating/index.ts';
import { explainLine, lineDays } from './explain.ts';
import { splitGroups, type StoredGroup } from './accountBills.ts';

/** SQL: the connection inputs of an account bill's subscriptions by id (null on other bills), `b` the bill's alias. */
export const groupInputsSql = (b: string) =>
  `CASE WHEN ${b}.groups IS NULL THEN NULL ELSE (
     SELECT json_object_agg(s.subscription_id, s.connection_inputs) FROM subscription s
      WHERE s.subscription_id IN (SELECT (g->>'subscriptionId')::bigint FROM json_array_elements(${b}.groups) g)) END`;

export function accountBillFields(groups: StoredGroup[], inputs: Record<string, Record<string, unknown>> | null, minorUnits: number) {
  return {
    postType: 'Post Account' as const,
    subscriptions: groups.map((g) => ({
      subscriptionID: Number(g.subscriptionId),
      connectionInputs: inputs?.[g.subscriptionId] ?? {},
      periodStart: formatDate(g.periodStart),
      periodEnd: formatDate(g.periodEnd),
      charges: money(g.charges, minorUnits),
      tax: money(g.tax, minorUnits),
      total: money(g.total, minorUnits),
      estimated: g.estimated,
      lineCount: g.lineCount,
    })),
  };
}

/** An account bill's lines, each with its subscription and explanation. */
export function accountBillLines(lines: RatedLine[], groups: StoredGroup[]) {
  return splitGroups(lines, groups).flatMap(({ group, lines }) =>
    lines.map((l) => ({ subscriptionID: Number(group.subscriptionId), ...l, ...lineDays(l), explanation: explainLine(l) })),
  );
}
