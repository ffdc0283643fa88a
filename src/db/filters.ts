import crypto from 'node:crypto';

// A list's WHERE from optional filters. Each value becomes the next numbered parameter,
// never text in the SQL; the first condition (the caller's app, or the list's owner) always holds.
export type Filters = {
  readonly where: string[];
  readonly params: unknown[];
  /** Adds a condition; `sql` places the value's parameter, e.g. (p) => `x.code = ${p}`. */
  add(sql: (p: string) => string, value: unknown): void;
  /** The ANDed conditions. */
  sql(): string;
  /** LIMIT and OFFSET as the next two parameters, and every parameter. */
  page(limit: number, offset: number): { sql: string; params: unknown[] };
};

export function filters(first: string, firstValue: unknown): Filters {
  const where = [first];
  const params: unknown[] = [firstValue];
  return {
    where,
    params,
    add(sql, value) {
      params.push(value);
      where.push(sql(`$${params.length}`));
    },
    sql: () => where.join(' AND '),
    page: (limit, offset) => ({ sql: `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, params: [...params, limit, offset] }),
  };
}

/**
 * The name of a prepared statement for a list's query text: one per shape (the filters a
 * call gives), so PostgreSQL keeps one plan per shape. One statement with every filter
 * optional (`$2 IS NULL OR x = $2`) got no plan it could keep: it was planned again on
 * every call, ten times the time it ran (get-bills of one bill: 0.2 ms planning, 0.02 ms
 * running; issue 15, docs/api.md).
 */
export function statementName(base: string, text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size > 1000) names.clear();
    // From the text itself: a name stands for one text on every connection, for ever.
    name = `${base}:${crypto.createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}
const names = new Map<string, string>();
