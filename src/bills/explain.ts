// A bill line's trace in words, for the officer who explains a bill to a customer. The
// words come only from the trace kept with the bill, never from a new calculation.
import type { RatedLine } from '../rating/index.ts';

export function explainLine(line: RatedLine): string {
  const t = line.trace;
  const parts: string[] = [];
  if (t.reading) {
    const r = t.reading;
    parts.push(
      `${r.input} read ${r.previous.value} on ${r.previous.date} and ${r.current.value} on ${r.current.date}` +
        (r.kind === 'rollover' ? ` (the meter rolled over at ${r.rolloverAt})` : '') +
        `: ${r.consumption} used${r.estimated ? ' (estimated)' : ''}`,
    );
  }
  if (t.input) parts.push(`${t.input.input} ${t.input.value}${t.input.source === 'default' ? ' (the default)' : ''}`);
  switch (t.model) {
    case 'flat':
      parts.push(`flat ${t.amount}`);
      break;
    case 'perUnit':
      parts.push(`${t.quantity} x ${t.rate}`);
      break;
    case 'graduated':
      parts.push(t.tiers.map((x) => `tier ${x.tier}: ${x.quantity} x ${x.rate}${x.flat ? ` + ${x.flat}` : ''} = ${x.amount}`).join('; '));
      break;
    case 'volume':
      parts.push(`all ${t.quantity} at tier ${t.tier.tier}: ${t.tier.quantity} x ${t.tier.rate}${t.tier.flat ? ` + ${t.tier.flat}` : ''} = ${t.tier.amount}`);
      break;
    case 'package':
      parts.push(`${t.blocks} block(s) of ${t.size} x ${t.price}`);
      break;
    case 'percentage':
      parts.push(`${t.percentage}% of ${t.base} (${t.of.map((o) => `${o.code} ${o.amount}`).join(' + ')})`);
      break;
  }
  if (t.proration) {
    const p = t.proration;
    const suspended = p.suspendedDays
      ? ` (${p.suspendedDays} day(s) suspended, not billed: ${(p.suspended ?? []).map((s) => (s.start === s.end ? s.start : `${s.start} to ${s.end}`)).join(', ')})`
      : '';
    parts.push(`prorated ${p.factor} days${suspended}: ${p.before} to ${p.after}`);
  }
  if (t.limit) parts.push(`${t.limit.applied} ${t.limit.applied === 'minimum' ? t.limit.minimum : t.limit.maximum} applied to ${t.limit.before}`);
  parts.push(`${t.unrounded} rounded ${t.rounding} to ${line.amount}`);
  return `${line.name}: ${parts.join('; ')}.`;
}
