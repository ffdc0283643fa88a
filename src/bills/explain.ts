// A bill line's trace in words, for the officer who explains a bill to a customer. The
// words come only from the trace kept with the bill, never from a new calculation. Dates
// in words are the API's dd/mm/yyyy; the trace keeps them 'YYYY-MM-DD' for programs.
import { explainModel, explainPrepaid, type RatedLine } from '../rating/index.ts';
import { formatDate as day } from '../calendar/calendar.ts';

export function explainLine(line: RatedLine): string {
  const t = line.trace;
  const parts: string[] = [];
  if (t.prepaid) parts.push(explainPrepaid(t.prepaid, t.model));
  if (t.segment) {
    const g = t.segment;
    parts.push(
      `version ${g.version} in force ${day(g.start)} to ${day(g.end)} (${g.days} day(s) billed)` +
        (g.consumption
          ? `, ${g.consumption.quantity} of the consumption ${g.consumption.by === 'readings' ? `by the reading${g.consumption.from ? ` of ${day(g.consumption.from.date)} (${g.consumption.from.value})` : ''}${g.consumption.to ? ` of ${day(g.consumption.to.date)} (${g.consumption.to.value})` : ''}` : 'shared by days'}`
          : ''),
    );
  }
  if (t.reading) {
    const r = t.reading;
    parts.push(
      `${r.input} read ${r.previous.value} on ${day(r.previous.date)} and ${r.current.value} on ${day(r.current.date)}` +
        (r.kind === 'rollover' ? ` (the meter rolled over at ${r.rolloverAt})` : '') +
        `: ${r.consumption} used${r.estimated ? ' (estimated)' : ''}`,
    );
  }
  if (t.input) parts.push(`${t.input.input} ${t.input.value}${t.input.source === 'default' ? ' (the default)' : ''}`);
  parts.push(explainModel(t));
  if (t.proration) {
    const p = t.proration;
    const suspended = p.suspendedDays
      ? ` (${p.suspendedDays} day(s) suspended, not billed: ${(p.suspended ?? []).map((s) => (s.start === s.end ? day(s.start) : `${day(s.start)} to ${day(s.end)}`)).join(', ')})`
      : '';
    parts.push(`prorated ${p.factor} ${p.basis === 'billedDays' ? 'of the days billed' : 'days'}${suspended}: ${p.before} to ${p.after}`);
  }
  if (t.limit) parts.push(`${t.limit.applied} ${t.limit.applied === 'minimum' ? t.limit.minimum : t.limit.maximum} applied to ${t.limit.before}`);
  parts.push(`${t.unrounded} rounded ${t.rounding} to ${line.amount}`);
  return `${line.name}: ${parts.join('; ')}.`;
}
